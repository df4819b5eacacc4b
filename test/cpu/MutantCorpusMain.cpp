// kiln-mutants: at least 1000 broken .kiln files, generated from valid ones
// by a seeded generator, must each be rejected by the loader or run to the
// end without a crash (under ASan in the asan preset). The valid seeds are
// compiled here from the example models and a few conformance models.
//
// Mutations, in rotation:
//   bit flips       1 to 8 random bits anywhere, or inside the FlatBuffer
//   truncation      the file cut at a random length
//   offset lies     a segment's offset or size set to a wrong value
//   index lies      an operator's input/output or a graph I/O index changed
//   cycles          two operators swapped, or an input taken from later on
//   shape lies      a tensor dim, dtype or a convolution option changed
//   quant lies      a quantization scale (0, negative, NaN, inf, huge), zero
//                   point (out of range) or axis changed
//   layout lies     a BLOCKED weight's padded dim, stride, inner block or
//                   axis order changed, or a tensor's layout set to BLOCKED
//   vulkan lies     (Vulkan seeds, in place of half the quant and layout
//                   lies) a dispatch's binding buffer/offset/size, group
//                   count (0 or huge), workgroup size or shader index, a
//                   SPIR-V word, a buffer's size or kind, a tensor's place
//   constant lies   (Vulkan seeds, in place of the shape lies) a
//                   dispatch's shape constant (specialization constant 5
//                   or above) multiplied by 2 to 4, or a binding's size
//                   halved: a file the loader accepts whose constants lie
//                   about its bindings. Run with robustBufferAccess off
//                   (KILN_VULKAN_ROBUST_BUFFER_ACCESS=off): the kernels'
//                   own bounds checks must keep them inside their bindings
//                   (docs/security.md).
//   nnapi lies      (NNAPI seeds, likewise) an operand, operation, tensor,
//                   operator or segment index out of range; an operation's
//                   first input dropped or input 0 appended; a quantized
//                   operand's scale (0, negative, NaN, inf) or zero point
//                   (out of range); a per-channel scale count or
//                   channel_dim; an operation type unknown or above the
//                   feature level; the feature level below what an operand
//                   type or operation needs; an inline value of the wrong
//                   size; a dim 0; a host_before/host_after operator out of
//                   range or not a host conversion; an operation's input
//                   made OMITTED (schema 1.15), or an omitted one NONE.
//                   Each must be rejected
//                   by the loader; the driver fails otherwise.
//   self-test lies  (seeds with a self-test, likewise) a sample or
//                   reference naming no buffer or one of another size, a
//                   stride of 0 or past the output (or of 2^64 - 1 with an
//                   empty reference), a tolerance or peak
//                   negative or not finite. Each must be rejected by the
//                   loader.
//   metal lies      (Metal seeds, likewise) a kernel's buffer index (31 or
//                   a duplicate), push-constant index (taken or outside),
//                   function constant type, threadgroup size or the
//                   constant that sets it; a dispatch's kernel, binding
//                   buffer/offset/size, function constant id, threads per
//                   threadgroup or threadgroups (0 or over 65535); the MSL
//                   version; a place's tensor, buffer, offset or size. Each
//                   must be rejected by the loader, which verifies Metal
//                   files in every build (the Metal API would not).
//
//   kiln-mutants [--count N] [--seed S] [--write DIR] MODEL.onnx[:MODE]...
// MODE quantizes the seed first: int8-dynamic, or int8=CALIB (.npy/.npz);
// or it is native, `kiln convert --prepack native` (BLOCKED weights); or
// vulkan, `kiln convert --target vulkan` (its sessions run on the machine's
// Vulkan device, lavapipe in CI); or nnapi, `kiln convert --target nnapi`
// (fp32, lowest level), or nnapi-int8-LEVEL=CALIB (int8, lowered for
// LEVEL); their sessions run on the device KILN_NNAPI_LIBRARY names; or
// metal, `kiln convert --target metal` (its sessions are refused off Apple:
// the runtime has no Metal executor there, but its loader verifies them); or
// image, `kiln convert --image-input input=rgba8 --mean 128 --std 64` (an
// image input read by PIXELS_TO_TENSOR, its scale folded into the first
// convolution); or self-test, `kiln convert --self-test` (a CPU file with
// a generated sample and the interpreter's reference; every mutant that
// loads runs its self-test too).
// --write keeps the corpus (seed-N.kiln and mutant-N.kiln) as files, e.g.
// for libFuzzer.
#include "LoaderFuzzTarget.h"

#include "Support/FileSystem.h"
#include "backends/common/KilnWriter.h"
#include "backends/kilnops/KilnOps.h"
#include "backends/cpu/NativePrepack.h"
#include "backends/nnapi/NnapiTarget.h"
#include "backends/metal/MetalTarget.h"
#ifdef KILN_MUTANTS_VULKAN
#include "HostileKernels.h"
#include "backends/gpu/GpuDispatchLowering.h"
#endif
#include "Driver/PartitionedFile.h"
#include "Driver/Placement.h"
#include "Driver/SelfTestBuild.h"
#include "IR/Parser.h"
#include "frontends/onnx/OnnxImporter.h"
#include "passes/ImageInput.h"
#include "passes/PassManager.h"
#include "passes/Pipelines.h"
#include "passes/quant/QuantizeGraph.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <map>
#include <random>
#include <type_traits>

using namespace kiln;

namespace {

llvm::Expected<std::string> compileSeed(const std::string &Spec) {
  std::string Path = Spec, Mode;
  int32_t NnapiLevel = -1; // not an NNAPI seed
  QuantizeOptions Q;
  if (size_t Colon = Spec.rfind(':'); Colon != std::string::npos) {
    Path = Spec.substr(0, Colon);
    Mode = Spec.substr(Colon + 1);
    if (size_t Eq = Mode.find('='); Eq != std::string::npos) {
      Q.Data.Path = Mode.substr(Eq + 1);
      Mode = Mode.substr(0, Eq);
    }
    std::string QMode = Mode;
    if (Mode == "nnapi") {
      QMode = "none";
      NnapiLevel = 0;
    } else if (Mode.rfind("nnapi-int8-", 0) == 0) {
      QMode = "int8";
      NnapiLevel = std::atoi(Mode.c_str() + 11);
    }
    auto M = Mode == "native" || Mode == "vulkan" || Mode == "metal" ||
                     Mode == "image" || Mode == "self-test" || Mode.rfind("partitioned-", 0) == 0
                 ? QuantizeMode::None
                 : parseQuantizeMode(QMode);
    if (!M)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "unknown quantize mode " + Mode);
    Q.Mode = *M;
  }
  // A seed in the text IR: an op no ONNX example has (BOX_NMS).
  auto G = llvm::StringRef(Path).endswith(".kir") ? parseGraphFile(Path)
                                                  : importOnnxFile(Path);
  if (!G)
    return G.takeError();
  PassManager PM;
  for (const std::string &P : pipelineForLevel(2))
    if (llvm::Error E = PM.add(P))
      return E;
  if (llvm::Error E = PM.run(**G))
    return E;
  QuantizeReport Report;
  if (llvm::Error E = quantizeGraph(**G, Q, Report))
    return E;
  if (Mode == "image") {
    ImageInputSpec Image;
    Image.Input = "input";
    Image.Format = numerics::PixelFormat::Rgba8;
    Image.Mean = {128.0};
    Image.Std = {64.0};
    if (llvm::Error E = attachImageInput(**G, Image))
      return E;
    if (llvm::Error E = PM.runPass("fold-image-normalization", **G))
      return E;
  }
  if (Mode == "vulkan") {
#ifdef KILN_MUTANTS_VULKAN
    auto V = lowerToGpuDispatches(**G);
    if (!V)
      return V.takeError();
    return serializeKilnModule(V->Module);
#else
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "built without the Vulkan target");
#endif
  }
  if (Mode == "partitioned-vulkan" || Mode == "partitioned-nnapi") {
    // kiln convert --fallback cpu --placement greedy: a partitioned file
    // (schema 1.13) whose segments are the parts' own files.
    PlacementOptions PO;
    PO.Device = findTarget(Mode.substr(12));
    PO.Costed = false;
    auto P = planPlacement(**G, PO);
    if (!P)
      return P.takeError();
    std::string Bytes;
    EmitRequest R;
    R.Input = Path;
    R.Bytes = &Bytes;
    auto Written = emitPlacement(**G, *P, R, PartitionedEmit());
    if (!Written)
      return Written.takeError();
    return Bytes;
  }
  if (Mode == "metal") {
    auto Mt = compileForMetal(**G);
    if (!Mt)
      return Mt.takeError();
    return serializeKilnModule(Mt->Module);
  }
  if (NnapiLevel >= 0) {
    auto N = compileForNnapi(**G, NnapiLevel, false);
    if (!N)
      return N.takeError();
    return serializeKilnModule(N->Module);
  }
  auto C = lowerToKilnOps(**G);
  if (!C)
    return C.takeError();
  if (Mode == "self-test") { // kiln convert --self-test
    SelfTestFlags F;
    F.Enabled = true;
    auto Record = buildSelfTest(**G, F, QuantizeMode::None, Path);
    if (!Record)
      return Record.takeError();
    attachSelfTest(C->Module, *Record);
  }
  if (Mode == "native")
    if (auto R = prepackForThisCpu(C->Module); !R)
      return R.takeError();
  return serializeKilnModule(C->Module);
}

class Mutator {
public:
  explicit Mutator(uint64_t Seed) : Rng(Seed) {}

  /// Applies mutation Kind (0..12) to a copy of Seed; Name says what it did.
  /// A seed with a self-test takes self-test lies (12) for half of kinds 6
  /// and 7.
  /// A Vulkan seed takes vulkan lies (8) for half of kinds 6 and 7 (Kind is
  /// updated), since its fp32 tensors have no quantization or blocking, and
  /// constant lies (11) for kind 5; an
  /// NNAPI seed likewise takes nnapi lies (9), and a Metal seed metal lies
  /// (10), when one applies.
  std::string mutate(const std::string &Seed, unsigned &Kind, std::string &Name) {
    std::string B = Seed;
    fb::Model *M = fb::GetMutableModel(B.data());
    if ((Kind == 6 || Kind == 7) && Seed.size() >= 8 && M->self_test() &&
        Rng() % 2) {
      for (unsigned Try = 0; Try < 16; ++Try)
        if (lieAboutSelfTest(*M, Name)) {
          Kind = 12;
          return B;
        }
    }
    if ((Kind == 6 || Kind == 7) && Seed.size() >= 8 &&
        M->payload_type() == fb::TargetPayload::VulkanPayload && Rng() % 2)
      Kind = 8;
    if (Kind == 5 && Seed.size() >= 8 &&
        M->payload_type() == fb::TargetPayload::VulkanPayload) {
      for (unsigned Try = 0; Try < 16; ++Try)
        if (lieAboutConstants(*M, Name)) {
          Kind = 11;
          return B;
        }
    }
    if ((Kind == 6 || Kind == 7) && Seed.size() >= 8 &&
        M->payload_type() == fb::TargetPayload::NnapiPayload && Rng() % 2) {
      for (unsigned Try = 0; Try < 16; ++Try)
        if (lieAboutNnapi(*M, Name)) {
          Kind = 9;
          return B;
        }
    }
    if ((Kind == 6 || Kind == 7) && Seed.size() >= 8 &&
        M->payload_type() == fb::TargetPayload::MetalPayload && Rng() % 2) {
      for (unsigned Try = 0; Try < 16; ++Try)
        if (lieAboutMetal(*M, Name)) {
          Kind = 10;
          return B;
        }
    }
    switch (Kind) {
    case 8:
      if (lieAboutVulkan(*M, Name))
        return B;
      return flipBits(B, Name);
    case 0:
      return flipBits(B, Name);
    case 1: {
      size_t Len = pick(B.size());
      Name = llvm::formatv("truncate to {0}", Len);
      return B.substr(0, Len);
    }
    case 2:
      if (lieAboutSegment(*M, B.size(), Name))
        return B;
      return flipBits(B, Name);
    case 3:
      if (lieAboutIndex(*M, Name))
        return B;
      return flipBits(B, Name);
    case 4:
      if (makeCycle(*M, Name))
        return B;
      return flipBits(B, Name);
    case 6:
      if (lieAboutQuantization(*M, Name))
        return B;
      return flipBits(B, Name);
    case 7:
      if (lieAboutLayout(*M, Name))
        return B;
      return flipBits(B, Name);
    default:
      if (lieAboutShape(*M, Name))
        return B;
      return flipBits(B, Name);
    }
  }

private:
  size_t pick(size_t N) { return N ? size_t(Rng() % N) : 0; }

  int64_t wild() {
    static const int64_t Values[] = {-1, -2, 0, 1, 2, 3, 63, 64, 65, 255,
                                     1 << 20, INT32_MAX, INT32_MIN,
                                     int64_t(1) << 40, INT64_MAX, INT64_MIN};
    return Values[pick(sizeof(Values) / sizeof(Values[0]))];
  }

  std::string flipBits(std::string &B, std::string &Name) {
    // Half of the flips land in the FlatBuffer (the first segment's offset
    // bounds it), where they matter most.
    const fb::Model *M = fb::GetModel(B.data());
    size_t Limit = B.size();
    if (Rng() % 2 && M->buffers() && M->buffers()->size())
      Limit = std::min<size_t>(Limit, M->buffers()->Get(0)->offset());
    unsigned Flips = 1 + unsigned(Rng() % 8);
    Name = llvm::formatv("{0} bit flip(s) in the first {1} bytes", Flips, Limit);
    for (unsigned I = 0; I < Flips; ++I)
      B[pick(Limit)] ^= char(1u << (Rng() % 8));
    return B;
  }

  bool lieAboutSegment(fb::Model &M, size_t FileSize, std::string &Name) {
    auto *Buffers = M.mutable_buffers();
    if (!Buffers || !Buffers->size())
      return false;
    fb::Buffer *Buf = Buffers->GetMutableObject(unsigned(pick(Buffers->size())));
    uint64_t V = Rng() % 3 == 0 ? FileSize - Rng() % 64 : uint64_t(wild());
    bool Offset = Rng() % 2;
    Name = llvm::formatv("segment {0} = {1}", Offset ? "offset" : "size", V);
    return Offset ? Buf->mutate_offset(V) : Buf->mutate_size(V);
  }

  bool lieAboutIndex(fb::Model &M, std::string &Name) {
    int32_t V = int32_t(wild());
    if (Rng() % 4 == 0) {
      auto *IO = Rng() % 2 ? M.mutable_inputs() : M.mutable_outputs();
      if (!IO || !IO->size())
        return false;
      Name = llvm::formatv("graph I/O index = {0}", V);
      IO->Mutate(unsigned(pick(IO->size())), V);
      return true;
    }
    auto *Ops = M.mutable_operators();
    if (!Ops || !Ops->size())
      return false;
    fb::Operator *Op = Ops->GetMutableObject(unsigned(pick(Ops->size())));
    auto *List = Rng() % 2 ? Op->mutable_inputs() : Op->mutable_outputs();
    if (!List || !List->size())
      return false;
    if (Rng() % 2 && M.tensors())
      V = int32_t(pick(M.tensors()->size())); // in range, wrong tensor
    Name = llvm::formatv("operator index = {0}", V);
    List->Mutate(unsigned(pick(List->size())), V);
    return true;
  }

  bool makeCycle(fb::Model &M, std::string &Name) {
    auto *Ops = M.mutable_operators();
    if (!Ops || Ops->size() < 2)
      return false;
    unsigned A = unsigned(pick(Ops->size() - 1));
    unsigned B = A + 1 + unsigned(pick(Ops->size() - A - 1));
    fb::Operator *Early = Ops->GetMutableObject(A);
    const fb::Operator *Late = Ops->Get(B);
    if (!Early->mutable_inputs() || !Early->inputs()->size() ||
        !Late->outputs() || !Late->outputs()->size())
      return false;
    Name = llvm::formatv("operator {0} reads operator {1}'s output", A, B);
    Early->mutable_inputs()->Mutate(unsigned(pick(Early->inputs()->size())),
                                    Late->outputs()->Get(0));
    return true;
  }

  /// A quantized tensor's scale, zero point or axis set to a bad value.
  bool lieAboutQuantization(fb::Model &M, std::string &Name) {
    auto *Tensors = M.mutable_tensors();
    std::vector<fb::Tensor *> Quantized;
    for (unsigned I = 0; Tensors && I < Tensors->size(); ++I)
      if (Tensors->GetMutableObject(I)->quant())
        Quantized.push_back(Tensors->GetMutableObject(I));
    if (Quantized.empty())
      return false;
    auto *Q = Quantized[size_t(pick(Quantized.size()))]->mutable_quant();
    auto *Scales = Q->mutable_scale();
    auto *Zeros = Q->mutable_zero_point();
    switch (Rng() % 3) {
    case 0:
      if (Scales && Scales->size()) {
        static const float Bad[] = {0.0f, -1.0f, NAN, INFINITY, 1e30f, 1e-30f};
        float V = Bad[Rng() % 6];
        Name = llvm::formatv("scale = {0}", V);
        Scales->Mutate(unsigned(pick(Scales->size())), V);
        return true;
      }
      return false;
    case 1:
      if (Zeros && Zeros->size()) {
        int64_t V = Rng() % 2 ? wild() : int64_t(Rng() % 512) - 256;
        Name = llvm::formatv("zero point = {0}", V);
        Zeros->Mutate(unsigned(pick(Zeros->size())), V);
        return true;
      }
      return false;
    default: {
      int32_t V = int32_t(Rng() % 8) - 2;
      Name = llvm::formatv("quant axis = {0}", V);
      return Q->mutate_axis(V);
    }
    }
  }

  /// A BLOCKED weight's layout field set to a wrong value, or (in a seed
  /// without one) a tensor's layout set to BLOCKED.
  bool lieAboutLayout(fb::Model &M, std::string &Name) {
    auto *Tensors = M.mutable_tensors();
    std::vector<fb::Tensor *> Blocked;
    for (unsigned I = 0; Tensors && I < Tensors->size(); ++I)
      if (Tensors->GetMutableObject(I)->blocked())
        Blocked.push_back(Tensors->GetMutableObject(I));
    if (Blocked.empty() || Rng() % 8 == 0) {
      if (!Tensors || !Tensors->size())
        return false;
      Name = "layout = BLOCKED";
      return Tensors->GetMutableObject(unsigned(pick(Tensors->size())))
          ->mutate_layout(fb::Layout::BLOCKED);
    }
    fb::BlockedLayout *L = Blocked[pick(Blocked.size())]->mutable_blocked();
    int64_t V = Rng() % 2 ? wild() : int64_t(Rng() % 70) - 3;
    auto MutateIn = [&](auto *Vec, const char *Field) {
      if (!Vec || !Vec->size())
        return false;
      Name = llvm::formatv("blocked {0} = {1}", Field, V);
      using Elem = std::remove_reference_t<decltype(Vec->Get(0))>;
      Vec->Mutate(unsigned(pick(Vec->size())), Elem(V));
      return true;
    };
    switch (Rng() % 5) {
    case 0: return MutateIn(L->mutable_padded_dims(), "padded dim");
    case 1: return MutateIn(L->mutable_strides(), "stride");
    case 2: return MutateIn(L->mutable_inner_blocks(), "inner block");
    case 3: return MutateIn(L->mutable_inner_dims(), "inner dim");
    default: return MutateIn(L->mutable_order(), "order");
    }
  }

  /// A Vulkan payload's field set to a wrong value: what the loader and the
  /// executor must catch before the driver sees it (bindings outside their
  /// buffer, which robustBufferAccess would not contain; zero or huge group
  /// counts; workgroup sizes over the device's limits; corrupt SPIR-V).
  bool lieAboutVulkan(fb::Model &M, std::string &Name) {
    if (M.payload_type() != fb::TargetPayload::VulkanPayload || !M.payload())
      return false;
    auto *P = static_cast<fb::VulkanPayload *>(M.mutable_payload());
    auto *Ds = P->mutable_dispatches();
    uint64_t V = uint64_t(wild());
    switch (Rng() % 6) {
    case 0: { // a binding
      if (!Ds || !Ds->size())
        return false;
      auto *Bs = Ds->GetMutableObject(unsigned(pick(Ds->size())))->mutable_bindings();
      if (!Bs || !Bs->size())
        return false;
      auto *Bd = const_cast<fb::VulkanBinding *>(Bs->Get(unsigned(pick(Bs->size()))));
      switch (Rng() % 3) {
      case 0:
        Name = llvm::formatv("binding buffer = {0}", uint32_t(V));
        Bd->mutate_buffer(uint32_t(V));
        return true;
      case 1:
        V = Rng() % 2 ? V : (Bd->offset() + 256 * (1 + Rng() % 64));
        Name = llvm::formatv("binding offset = {0}", V);
        Bd->mutate_offset(V);
        return true;
      default:
        V = Rng() % 2 ? V : Bd->size() + 4 * (1 + Rng() % 4096);
        Name = llvm::formatv("binding size = {0}", V);
        Bd->mutate_size(V);
        return true;
      }
    }
    case 1: { // group counts, workgroup size, shader
      if (!Ds || !Ds->size())
        return false;
      fb::VulkanDispatch *D = Ds->GetMutableObject(unsigned(pick(Ds->size())));
      uint32_t G = Rng() % 2 ? 0u : uint32_t(V);
      switch (Rng() % 4) {
      case 0:
        Name = llvm::formatv("group count x = {0}", G);
        return D->mutate_group_count_x(G);
      case 1:
        Name = llvm::formatv("group count z = {0}", G);
        return D->mutate_group_count_z(G);
      case 2: {
        auto *Spec = D->mutable_spec_constants();
        if (!Spec || !Spec->size())
          return false;
        auto *C = const_cast<fb::VulkanSpecConstant *>(Spec->Get(0));
        Name = llvm::formatv("spec constant {0} = {1}", C->id(), G);
        C->mutate_value(G);
        return true;
      }
      default:
        Name = llvm::formatv("dispatch shader = {0}", uint32_t(V));
        return D->mutate_shader(uint32_t(V));
      }
    }
    case 2: { // a SPIR-V word
      auto *Sh = P->mutable_shaders();
      if (!Sh || !Sh->size())
        return false;
      auto *Words = Sh->GetMutableObject(unsigned(pick(Sh->size())))->mutable_spirv();
      if (!Words || !Words->size())
        return false;
      unsigned W = unsigned(pick(Words->size()));
      uint32_t New = Rng() % 2 ? uint32_t(V) : Words->Get(W) ^ (1u << (Rng() % 32));
      Name = llvm::formatv("SPIR-V word {0} = {1:x}", W, New);
      Words->Mutate(W, New);
      return true;
    }
    case 3: { // a buffer
      auto *Bs = P->mutable_buffers();
      if (!Bs || !Bs->size())
        return false;
      fb::VulkanBuffer *B = Bs->GetMutableObject(unsigned(pick(Bs->size())));
      if (Rng() % 2) {
        Name = llvm::formatv("buffer kind = {0}", unsigned(V % 5));
        return B->mutate_kind(static_cast<fb::VulkanBufferKind>(V % 5));
      }
      V = Rng() % 2 ? V : B->size() / (2 + Rng() % 4);
      Name = llvm::formatv("buffer size = {0}", V);
      return B->mutate_size(V);
    }
    case 4: { // a place
      auto *Ps = P->mutable_places();
      if (!Ps || !Ps->size())
        return false;
      fb::VulkanTensorPlace *Pl = Ps->GetMutableObject(unsigned(pick(Ps->size())));
      switch (Rng() % 3) {
      case 0:
        Name = llvm::formatv("place offset = {0}", V);
        return Pl->mutate_offset(V);
      case 1:
        Name = llvm::formatv("place size = {0}", V);
        return Pl->mutate_size(V);
      default:
        Name = llvm::formatv("place tensor = {0}", int32_t(V));
        return Pl->mutate_tensor(int32_t(V));
      }
    }
    default: { // a dispatch's operator
      if (!Ds || !Ds->size())
        return false;
      Name = llvm::formatv("dispatch operator = {0}", int32_t(V));
      return Ds->GetMutableObject(unsigned(pick(Ds->size())))
          ->mutate_operator_(int32_t(V));
    }
    }
  }

  /// A Vulkan dispatch's shape constant multiplied by 2 to 4, or one of its
  /// bindings halved: the constants then claim more than the bindings hold,
  /// and the loader, which cannot tell, accepts the file.
  bool lieAboutConstants(fb::Model &M, std::string &Name) {
    auto *P = static_cast<fb::VulkanPayload *>(M.mutable_payload());
    auto *Ds = P ? P->mutable_dispatches() : nullptr;
    if (!Ds || !Ds->size())
      return false;
    fb::VulkanDispatch *D = Ds->GetMutableObject(unsigned(pick(Ds->size())));
    if (Rng() % 2) {
      auto *Bs = D->mutable_bindings();
      if (!Bs || !Bs->size())
        return false;
      unsigned I = unsigned(pick(Bs->size()));
      auto *Bd = const_cast<fb::VulkanBinding *>(Bs->Get(I));
      if (Bd->size() < 2)
        return false;
      Name = llvm::formatv("binding {0} size {1} -> {2}", I, Bd->size(),
                           Bd->size() / 2);
      Bd->mutate_size(Bd->size() / 2);
      return true;
    }
    auto *Spec = D->mutable_spec_constants();
    if (!Spec || !Spec->size())
      return false;
    auto *C = const_cast<fb::VulkanSpecConstant *>(Spec->Get(unsigned(pick(Spec->size()))));
    if (C->id() < 5 || C->value() == 0 || C->value() > (1u << 20))
      return false;
    uint32_t Factor = 2 + uint32_t(Rng() % 3);
    Name = llvm::formatv("spec constant {0}: {1} -> {2}", C->id(), C->value(),
                         C->value() * Factor);
    C->mutate_value(C->value() * Factor);
    return true;
  }

  /// A Metal payload's field set to a value the loader must reject (none
  /// the Metal API would catch: an argument index out of the 31 slots or
  /// bound twice, a binding outside its buffer, a threadgroup size other
  /// than the one the kernel was compiled for, a grid of 0). False, with M
  /// untouched, when the chosen field is absent.
  bool lieAboutMetal(fb::Model &M, std::string &Name) {
    if (M.payload_type() != fb::TargetPayload::MetalPayload || !M.payload())
      return false;
    auto *P = static_cast<fb::MetalPayload *>(M.mutable_payload());
    auto *Ks = P->mutable_kernels();
    auto *Ds = P->mutable_dispatches();
    auto *Bs = P->buffers();
    size_t NumKernels = Ks ? Ks->size() : 0, NumDispatches = Ds ? Ds->size() : 0;
    size_t NumBuffers = Bs ? Bs->size() : 0;
    fb::MetalKernel *K =
        NumKernels ? Ks->GetMutableObject(unsigned(pick(NumKernels))) : nullptr;
    fb::MetalDispatch *D =
        NumDispatches ? Ds->GetMutableObject(unsigned(pick(NumDispatches)))
                      : nullptr;
    uint32_t R = uint32_t(Rng() % 4096);
    unsigned Dim = unsigned(Rng() % 3);
    switch (Rng() % 11) {
    case 0: { // a storage buffer's [[buffer(n)]]: 31 and up, or a duplicate
      auto *Idx = K ? K->mutable_buffer_indices() : nullptr;
      if (!Idx || !Idx->size())
        return false;
      unsigned I = unsigned(pick(Idx->size()));
      uint32_t V = Rng() % 2 ? 31 + R : UINT32_MAX;
      if (Idx->size() >= 2 && Rng() % 2)
        V = Idx->Get((I + 1 + unsigned(pick(Idx->size() - 1))) % Idx->size());
      Name = llvm::formatv("metal buffer index {0} = {1}", I, V);
      Idx->Mutate(I, V);
      return true;
    }
    case 1: { // the push-constant block's index: taken, or outside [0, 31)
      if (!K)
        return false;
      auto *Idx = K->buffer_indices();
      int32_t V = Rng() % 2 ? 31 + int32_t(R) : -2 - int32_t(R);
      if (Idx && Idx->size() && Rng() % 2)
        V = int32_t(Idx->Get(unsigned(pick(Idx->size()))));
      Name = llvm::formatv("metal push-constant index = {0}", V);
      return K->mutate_push_constant_index(V);
    }
    case 2: { // a function constant's type
      auto *C = K ? K->mutable_function_constants() : nullptr;
      if (!C || !C->size())
        return false;
      auto V = static_cast<fb::MetalConstantType>(4 + Rng() % 252);
      Name = llvm::formatv("metal function constant type = {0}", unsigned(V));
      const_cast<fb::MetalFunctionConstant *>(C->Get(unsigned(pick(C->size()))))
          ->mutate_type(V);
      return true;
    }
    case 3: { // the threadgroup size, or the constant that sets it
      if (!K || !K->threadgroup_size() || K->threadgroup_size()->size() != 3 ||
          !K->threadgroup_size_constants() ||
          K->threadgroup_size_constants()->size() != 3)
        return false;
      if (Rng() % 2) {
        uint32_t V = Rng() % 2 ? 0 : 1025 + R;
        Name = llvm::formatv("metal threadgroup size {0} = {1}", "xyz"[Dim], V);
        K->mutable_threadgroup_size()->Mutate(Dim, V);
        return true;
      }
      // -2 and below, or an id above every constant the kernel declares.
      int32_t V = -2 - int32_t(R);
      if (Rng() % 2) {
        uint32_t Max = 0;
        if (const auto *C = K->function_constants())
          for (const fb::MetalFunctionConstant *X : *C)
            Max = std::max(Max, X->id());
        V = int32_t(std::min<uint64_t>(uint64_t(Max) + 1 + R, INT32_MAX));
      }
      Name = llvm::formatv("metal threadgroup size {0} constant = {1}",
                           "xyz"[Dim], V);
      K->mutable_threadgroup_size_constants()->Mutate(Dim, V);
      return true;
    }
    case 4: { // a dispatch's kernel
      if (!D)
        return false;
      uint32_t V = Rng() % 2 ? uint32_t(NumKernels) + R : UINT32_MAX;
      Name = llvm::formatv("metal dispatch kernel = {0}", V);
      return D->mutate_kernel(V);
    }
    case 5: { // a binding's buffer, offset or size
      auto *Bd = D ? D->mutable_bindings() : nullptr;
      if (!Bd || !Bd->size())
        return false;
      auto *B = const_cast<fb::VulkanBinding *>(Bd->Get(unsigned(pick(Bd->size()))));
      if (B->buffer() >= NumBuffers)
        return false;
      uint64_t Size = Bs->Get(B->buffer())->size();
      switch (Rng() % 3) {
      case 0: {
        uint32_t V = Rng() % 2 ? uint32_t(NumBuffers) + R : UINT32_MAX;
        Name = llvm::formatv("metal binding buffer = {0}", V);
        B->mutate_buffer(V);
        return true;
      }
      case 1: {
        // Past the end, or wrapping offset + size around.
        uint64_t V = Rng() % 2 ? Size - B->size() + 4 * (1 + R)
                               : UINT64_MAX - 4 * R;
        Name = llvm::formatv("metal binding offset = {0}", V);
        B->mutate_offset(V);
        return true;
      }
      default: {
        uint64_t V = Rng() % 3 == 0 ? 0
                     : Rng() % 2    ? Size - B->offset() + 4 * (1 + R)
                                    : UINT64_MAX;
        Name = llvm::formatv("metal binding size = {0}", V);
        B->mutate_size(V);
        return true;
      }
      }
    }
    case 6: { // a dispatch's function constant: one its kernel lacks
      auto *C = D ? D->mutable_function_constants() : nullptr;
      if (!C || !C->size() || D->kernel() >= NumKernels)
        return false;
      uint32_t Max = C->Get(C->size() - 1)->id();
      if (const auto *KC = Ks->Get(D->kernel())->function_constants())
        for (const fb::MetalFunctionConstant *X : *KC)
          Max = std::max(Max, X->id());
      if (Max >= UINT32_MAX - 4096)
        return false;
      uint32_t V = Max + 1 + R;
      Name = llvm::formatv("metal dispatch function constant id = {0}", V);
      const_cast<fb::VulkanSpecConstant *>(C->Get(C->size() - 1))->mutate_id(V);
      return true;
    }
    case 7: { // threads per threadgroup other than the kernel's size
      if (!D)
        return false;
      uint32_t Old = Dim == 0   ? D->threads_per_threadgroup_x()
                     : Dim == 1 ? D->threads_per_threadgroup_y()
                                : D->threads_per_threadgroup_z();
      uint32_t V = Rng() % 4 == 0 ? (Old ? 0 : 1) : Old + 1 + R % 1024;
      Name = llvm::formatv("metal threads per threadgroup {0} = {1} (was {2})",
                           "xyz"[Dim], V, Old);
      return Dim == 0   ? D->mutate_threads_per_threadgroup_x(V)
             : Dim == 1 ? D->mutate_threads_per_threadgroup_y(V)
                        : D->mutate_threads_per_threadgroup_z(V);
    }
    case 8: { // threadgroups 0 or over 65535
      if (!D)
        return false;
      uint32_t V = Rng() % 2 ? 0 : Rng() % 2 ? 65536 + R : UINT32_MAX;
      Name = llvm::formatv("metal threadgroups {0} = {1}", "xyz"[Dim], V);
      return Dim == 0   ? D->mutate_threadgroups_x(V)
             : Dim == 1 ? D->mutate_threadgroups_y(V)
                        : D->mutate_threadgroups_z(V);
    }
    case 9: { // an MSL version that is none
      static const uint32_t Values[] = {0,     1,     9900,  10001, 20101,
                                        20150, 21000, 40000, 99999, UINT32_MAX};
      uint32_t V = Values[pick(std::size(Values))];
      Name = llvm::formatv("metal msl_version = {0}", V);
      return P->mutate_msl_version(V);
    }
    default: { // a place's tensor, buffer, offset or size
      auto *Ps = P->mutable_places();
      if (!Ps || !Ps->size())
        return false;
      fb::VulkanTensorPlace *Pl = Ps->GetMutableObject(unsigned(pick(Ps->size())));
      if (Pl->buffer() >= NumBuffers)
        return false;
      uint64_t Size = Bs->Get(Pl->buffer())->size();
      size_t NumTensors = M.tensors() ? M.tensors()->size() : 0;
      switch (Rng() % 4) {
      case 0: {
        int32_t V = Rng() % 2 ? int32_t(NumTensors) + int32_t(R) : -1 - int32_t(R);
        Name = llvm::formatv("metal place tensor = {0}", V);
        return Pl->mutate_tensor(V);
      }
      case 1: {
        uint32_t V = uint32_t(NumBuffers) + R;
        Name = llvm::formatv("metal place buffer = {0}", V);
        return Pl->mutate_buffer(V);
      }
      case 2: {
        uint64_t V = Rng() % 2 ? Size + 1 + R : UINT64_MAX - R;
        Name = llvm::formatv("metal place offset = {0}", V);
        return Pl->mutate_offset(V);
      }
      default: {
        uint64_t V = Rng() % 2 ? Size + 1 + R : UINT64_MAX - R;
        Name = llvm::formatv("metal place size = {0}", V);
        return Pl->mutate_size(V);
      }
      }
    }
    }
  }

  /// Sets a FlatBuffer vector's length in place (the u32 before its data).
  template <typename V> static void setLength(V *Vec, uint32_t N) {
    flatbuffers::WriteScalar(reinterpret_cast<uint8_t *>(Vec), N);
  }

  /// The feature level that added an NNAPI operand type or operation kiln
  /// emits (27 for the rest), as the NNAPI spec says.
  static int32_t nnapiTypeLevel(int32_t Type) {
    switch (Type) {
    case 6: case 8: case 9: case 10: case 11: // BOOL .. PER_CHANNEL
      return 29;
    case 14: // TENSOR_QUANT8_ASYMM_SIGNED
      return 30;
    default:
      return 27;
    }
  }
  static int32_t nnapiOpLevel(int32_t Code) {
    switch (Code) {
    case 30: case 31: case 32: case 35: case 36: case 37: // DIV .. TRANSPOSE
      return 28;
    case 98: case 99: // ELU, HARD_SWISH
      return 30;
    default:
      return Code >= 38 ? 29 : 27;
    }
  }

  /// A self-test's field set to a value the loader must reject: a sample
  /// or reference naming no buffer or one of another size, a stride of 0
  /// or past the output, a tolerance or peak that is negative or not
  /// finite. False where the seed has no self-test.
  bool lieAboutSelfTest(fb::Model &M, std::string &Name) {
    fb::SelfTest *T = M.mutable_self_test();
    if (!T || !T->inputs() || !T->outputs() || T->inputs()->size() == 0 ||
        T->outputs()->size() == 0 || !M.buffers())
      return false;
    auto *Inputs = T->mutable_inputs();
    auto *Out = T->mutable_outputs()->GetMutableObject(
        unsigned(pick(T->outputs()->size())));
    const int32_t NumBuffers = int32_t(M.buffers()->size());
    const int32_t NoBuffer[] = {-1, NumBuffers, INT32_MAX, INT32_MIN};
    const float NotFinite[] = {NAN, INFINITY, -INFINITY, -1.0f};
    switch (pick(6)) {
    case 0: {
      int32_t V = NoBuffer[pick(4)];
      Name = llvm::formatv("self-test sample buffer = {0}", V);
      Inputs->Mutate(unsigned(pick(Inputs->size())), V);
      return true;
    }
    case 1: {
      int32_t V = NoBuffer[pick(4)];
      Name = llvm::formatv("self-test reference buffer = {0}", V);
      return Out->mutate_reference(V);
    }
    case 2: // the reference's buffer: floats, not the input's bytes
      Name = "self-test sample = a reference's buffer";
      Inputs->Mutate(0, Out->reference());
      return true;
    case 3: {
      if (Rng() % 2) { // ceil(elements / stride) must not wrap to 0
        auto *B = M.mutable_buffers()->GetMutableObject(
            unsigned(Out->reference()));
        Name = "self-test stride = 2^64 - 1, reference of 0 bytes";
        return Out->mutate_stride(UINT64_MAX) && B->mutate_size(0);
      }
      uint64_t V = Rng() % 2 ? 0 : uint64_t(1) << 40;
      Name = llvm::formatv("self-test stride = {0}", V);
      return Out->mutate_stride(V);
    }
    case 4: {
      float V = NotFinite[pick(4)];
      Name = llvm::formatv("self-test tolerance = {0}", V);
      return Out->mutate_tolerance(V);
    }
    default: {
      float V = NotFinite[pick(4)];
      Name = llvm::formatv("self-test peak = {0}", V);
      return Out->mutate_peak(V);
    }
    }
  }

  /// An NNAPI payload's field set to a value the loader must reject (none
  /// of them is a valid model); false where the seed has no such field.
  bool lieAboutNnapi(fb::Model &M, std::string &Name) {
    if (M.payload_type() != fb::TargetPayload::NnapiPayload || !M.payload())
      return false;
    auto *P = static_cast<fb::NnapiPayload *>(M.mutable_payload());
    auto *Operands = P->mutable_operands();
    auto *Operations = P->mutable_operations();
    if (!Operands || !Operands->size() || !Operations || !Operations->size())
      return false;
    const uint32_t NumOperands = Operands->size();
    const uint32_t NumOps = M.operators() ? M.operators()->size() : 0;
    fb::NnapiOperation *Op =
        Operations->GetMutableObject(unsigned(pick(Operations->size())));
    fb::NnapiOperand *O = Operands->GetMutableObject(unsigned(pick(NumOperands)));
    auto OperandsWhere = [&](auto Pred) {
      std::vector<fb::NnapiOperand *> R;
      for (unsigned I = 0; I < NumOperands; ++I)
        if (Pred(*Operands->Get(I)))
          R.push_back(Operands->GetMutableObject(I));
      return R;
    };
    auto OutOfRange = [&](uint32_t Size) {
      static const uint32_t Far[] = {uint32_t(INT32_MAX), UINT32_MAX, 1u << 20};
      return Rng() % 2 ? Size + uint32_t(Rng() % 4) : Far[Rng() % 3];
    };
    switch (Rng() % 13) {
    case 0: { // an operand index
      flatbuffers::Vector<uint32_t> *List;
      switch (Rng() % 4) {
      case 0: List = Op->mutable_inputs(); break;
      case 1: List = Op->mutable_outputs(); break;
      case 2: List = P->mutable_inputs(); break;
      default: List = P->mutable_outputs(); break;
      }
      if (!List || !List->size())
        return false;
      uint32_t V = OutOfRange(NumOperands);
      Name = llvm::formatv("nnapi operand index = {0}", V);
      List->Mutate(unsigned(pick(List->size())), V);
      return true;
    }
    case 1: { // an operation's operator or an operand's tensor (-1: none)
      auto SignedOutOfRange = [&](uint32_t Size) {
        static const int32_t Far[] = {-2, INT32_MIN, INT32_MAX, 1 << 20};
        return Rng() % 2 ? int32_t(Size + Rng() % 4) : Far[Rng() % 4];
      };
      if (Rng() % 2) {
        int32_t V = SignedOutOfRange(NumOps);
        Name = llvm::formatv("nnapi operation operator = {0}", V);
        return Op->mutate_operator_(V);
      }
      int32_t V = SignedOutOfRange(M.tensors() ? M.tensors()->size() : 0);
      Name = llvm::formatv("nnapi operand tensor = {0}", V);
      return O->mutate_tensor(V);
    }
    case 2: { // an input dropped or added
      auto *In = Op->mutable_inputs();
      if (!In || !In->size())
        return false;
      uint32_t N = In->size();
      if (Rng() % 2) {
        // The first input (a tensor), or the last of a CONCATENATION (its
        // axis): either leaves a signature no NNAPI operation has.
        bool Concat = Op->type() == 2;
        Name = llvm::formatv("nnapi operation {0} without input {1}",
                             Op->type(), Concat ? N - 1 : 0);
        for (unsigned I = 0; !Concat && I + 1 < N; ++I)
          In->Mutate(I, In->Get(I + 1));
        setLength(In, N - 1);
        return true;
      }
      // Input 0 (a tensor) again at the end: every signature ends in a
      // scalar or has a fixed length. It overwrites the word after the
      // vector, which the loader must survive too.
      Name = llvm::formatv("nnapi operation {0} with input 0 appended",
                           Op->type());
      uint32_t First = In->Get(0);
      setLength(In, N + 1);
      In->Mutate(N, First);
      return true;
    }
    case 3: { // a scale
      static const float Bad[] = {0.0f, -1.0f, NAN, INFINITY, -INFINITY};
      float V = Bad[Rng() % 5];
      auto Q = OperandsWhere([](const fb::NnapiOperand &X) {
        return X.type() == 5 || X.type() == 14 ||
               (X.type() == 11 && X.channel_scales() &&
                X.channel_scales()->size());
      });
      if (Q.empty())
        return false;
      fb::NnapiOperand *X = Q[pick(Q.size())];
      Name = llvm::formatv("nnapi scale = {0}", V);
      if (X->type() != 11)
        return X->mutate_scale(V);
      auto *S = X->mutable_channel_scales();
      S->Mutate(unsigned(pick(S->size())), V);
      return true;
    }
    case 4: { // a zero point
      auto Q = OperandsWhere([](const fb::NnapiOperand &X) {
        return X.type() == 5 || X.type() == 14;
      });
      if (Q.empty())
        return false;
      fb::NnapiOperand *X = Q[pick(Q.size())];
      static const int32_t Unsigned[] = {-1, 256, 1000, INT32_MIN, INT32_MAX};
      static const int32_t Signed[] = {-129, 128, 255, INT32_MIN, INT32_MAX};
      int32_t V = (X->type() == 5 ? Unsigned : Signed)[Rng() % 5];
      Name = llvm::formatv("nnapi zero point = {0}", V);
      return X->mutate_zero_point(V);
    }
    case 5: { // per-channel scales: one fewer, or channel_dim past the rank
      auto Q = OperandsWhere([](const fb::NnapiOperand &X) {
        return X.type() == 11 && X.channel_scales() &&
               X.channel_scales()->size() && X.dimensions();
      });
      if (Q.empty())
        return false;
      fb::NnapiOperand *X = Q[pick(Q.size())];
      if (Rng() % 2) {
        uint32_t V = X->dimensions()->size() + uint32_t(Rng() % 3);
        Name = llvm::formatv("nnapi channel_dim = {0}", V);
        if (X->mutate_channel_dim(V))
          return true;
      }
      uint32_t N = X->channel_scales()->size();
      Name = llvm::formatv("nnapi {0} channel scales of {1}", N - 1, N);
      setLength(X->mutable_channel_scales(), N - 1);
      return true;
    }
    case 6: { // an operation type unknown or above the feature level
      static const int32_t Unknown[] = {-1, 5, 7, 102, 1000, INT32_MAX};
      int32_t V = Unknown[Rng() % 6];
      if (Rng() % 2 && P->feature_level() < 30)
        V = P->feature_level() < 28 ? 30 : P->feature_level() < 29 ? 38 : 99;
      Name = llvm::formatv("nnapi operation type = {0} (level {1})", V,
                           P->feature_level());
      return Op->mutate_type(V);
    }
    case 7: { // the feature level below what an operand or operation needs
      int32_t Need = 27;
      for (unsigned I = 0; I < NumOperands; ++I)
        Need = std::max(Need, nnapiTypeLevel(Operands->Get(I)->type()));
      for (unsigned I = 0; I < Operations->size(); ++I)
        Need = std::max(Need, nnapiOpLevel(Operations->Get(I)->type()));
      static const int32_t Outside[] = {0, 26, 32, -1};
      int32_t V = Need > 27 ? 27 + int32_t(pick(size_t(Need - 27)))
                            : Outside[Rng() % 4];
      Name = llvm::formatv("nnapi feature level = {0} (needs {1})", V, Need);
      return P->mutate_feature_level(V);
    }
    case 8: { // a SEGMENT operand's segment missing or of another size
      auto S = OperandsWhere([](const fb::NnapiOperand &X) {
        return X.source() == fb::NnapiValueSource::SEGMENT;
      });
      if (S.empty())
        return false;
      fb::NnapiOperand *X = S[pick(S.size())];
      const auto *Buffers = M.buffers();
      uint32_t NumSegments = Buffers ? Buffers->size() : 0;
      int32_t V = Rng() % 2 ? -1 : int32_t(NumSegments + Rng() % 4);
      if (Rng() % 2 && X->segment() >= 0 && uint32_t(X->segment()) < NumSegments)
        for (unsigned Try = 0; Try < 8; ++Try) {
          uint32_t K = uint32_t(pick(NumSegments));
          if (Buffers->Get(K)->size() !=
              Buffers->Get(uint32_t(X->segment()))->size()) {
            V = int32_t(K);
            break;
          }
        }
      Name = llvm::formatv("nnapi operand segment = {0}", V);
      return X->mutate_segment(V);
    }
    case 9: { // an INLINE value of the wrong size
      auto S = OperandsWhere([](const fb::NnapiOperand &X) {
        return X.source() == fb::NnapiValueSource::INLINE;
      });
      if (S.empty())
        return false;
      fb::NnapiOperand *X = S[pick(S.size())];
      if (auto *D = X->mutable_dimensions(); D && D->size()) {
        unsigned K = unsigned(pick(D->size()));
        Name = llvm::formatv("nnapi inline operand dim {0} = {1}", K,
                             D->Get(K) + 1);
        D->Mutate(K, D->Get(K) + 1);
        return true;
      }
      // A scalar: INT32 (4 bytes) <-> BOOL (1 byte).
      int32_t T = X->type() == 6 ? 1 : 6;
      Name = llvm::formatv("nnapi inline scalar type = {0}", T);
      return X->type() != 0 && X->type() != 10 && X->mutate_type(T);
    }
    case 10: { // a dim 0
      auto *D = O->mutable_dimensions();
      if (!D || !D->size())
        return false;
      Name = "nnapi operand dim = 0";
      D->Mutate(unsigned(pick(D->size())), 0);
      return true;
    }
    case 11: { // an operation input left out, or an omitted one given none
      const auto *In = Op->inputs();
      if (!In || !In->size() || In->Get(0) >= NumOperands)
        return false;
      fb::NnapiOperand *X =
          Operands->GetMutableObject(In->Get(unsigned(pick(In->size()))) %
                                     NumOperands);
      if (X->source() == fb::NnapiValueSource::OMITTED) {
        Name = "nnapi omitted operand with no source (NONE)";
        return X->mutate_source(fb::NnapiValueSource::NONE);
      }
      Name = llvm::formatv("nnapi {0} operand made OMITTED",
                           fb::EnumNameNnapiValueSource(X->source()));
      return X->mutate_source(fb::NnapiValueSource::OMITTED);
    }
    default: { // a host step out of range or not a host conversion
      auto *Steps = Rng() % 2 ? P->mutable_host_before() : P->mutable_host_after();
      if (!Steps || !Steps->size())
        return false;
      uint32_t V = OutOfRange(NumOps);
      if (Rng() % 2)
        for (unsigned Try = 0; Try < 8 && NumOps; ++Try) {
          uint32_t K = uint32_t(pick(NumOps));
          fb::OpKind Kind = M.operators()->Get(K)->kind();
          if (Kind != fb::OpKind::TRANSPOSE && Kind != fb::OpKind::RESHAPE &&
              Kind != fb::OpKind::QUANTIZE && Kind != fb::OpKind::DEQUANTIZE) {
            V = K;
            break;
          }
        }
      Name = llvm::formatv("nnapi host step operator = {0}", V);
      Steps->Mutate(unsigned(pick(Steps->size())), V);
      return true;
    }
    }
  }

  bool lieAboutShape(fb::Model &M, std::string &Name) {
    auto *Tensors = M.mutable_tensors();
    if (Rng() % 3 == 0) {
      auto *Ops = M.mutable_operators();
      if (!Ops || !Ops->size())
        return false;
      fb::Operator *Op = Ops->GetMutableObject(unsigned(pick(Ops->size())));
      if (Op->options_type() == fb::OpOptions::Conv2DOptions) {
        auto *C = static_cast<fb::Conv2DOptions *>(Op->mutable_options());
        uint32_t V = uint32_t(wild());
        Name = llvm::formatv("conv option = {0}", V);
        switch (Rng() % 4) {
        case 0: return C->mutate_kernel_height(V);
        case 1: return C->mutate_padding_left(V);
        case 2: return C->mutate_groups(V);
        default: return C->mutate_stride_width(V);
        }
      }
    }
    if (!Tensors || !Tensors->size())
      return false;
    fb::Tensor *T = Tensors->GetMutableObject(unsigned(pick(Tensors->size())));
    if (Rng() % 4 == 0) {
      Name = "dtype";
      return T->mutate_dtype(static_cast<fb::DType>(Rng() % 16));
    }
    if (Rng() % 4 == 0) {
      int32_t V = int32_t(wild());
      Name = llvm::formatv("tensor buffer = {0}", V);
      return T->mutate_buffer(V);
    }
    auto *Shape = T->mutable_shape();
    if (!Shape || !Shape->size())
      return false;
    int64_t V = Rng() % 2 ? wild() : int64_t(Rng() % 8);
    Name = llvm::formatv("tensor dim = {0}", V);
    Shape->Mutate(unsigned(pick(Shape->size())), V);
    return true;
  }

  std::mt19937_64 Rng;
};

} // namespace

int main(int Argc, char **Argv) {
  unsigned Count = 1200;
  uint64_t Seed = 20240611;
  std::string WriteDir;
  std::vector<std::string> Models;
  for (int I = 1; I < Argc; ++I) {
    std::string S = Argv[I];
    if ((S == "--count" || S == "--seed" || S == "--write") && I + 1 < Argc) {
      std::string V = Argv[++I];
      if (S == "--count")
        Count = unsigned(std::stoul(V));
      else if (S == "--seed")
        Seed = std::stoull(V);
      else
        WriteDir = V;
      continue;
    }
    Models.push_back(S);
  }
  std::vector<std::string> Seeds;
  for (const std::string &M : Models) {
    auto Bytes = compileSeed(M);
    if (!Bytes) {
      llvm::errs() << "kiln-mutants: " << M << ": "
                   << llvm::toString(Bytes.takeError()) << '\n';
      return 1;
    }
    Seeds.push_back(std::move(*Bytes));
  }
  if (Seeds.empty()) {
    llvm::errs() << "usage: kiln-mutants [--count N] [--seed S] [--write DIR] "
                    "MODEL.onnx[:int8-dynamic|:int8=CALIB|:native|:vulkan|"
                    ":nnapi|:nnapi-int8-LEVEL=CALIB|:metal|:image]..."
                    "\n";
    return 2;
  }
  auto IsMetal = [](const std::string &Bytes) {
    return fb::GetModel(Bytes.data())->payload_type() ==
           fb::TargetPayload::MetalPayload;
  };
  // Every seed must load and run: otherwise the test checks nothing. A
  // Metal seed's session is refused where the runtime has no Metal
  // executor (everywhere but Apple); it must load.
  for (size_t I = 0; I < Seeds.size(); ++I)
    if (kiln::fuzz::Outcome O = kiln::fuzz::runOne(Seeds[I]);
        O != kiln::fuzz::Outcome::Ran &&
        !(IsMetal(Seeds[I]) && O == kiln::fuzz::Outcome::RejectedAtSession)) {
      llvm::errs() << "kiln-mutants: seed " << Models[I]
                   << " does not load and run\n";
      return 1;
    }
  if (!WriteDir.empty()) {
    llvm::sys::fs::create_directories(WriteDir);
    // The corpus of an earlier run (other seeds, other file names) goes:
    // kiln-loader-replay counts the folder's files.
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(WriteDir, EC), End;
         It != End && !EC; It.increment(EC))
      if (llvm::StringRef(It->path()).endswith(".kiln"))
        llvm::sys::fs::remove(It->path());
    for (size_t I = 0; I < Seeds.size(); ++I)
      (void)writeFileAtomically(
          llvm::formatv("{0}/seed-{1}.kiln", WriteDir, I).str(), Seeds[I]);
  }

  // Vulkan seeds with a hostile kernel in place of their first: refused.
  unsigned HostileWritten = 0, HostileLoaded = 0;
#ifdef KILN_MUTANTS_VULKAN
  kiln::mutants::HostileKernelFiles Hostile =
      kiln::mutants::hostileKernelFiles(Seeds, WriteDir);
  HostileWritten = Hostile.Written;
  HostileLoaded = Hostile.NotRejected;
#endif

  auto IsNnapi = [](const std::string &Bytes) {
    return fb::GetModel(Bytes.data())->payload_type() ==
           fb::TargetPayload::NnapiPayload;
  };
  unsigned NnapiSeeds = 0;
  for (const std::string &S : Seeds)
    NnapiSeeds += IsNnapi(S);

  Mutator Mut(Seed);
  std::map<kiln::fuzz::Outcome, unsigned> Outcomes, NnapiOutcomes;
  std::map<unsigned, std::pair<unsigned, unsigned>> ByKind; // rejected, ran
  unsigned NnapiMutants = 0, NnapiLies = 0, MetalLies = 0, LiesLoaded = 0;
  unsigned SelfTestLies = 0;
  unsigned ConstantLies = 0;
  for (unsigned I = 0; I < Count; ++I) {
    // Eight in a row (every kind) from each seed in turn.
    unsigned Kind = I % 8;
    const std::string &From = Seeds[(I / 8) % Seeds.size()];
    std::string Name;
    std::string Mutant = Mut.mutate(From, Kind, Name);
    if (!WriteDir.empty())
      (void)writeFileAtomically(
          llvm::formatv("{0}/mutant-{1:D4}.kiln", WriteDir, I).str(), Mutant);
    // A constant lie runs without robustBufferAccess: only the kernels'
    // bounds checks hold it inside its bindings.
    if (Kind == 11) {
      ++ConstantLies;
      setenv("KILN_VULKAN_ROBUST_BUFFER_ACCESS", "off", 1);
    }
    kiln::fuzz::Outcome O = kiln::fuzz::runOne(Mutant);
    if (Kind == 11)
      unsetenv("KILN_VULKAN_ROBUST_BUFFER_ACCESS");
    ++Outcomes[O];
    (O == kiln::fuzz::Outcome::Ran ? ByKind[Kind].second : ByKind[Kind].first)++;
    if (IsNnapi(From)) {
      ++NnapiMutants;
      ++NnapiOutcomes[O];
    }
    if (Kind == 9 || Kind == 10 || Kind == 12) {
      ++(Kind == 9 ? NnapiLies : Kind == 10 ? MetalLies : SelfTestLies);
      if (O != kiln::fuzz::Outcome::RejectedAtLoad) {
        ++LiesLoaded;
        llvm::errs() << llvm::formatv(
            "kiln-mutants: mutant {0} ({1}) was not rejected by the loader\n",
            I, Name);
      }
    }
  }
  static const char *KindNames[] = {
      "bit flips",  "truncation",  "offset lies", "index lies", "cycles",
      "shape lies", "quant lies",  "layout lies", "vulkan lies", "nnapi lies",
      "metal lies", "constant lies", "self-test lies"};
  for (const auto &[Kind, RR] : ByKind)
    llvm::outs() << llvm::formatv("{0,-12} {1,4} rejected, {2,4} ran cleanly\n",
                                  KindNames[Kind], RR.first, RR.second);
  llvm::outs() << llvm::formatv(
      "{0} mutants of {1} seeds: {2} rejected when loaded, {3} rejected when "
      "the session was created, {4} failed cleanly while running, {5} ran; "
      "0 crashes; nnapi: {6} mutants of {7} seeds ({8} rejected when loaded, "
      "{9} when the session was created, {10} failed while running, {11} "
      "ran), {12} nnapi lies, {13} metal lies, {18} self-test lies, {14}; "
      "{15} constant lies run "
      "without robustBufferAccess; {16} hostile kernels, {17}\n",
      Count, Seeds.size(), Outcomes[kiln::fuzz::Outcome::RejectedAtLoad],
      Outcomes[kiln::fuzz::Outcome::RejectedAtSession],
      Outcomes[kiln::fuzz::Outcome::FailedRun],
      Outcomes[kiln::fuzz::Outcome::Ran], NnapiMutants, NnapiSeeds,
      NnapiOutcomes[kiln::fuzz::Outcome::RejectedAtLoad],
      NnapiOutcomes[kiln::fuzz::Outcome::RejectedAtSession],
      NnapiOutcomes[kiln::fuzz::Outcome::FailedRun],
      NnapiOutcomes[kiln::fuzz::Outcome::Ran], NnapiLies, MetalLies,
      LiesLoaded ? llvm::formatv("{0} NOT rejected when loaded", LiesLoaded).str()
                 : std::string("all rejected when loaded"),
      ConstantLies, HostileWritten,
      HostileLoaded ? llvm::formatv("{0} NOT rejected when loaded", HostileLoaded).str()
                    : std::string("all rejected when loaded"),
      SelfTestLies);
  return LiesLoaded || HostileLoaded ? 1 : 0;
}
