// The Metal executor's pipelines (MetalPipelines.h): MSL compilation with the
// payload's language version, function-constant specialization, one
// pipeline per distinct (kernel, constants), and the optional MTLBinaryArchive
// cache. Compiled with -fobjc-arc (runtime/src/metal/Sources.cmake).
#include "metal/MetalPipelines.h"

#include <Availability.h>
#include <sys/stat.h>

#include <cstring>

namespace kiln::rt::metal {

namespace {

Status tooOld(const char *Msl, const char *Systems) {
  return unsupported("Metal: the model's kernels need MSL ", Msl,
                     ", which this OS lacks (it needs ", Systems, " or later)");
}

/// MTLLanguageVersion of MetalPayload.msl_version (major * 10000 + minor *
/// 100). Versions newer than the SDK this runtime was built with are
/// refused like unknown ones.
Status languageVersion(uint32_t V, MTLLanguageVersion &Out) {
  switch (V) {
  case 20000:
    if (@available(macOS 10.13, iOS 11.0, *)) {
      Out = MTLLanguageVersion2_0;
      return Status::ok();
    }
    return tooOld("2.0", "macOS 10.13 / iOS 11");
  case 20100:
    if (@available(macOS 10.14, iOS 12.0, *)) {
      Out = MTLLanguageVersion2_1;
      return Status::ok();
    }
    return tooOld("2.1", "macOS 10.14 / iOS 12");
  case 20200:
    if (@available(macOS 10.15, iOS 13.0, *)) {
      Out = MTLLanguageVersion2_2;
      return Status::ok();
    }
    return tooOld("2.2", "macOS 10.15 / iOS 13");
#if (defined(__MAC_OS_X_VERSION_MAX_ALLOWED) &&                                \
     __MAC_OS_X_VERSION_MAX_ALLOWED >= 110000) ||                              \
    (defined(__IPHONE_OS_VERSION_MAX_ALLOWED) &&                               \
     __IPHONE_OS_VERSION_MAX_ALLOWED >= 140000)
  case 20300:
    if (@available(macOS 11.0, iOS 14.0, *)) {
      Out = MTLLanguageVersion2_3;
      return Status::ok();
    }
    return tooOld("2.3", "macOS 11 / iOS 14");
#endif
#if (defined(__MAC_OS_X_VERSION_MAX_ALLOWED) &&                                \
     __MAC_OS_X_VERSION_MAX_ALLOWED >= 120000) ||                              \
    (defined(__IPHONE_OS_VERSION_MAX_ALLOWED) &&                               \
     __IPHONE_OS_VERSION_MAX_ALLOWED >= 150000)
  case 20400:
    if (@available(macOS 12.0, iOS 15.0, *)) {
      Out = MTLLanguageVersion2_4;
      return Status::ok();
    }
    return tooOld("2.4", "macOS 12 / iOS 15");
#endif
#if (defined(__MAC_OS_X_VERSION_MAX_ALLOWED) &&                                \
     __MAC_OS_X_VERSION_MAX_ALLOWED >= 130000) ||                              \
    (defined(__IPHONE_OS_VERSION_MAX_ALLOWED) &&                               \
     __IPHONE_OS_VERSION_MAX_ALLOWED >= 160000)
  case 30000:
    if (@available(macOS 13.0, iOS 16.0, *)) {
      Out = MTLLanguageVersion3_0;
      return Status::ok();
    }
    return tooOld("3.0", "macOS 13 / iOS 16");
#endif
#if (defined(__MAC_OS_X_VERSION_MAX_ALLOWED) &&                                \
     __MAC_OS_X_VERSION_MAX_ALLOWED >= 140000) ||                              \
    (defined(__IPHONE_OS_VERSION_MAX_ALLOWED) &&                               \
     __IPHONE_OS_VERSION_MAX_ALLOWED >= 170000)
  case 30100:
    if (@available(macOS 14.0, iOS 17.0, *)) {
      Out = MTLLanguageVersion3_1;
      return Status::ok();
    }
    return tooOld("3.1", "macOS 14 / iOS 17");
#endif
  default:
    return unsupported("Metal: the model's MSL version ", V / 10000, ".",
                       V / 100 % 100, " (msl_version ", V,
                       ") is unknown to this runtime");
  }
}

NSString *nsString(const flatbuffers::String *S) {
  if (!S)
    return nil;
  return [[NSString alloc] initWithBytes:S->data()
                                  length:S->size()
                                encoding:NSUTF8StringEncoding];
}

/// The archive at Path, else an empty one (a missing, unreadable or other
/// device's file), else nil. Loaded: the file's bytes.
API_AVAILABLE(macos(11.0), ios(14.0))
id<MTLBinaryArchive> openArchive(id<MTLDevice> Dev, const std::string &Path,
                                 uint64_t &Loaded) {
  NSString *P = [NSString stringWithUTF8String:Path.c_str()];
  if (!P)
    return nil;
  MTLBinaryArchiveDescriptor *Desc = [MTLBinaryArchiveDescriptor new];
  NSError *Err = nil;
  struct stat St;
  if (::stat(Path.c_str(), &St) == 0 && St.st_size > 0) {
    Desc.url = [NSURL fileURLWithPath:P];
    if (id<MTLBinaryArchive> A = [Dev newBinaryArchiveWithDescriptor:Desc
                                                               error:&Err]) {
      Loaded = uint64_t(St.st_size);
      return A;
    }
    Desc.url = nil; // not for this device or OS, or damaged: start afresh
    Err = nil;
  }
  return [Dev newBinaryArchiveWithDescriptor:Desc error:&Err];
}

/// The pipeline of Desc from Archive alone (nil on a miss).
API_AVAILABLE(macos(11.0), ios(14.0))
id<MTLComputePipelineState> fromArchive(id<MTLDevice> Dev, id Archive,
                                        MTLComputePipelineDescriptor *Desc) {
  Desc.binaryArchives = @[ (id<MTLBinaryArchive>)Archive ];
  NSError *Err = nil;
  return [Dev newComputePipelineStateWithDescriptor:Desc
                                            options:MTLPipelineOptionFailOnBinaryArchiveMiss
                                         reflection:nil
                                              error:&Err];
}

/// Adds Desc's pipeline to Archive; false where that fails (ignored: the
/// archive only saves compile time).
API_AVAILABLE(macos(11.0), ios(14.0))
bool addToArchive(id Archive, MTLComputePipelineDescriptor *Desc) {
  NSError *Err = nil;
  return [(id<MTLBinaryArchive>)Archive addComputePipelineFunctionsWithDescriptor:Desc
                                                                            error:&Err];
}

API_AVAILABLE(macos(11.0), ios(14.0))
void saveArchive(id Archive, const std::string &Path) {
  NSString *P = [NSString stringWithUTF8String:Path.c_str()];
  if (!P)
    return;
  NSError *Err = nil;
  // A failure (read-only folder, full disk) only costs compile time later.
  (void)[(id<MTLBinaryArchive>)Archive serializeToURL:[NSURL fileURLWithPath:P]
                                                error:&Err];
}

} // namespace

std::string kernelName(const fb::MetalPayload &P, uint32_t Kernel) {
  const fb::MetalKernel *K = P.kernels()->Get(Kernel);
  return concat("Metal kernel ", Kernel, " (",
                K->name() ? K->name()->str() : std::string(), ")");
}

std::string describe(NSError *Err) {
  if (!Err)
    return "unknown error";
  const char *S = Err.localizedDescription.UTF8String;
  return S ? std::string(S) : std::string("unknown error");
}

Status Pipelines::library(id<MTLDevice> Dev, const fb::MetalPayload &P,
                          uint32_t K, MTLLanguageVersion Version,
                          __strong id<MTLLibrary> &Out) {
  if (Libraries[K]) {
    Out = Libraries[K];
    return Status::ok();
  }
  const fb::MetalKernel *Kernel = P.kernels()->Get(K);
  NSString *Source = nsString(Kernel->msl());
  if (!Source)
    return invalidModel(kernelName(P, K), ": its MSL is missing or not UTF-8");
  MTLCompileOptions *Options = [MTLCompileOptions new];
  Options.languageVersion = Version;
  // kiln's results must match the reference: no fast math (it reassociates
  // and flushes; MTLMathModeSafe in the newest SDKs, where fastMathEnabled
  // is deprecated but still honoured).
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
  Options.fastMathEnabled = NO;
#pragma clang diagnostic pop
  NSError *Err = nil;
  // Err may hold warnings next to a library: only a nil library fails.
  id<MTLLibrary> Lib = [Dev newLibraryWithSource:Source options:Options error:&Err];
  if (!Lib)
    return invalidModel(kernelName(P, K), ": its MSL does not compile: ",
                        describe(Err));
  Libraries[K] = Lib;
  Out = Lib;
  return Status::ok();
}

Status Pipelines::pipelineFor(id<MTLDevice> Dev, const fb::MetalPayload &P,
                              size_t D, MTLLanguageVersion Version,
                              __strong id<MTLComputePipelineState> &Out) {
  const fb::MetalDispatch *Dp = P.dispatches()->Get(unsigned(D));
  uint32_t K = Dp->kernel();
  const fb::MetalKernel *Kernel = P.kernels()->Get(K);
  std::string Where = concat("Metal dispatch ", D, " (", kernelName(P, K), ")");
  Key Id{K, {}};
  if (const auto *Cs = Dp->function_constants())
    for (const fb::VulkanSpecConstant *C : *Cs)
      Id.second.push_back(uint64_t(C->id()) << 32 | C->value());
  if (auto It = Cache.find(Id); It != Cache.end()) {
    Out = It->second;
    return Status::ok();
  }

  id<MTLLibrary> Lib = nil;
  if (Status S = library(Dev, P, K, Version, Lib))
    return S;
  // Every kernel is specialized through constantValues:, even with none
  // set: a function that declares function constants cannot make a
  // pipeline unspecialized, and the MSL's defaults apply to those unset.
  MTLFunctionConstantValues *Values = [MTLFunctionConstantValues new];
  if (const auto *Cs = Dp->function_constants())
    for (const fb::VulkanSpecConstant *C : *Cs) {
      const fb::MetalFunctionConstant *Decl = nullptr;
      if (const auto *Decls = Kernel->function_constants())
        for (const fb::MetalFunctionConstant *F : *Decls)
          if (F->id() == C->id())
            Decl = F;
      if (!Decl)
        return invalidModel(Where, ": function constant ", C->id(),
                            " is not one the kernel declares");
      uint32_t Bits = C->value();
      NSUInteger Index = C->id();
      switch (Decl->type()) {
      case fb::MetalConstantType::UINT:
        [Values setConstantValue:&Bits type:MTLDataTypeUInt atIndex:Index];
        break;
      case fb::MetalConstantType::INT: {
        int32_t I;
        std::memcpy(&I, &Bits, 4);
        [Values setConstantValue:&I type:MTLDataTypeInt atIndex:Index];
        break;
      }
      case fb::MetalConstantType::FLOAT: {
        float F; // the value is the float's bits
        std::memcpy(&F, &Bits, 4);
        [Values setConstantValue:&F type:MTLDataTypeFloat atIndex:Index];
        break;
      }
      case fb::MetalConstantType::BOOL: {
        bool B = Bits != 0;
        [Values setConstantValue:&B type:MTLDataTypeBool atIndex:Index];
        break;
      }
      default:
        return invalidModel(Where, ": function constant ", C->id(),
                            " has unknown type ", unsigned(Decl->type()));
      }
    }
  NSString *Entry = nsString(Kernel->entry_point());
  if (!Entry)
    return invalidModel(Where, ": no entry point");
  NSError *Err = nil;
  id<MTLFunction> Fn = [Lib newFunctionWithName:Entry constantValues:Values error:&Err];
  if (!Fn)
    return invalidModel(Where, ": no kernel function '",
                        Kernel->entry_point()->str(),
                        "' with these function constants: ", describe(Err));

  MTLComputePipelineDescriptor *Desc = [MTLComputePipelineDescriptor new];
  Desc.computeFunction = Fn;
  Desc.label = nsString(Kernel->name());
  id<MTLComputePipelineState> Pipe = nil;
  if (@available(macOS 11.0, iOS 14.0, *)) {
    if (Archive) {
      Pipe = fromArchive(Dev, Archive, Desc);
      if (!Pipe && addToArchive(Archive, Desc)) // a miss: compiled now
        ArchiveDirty = true;
    }
  }
  if (!Pipe) {
    Err = nil;
    Pipe = [Dev newComputePipelineStateWithDescriptor:Desc
                                              options:MTLPipelineOptionNone
                                           reflection:nil
                                                error:&Err];
  }
  if (!Pipe)
    return invalidModel(Where, ": creating its compute pipeline failed: ",
                        describe(Err));
  Cache.emplace(std::move(Id), Pipe);
  Out = Pipe;
  return Status::ok();
}

Status Pipelines::create(id<MTLDevice> Dev, const fb::MetalPayload &P,
                         const std::string &Path) {
  MTLLanguageVersion Version{};
  if (Status S = languageVersion(P.msl_version(), Version))
    return S;
  size_t NumKernels = P.kernels() ? P.kernels()->size() : 0;
  size_t N = P.dispatches() ? P.dispatches()->size() : 0;
  Libraries.assign(NumKernels, nil);
  ByDispatch.assign(N, nil);
  ArchivePath = Path;
  if (!Path.empty()) {
    if (@available(macOS 11.0, iOS 14.0, *))
      Archive = openArchive(Dev, Path, ArchiveBytes);
  }
  for (size_t D = 0; D < N; ++D) {
    uint32_t K = P.dispatches()->Get(unsigned(D))->kernel();
    if (K >= NumKernels) // the loader's verifier refuses it first
      return invalidModel("Metal dispatch ", D, ": kernel ", K,
                          " is out of range (", NumKernels, " kernels)");
    if (Status S = pipelineFor(Dev, P, D, Version, ByDispatch[D]))
      return S;
  }
  if (@available(macOS 11.0, iOS 14.0, *)) {
    if (Archive && ArchiveDirty)
      saveArchive(Archive, ArchivePath);
  }
  // The MSL is in the pipelines now; the libraries are not needed again.
  Libraries.clear();
  return Status::ok();
}

} // namespace kiln::rt::metal
