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
//
//   kiln-mutants [--count N] [--seed S] [--write DIR] MODEL.onnx[:MODE]...
// MODE quantizes the seed first: int8-dynamic, or int8=CALIB (.npy/.npz);
// or it is native, `kiln convert --prepack native` (BLOCKED weights); or
// vulkan, `kiln convert --target vulkan` (its sessions run on the machine's
// Vulkan device, lavapipe in CI).
// --write keeps the corpus (seed-N.kiln and mutant-N.kiln) as files, e.g.
// for libFuzzer.
#include "LoaderFuzzTarget.h"

#include "Support/FileSystem.h"
#include "backends/common/KilnWriter.h"
#include "backends/cpu/CpuTarget.h"
#include "backends/cpu/NativePrepack.h"
#ifdef KILN_MUTANTS_VULKAN
#include "backends/vulkan/VulkanTarget.h"
#endif
#include "frontends/onnx/OnnxImporter.h"
#include "passes/PassManager.h"
#include "passes/Pipelines.h"
#include "passes/quant/QuantizeGraph.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>
#include <random>
#include <type_traits>

using namespace kiln;

namespace {

llvm::Expected<std::string> compileSeed(const std::string &Spec) {
  std::string Path = Spec, Mode;
  QuantizeOptions Q;
  if (size_t Colon = Spec.rfind(':'); Colon != std::string::npos) {
    Path = Spec.substr(0, Colon);
    Mode = Spec.substr(Colon + 1);
    if (size_t Eq = Mode.find('='); Eq != std::string::npos) {
      Q.Data.Path = Mode.substr(Eq + 1);
      Mode = Mode.substr(0, Eq);
    }
    auto M = Mode == "native" || Mode == "vulkan" ? QuantizeMode::None
                                                  : parseQuantizeMode(Mode);
    if (!M)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "unknown quantize mode " + Mode);
    Q.Mode = *M;
  }
  auto G = importOnnxFile(Path);
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
  if (Mode == "vulkan") {
#ifdef KILN_MUTANTS_VULKAN
    auto V = compileForVulkan(**G);
    if (!V)
      return V.takeError();
    return serializeKilnModule(V->Module);
#else
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "built without the Vulkan target");
#endif
  }
  auto C = compileForCpu(**G);
  if (!C)
    return C.takeError();
  if (Mode == "native")
    if (auto R = prepackForThisCpu(C->Module); !R)
      return R.takeError();
  return serializeKilnModule(C->Module);
}

class Mutator {
public:
  explicit Mutator(uint64_t Seed) : Rng(Seed) {}

  /// Applies mutation Kind (0..8) to a copy of Seed; Name says what it did.
  /// A Vulkan seed takes vulkan lies (8) for half of kinds 6 and 7 (Kind is
  /// updated), since its fp32 tensors have no quantization or blocking.
  std::string mutate(const std::string &Seed, unsigned &Kind, std::string &Name) {
    std::string B = Seed;
    fb::Model *M = fb::GetMutableModel(B.data());
    if ((Kind == 6 || Kind == 7) && Seed.size() >= 8 &&
        M->payload_type() == fb::TargetPayload::VulkanPayload && Rng() % 2)
      Kind = 8;
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
                    "MODEL.onnx[:int8-dynamic|:int8=CALIB|:native|:vulkan]..."
                    "\n";
    return 2;
  }
  // Every seed must load and run: otherwise the test checks nothing.
  for (size_t I = 0; I < Seeds.size(); ++I)
    if (kiln::fuzz::runOne(Seeds[I]) != kiln::fuzz::Outcome::Ran) {
      llvm::errs() << "kiln-mutants: seed " << Models[I]
                   << " does not load and run\n";
      return 1;
    }
  if (!WriteDir.empty()) {
    llvm::sys::fs::create_directories(WriteDir);
    for (size_t I = 0; I < Seeds.size(); ++I)
      (void)writeFileAtomically(
          llvm::formatv("{0}/seed-{1}.kiln", WriteDir, I).str(), Seeds[I]);
  }

  Mutator Mut(Seed);
  std::map<kiln::fuzz::Outcome, unsigned> Outcomes;
  std::map<unsigned, std::pair<unsigned, unsigned>> ByKind; // rejected, ran
  for (unsigned I = 0; I < Count; ++I) {
    unsigned Kind = I % 8;
    std::string Name;
    std::string Mutant = Mut.mutate(Seeds[I % Seeds.size()], Kind, Name);
    if (!WriteDir.empty())
      (void)writeFileAtomically(
          llvm::formatv("{0}/mutant-{1:D4}.kiln", WriteDir, I).str(), Mutant);
    kiln::fuzz::Outcome O = kiln::fuzz::runOne(Mutant);
    ++Outcomes[O];
    (O == kiln::fuzz::Outcome::Ran ? ByKind[Kind].second : ByKind[Kind].first)++;
  }
  static const char *KindNames[] = {"bit flips", "truncation", "offset lies",
                                    "index lies", "cycles", "shape lies",
                                    "quant lies", "layout lies", "vulkan lies"};
  for (const auto &[Kind, RR] : ByKind)
    llvm::outs() << llvm::formatv("{0,-12} {1,4} rejected, {2,4} ran cleanly\n",
                                  KindNames[Kind], RR.first, RR.second);
  llvm::outs() << llvm::formatv(
      "{0} mutants of {1} seeds: {2} rejected when loaded, {3} rejected when "
      "the session was created, {4} failed cleanly while running, {5} ran; "
      "0 crashes\n",
      Count, Seeds.size(), Outcomes[kiln::fuzz::Outcome::RejectedAtLoad],
      Outcomes[kiln::fuzz::Outcome::RejectedAtSession],
      Outcomes[kiln::fuzz::Outcome::FailedRun],
      Outcomes[kiln::fuzz::Outcome::Ran]);
  return 0;
}
