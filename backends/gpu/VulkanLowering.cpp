#include "backends/gpu/VulkanLowering.h"
#include "backends/common/DeviceRefusals.h"

#include "Support/Error.h"
#include "numerics/FloatConversions.h"
#include "schema/KilnDTypeSize.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <map>

namespace kiln::vulkan {

uint32_t floatBits(float F) {
  uint32_t U;
  std::memcpy(&U, &F, sizeof U);
  return U;
}

void workgroup(PendingDispatch &D, uint32_t X, uint32_t Y, uint32_t Z) {
  D.Spec[0] = X;
  D.Spec[1] = Y;
  D.Spec[2] = Z;
}

void clampConstants(PendingDispatch &D, float Min, float Max) {
  D.Spec[3] = floatBits(Min);
  D.Spec[4] = floatBits(Max);
}

void flatGroups(PendingDispatch &D, uint64_t Items) {
  workgroup(D, 64, 1, 1);
  uint64_t Groups = std::max<uint64_t>((Items + 63) / 64, 1);
  uint64_t X = std::min<uint64_t>(Groups, 65535);
  D.Groups[0] = uint32_t(X);
  D.Groups[1] = uint32_t((Groups + X - 1) / X);
  D.Groups[2] = 1;
}

void domainConstants(PendingDispatch &D, const DomainDims &Domain, int PadAxis,
                     int64_t PadFrom) {
  uint64_t Items = 1;
  for (int K = 0; K < DomainRank; ++K) {
    D.Spec[10 + uint32_t(K)] = uint32_t(Domain[size_t(K)]);
    Items *= uint64_t(Domain[size_t(K)]);
  }
  D.Spec[16] = uint32_t(PadAxis);
  D.Spec[17] = uint32_t(PadFrom);
  flatGroups(D, Items);
}

void outputDomain(PendingDispatch &D, const Storage &Out) {
  DomainDims Domain = domainOf(Out.Dims);
  if (!Out.C4)
    return domainConstants(D, Domain, DomainRank, 0);
  int64_t Channels = Domain[DomainRank - 1]; // C is the last of [N, H, W, C]
  Domain[DomainRank - 1] = (Channels + 3) / 4 * 4;
  domainConstants(D, Domain, DomainRank - 1, Channels);
}

namespace {

bool isActivation(const fb::TensorT &T) { return T.buffer < 0; }

std::vector<int64_t> dimsOf(const fb::TensorT &T) { return T.shape; }

} // namespace

Lowering::Lowering(const KilnModule &CpuModule, bool Fp16)
    : Cpu(CpuModule), Fp16(Fp16), Producers(Cpu.Model.tensors.size()),
      Readers(Cpu.Model.tensors.size()) {
  for (const auto &Op : Cpu.Model.operators) {
    for (int32_t T : Op->inputs)
      if (T >= 0)
        Readers[size_t(T)].push_back(Op.get());
    for (int32_t T : Op->outputs)
      Producers[size_t(T)] = Op.get();
  }
}

bool Lowering::isGraphOutput(int32_t T) const {
  for (int32_t O : Cpu.Model.outputs)
    if (O == T)
      return true;
  return false;
}

void Lowering::readBytes(int32_t T, void *Out) const {
  const Segment &S = Cpu.Segments[size_t(tensor(T).buffer)];
  if (S.isProduced())
    S.producer()(static_cast<char *>(Out));
  else if (S.size()) {
    std::memcpy(Out, S.bytes().data(), S.size());
    // The packed copy replaces the source's: a weight mapped from the
    // model's external data leaves resident memory once read.
    S.bytes().releaseResident();
  }
}

std::vector<uint8_t> Lowering::rawBytes(int32_t T) const {
  std::vector<uint8_t> Bytes(Cpu.Segments[size_t(tensor(T).buffer)].size());
  readBytes(T, Bytes.data());
  return Bytes;
}

std::vector<float> Lowering::floats(int32_t T) const {
  std::vector<float> F;
  if (tensor(T).dtype == fb::DType::F16) {
    std::vector<uint8_t> Bytes = rawBytes(T);
    F.resize(Bytes.size() / 2);
    for (size_t I = 0; I < F.size(); ++I) {
      uint16_t H;
      std::memcpy(&H, Bytes.data() + 2 * I, 2);
      F[I] = numerics::halfToFloat(H);
    }
    return F;
  }
  // f32: straight into the floats, without a byte copy in between.
  uint64_t Size = Cpu.Segments[size_t(tensor(T).buffer)].size();
  F.resize((Size + 3) / 4);
  readBytes(T, F.data());
  F.resize(Size / 4);
  return F;
}

BindingRef Lowering::bindWeight(std::vector<uint8_t> Bytes, int32_t T) {
  if (T >= 0)
    Packed.insert(T);
  return {true, Program.addWeight(std::move(Bytes), T), 0, 0};
}

BindingRef Lowering::bindF32(const std::vector<float> &Values, int32_t T) {
  std::vector<uint8_t> Bytes(Values.size() * 4);
  if (!Values.empty())
    std::memcpy(Bytes.data(), Values.data(), Bytes.size());
  if (T >= 0)
    Out.Model.tensors[size_t(T)]->dtype = fb::DType::F32;
  return bindWeight(std::move(Bytes), T);
}

BindingRef Lowering::bindFloats(const std::vector<float> &Values, int32_t T) {
  if (!Fp16)
    return bindF32(Values, T);
  // Round to nearest even; the IR's fp16 weights come back unchanged.
  std::vector<uint8_t> Bytes(Values.size() * 2);
  for (size_t I = 0; I < Values.size(); ++I) {
    uint16_t H = numerics::floatToHalf(Values[I]);
    std::memcpy(Bytes.data() + 2 * I, &H, 2);
  }
  if (T >= 0)
    Out.Model.tensors[size_t(T)]->dtype = fb::DType::F16;
  return bindWeight(std::move(Bytes), T);
}

PendingDispatch &Lowering::dispatch(llvm::StringRef Kernel) {
  if (!Fp16)
    return Program.addDispatch(Kernel, CurrentOp);
  bool F32Out = false;
  if (CurrentOp >= 0)
    for (int32_t T : Cpu.Model.operators[size_t(CurrentOp)]->outputs)
      F32Out |= f32Io(bindTensor(T));
  return Program.addDispatch((Kernel + (F32Out ? "_f16_f32" : "_f16")).str(),
                             CurrentOp);
}

int32_t Lowering::scratch(uint64_t Bytes) {
  Place P;
  P.Bytes = alignUp(Bytes, 16);
  return Program.addPlace(P);
}

BindingRef Lowering::bindNewOutput(int32_t T) {
  if (PlaceOf[size_t(T)] < 0) {
    Place P;
    P.Bytes = alignUp(Storages[size_t(T)].bytes(elementSize()), 16);
    PlaceOf[size_t(T)] = Program.addPlace(P);
    Program.setTensorPlace(T, PlaceOf[size_t(T)]);
  }
  return bindTensor(T);
}

void Lowering::alias(int32_t T, int32_t P) {
  Place A;
  A.K = Place::Alias;
  A.AliasOf = P;
  A.Bytes = Program.place(P).Bytes;
  PlaceOf[size_t(T)] = Program.addPlace(A);
  Program.setTensorPlace(T, PlaceOf[size_t(T)]);
}

void Lowering::gather(const Storage &SrcS, BindingRef Src,
                      const OperandMap &SrcMap, const Storage &DstS,
                      BindingRef Dst, const OperandMap &DstMap,
                      DomainDims Domain, llvm::StringRef Kernel) {
  if (Kernel.empty()) { // with Fp16, f32 graph buffers convert on the way
    bool SrcF32 = f32Io(Src), DstF32 = f32Io(Dst);
    Kernel = !Fp16 || (SrcF32 && DstF32) ? "gather"
             : SrcF32                    ? "gather_f32_f16"
             : DstF32                    ? "gather_f16_f32"
                                         : "gather_f16";
  }
  PendingDispatch &D = Program.addDispatch(Kernel, CurrentOp);
  // A C4 destination's padding lanes get zero: its channel axis's domain
  // axis runs to the padded count.
  int PadAxis = 6;
  int64_t PadFrom = 0;
  if (DstS.C4)
    for (int K = 0; K < DomainRank; ++K)
      if (DstMap.Axis[size_t(K)] == 3) {
        int64_t Start = DstMap.Start.size() > 3 ? DstMap.Start[3] : 0;
        int64_t Real = Domain[size_t(K)];
        int64_t Padded = (DstS.Dims[3] + 3) / 4 * 4 - Start;
        // Only the piece that reaches the last channel pads.
        if (Start + Real == DstS.Dims[3] && Padded > Real) {
          PadAxis = K;
          PadFrom = Real;
          Domain[size_t(K)] = Padded;
        }
      }
  domainConstants(D, Domain, PadAxis, PadFrom);
  operandConstants(SrcS, SrcMap, 20, D.Spec);
  operandConstants(DstS, DstMap, 40, D.Spec);
  D.Bindings = {Src, Dst};
}

BindingRef Lowering::plainOf(int32_t T) {
  const Storage &S = storage(T);
  if (!S.C4)
    return bindTensor(T);
  Storage Plain{S.Dims, false};
  int32_t P = scratch(Plain.bytes(elementSize()));
  DomainDims Domain = domainOf(S.Dims);
  gather(S, bindTensor(T), alignedMap(S, Domain), Plain, bindPlace(P),
         alignedMap(Plain, Domain), Domain);
  return bindPlace(P);
}

bool Lowering::f32Io(BindingRef B) const {
  if (!Fp16 || B.IsWeight)
    return false;
  Place::Kind K = Program.place(Program.root(B.Index)).K;
  return K == Place::Input || K == Place::Output;
}

void Lowering::convertIo(int32_t T, int32_t IoPlace, bool Into) {
  const Storage &S = storage(T);
  DomainDims Domain = domainOf(S.Dims);
  OperandMap Map = alignedMap(S, Domain);
  BindingRef Io = bindPlace(IoPlace), Copy = bindTensor(T);
  gather(S, Into ? Io : Copy, Map, S, Into ? Copy : Io, Map, Domain,
         Into ? "gather_f32_f16" : "gather_f16_f32");
}

llvm::Expected<KilnModule> Lowering::run() {
  const fb::ModelT &M = Cpu.Model;
  size_t NumTensors = M.tensors.size();
  Storages.resize(NumTensors);
  PlaceOf.assign(NumTensors, -1);

  // The output module: the same graph, activations in their GPU layouts.
  flatbuffers::FlatBufferBuilder Scratch;
  Scratch.Finish(fb::Model::Pack(Scratch, &M));
  fb::GetModel(Scratch.GetBufferPointer())->UnPackTo(&Out.Model);
  Out.Model.buffers.clear();
  for (auto &T : Out.Model.tensors)
    T->buffer = -1; // constants get their packed segments in finish()

  std::string Problems;
  unsigned Count = 0;
  auto Problem = [&](const std::string &Line) {
    Problems += "\n  " + Line;
    ++Count;
  };
  // Fp16: a graph input read only by gathers, or an output read by no
  // operator and written by a gather or a kernel with an f32-output variant
  // (fully_connected_f16_f32, resize_f16_f32), needs no fp16 copy: the
  // kernel converts as it moves or stores (the NCHW <-> C4 transposes at
  // the graph's ends, classifier and segmentation heads).
  std::vector<size_t> GatherReaders(NumTensors, 0), FrameReaders(NumTensors, 0);
  std::vector<bool> F32Written(NumTensors, false);
  for (const auto &Op : M.operators) {
    bool Gathers = Op->kind == fb::OpKind::TRANSPOSE ||
                   Op->kind == fb::OpKind::SLICE ||
                   Op->kind == fb::OpKind::BROADCAST;
    for (int32_t T : Op->inputs)
      if (T >= 0) {
        GatherReaders[size_t(T)] += Gathers;
        FrameReaders[size_t(T)] += Op->kind == fb::OpKind::PIXELS_TO_TENSOR;
      }
    // A RESHAPE writing a graph output is a gather too (never an alias).
    bool F32Variant = Gathers || Op->kind == fb::OpKind::RESHAPE ||
                      Op->kind == fb::OpKind::FULLY_CONNECTED ||
                      Op->kind == fb::OpKind::RESIZE;
    for (int32_t T : Op->outputs)
      F32Written[size_t(T)] = F32Variant && Op->outputs.size() == 1;
  }
  auto convertsInKernel = [&](int32_t T, Place::Kind K) {
    if (readers(T).empty())
      return K == Place::Output && F32Written[size_t(T)];
    return K == Place::Input && GatherReaders[size_t(T)] == readers(T).size();
  };
  std::vector<bool> IsIo(NumTensors, false);
  std::vector<std::pair<int32_t, int32_t>> IoPlaces; // Fp16: tensor, buffer
  auto bindIo = [&](int32_t T, size_t Index, Place::Kind K) {
    const char *What = K == Place::Input ? "input" : "output";
    const fb::TensorT &Tensor = tensor(T);
    if (!isActivation(Tensor))
      return Problem(llvm::formatv("{0} '{1}': a constant graph {0} (the "
                                   "Vulkan target computes every output)",
                                   What, Tensor.name));
    if (IsIo[size_t(T)])
      return Problem(llvm::formatv("{0} '{1}': it is also a graph input or "
                                   "another output (the Vulkan target gives "
                                   "each its own buffer)",
                                   What, Tensor.name));
    // An image input holds the frame's bytes, which only its
    // PIXELS_TO_TENSOR reads.
    bool Frame = K == Place::Input && Tensor.dtype == fb::DType::U8 &&
                 readers(T).size() == FrameReaders[size_t(T)];
    // Integer inputs (token ids) stay in the caller's int64 or int32 bytes.
    bool Integer = K == Place::Input && (Tensor.dtype == fb::DType::I64 ||
                                         Tensor.dtype == fb::DType::I32);
    if (Integer) {
      std::string Why = integerInputProblem(*this, T);
      if (!Why.empty())
        return Problem(llvm::formatv(
            "input '{0}' is {1}, and {2} (the Vulkan target reads integer "
            "inputs only as gather indices, in casts to float and in "
            "comparisons with a constant)",
            Tensor.name, fb::EnumNameDType(Tensor.dtype), Why));
    }
    if (Tensor.dtype != fb::DType::F32 && !Frame && !Integer)
      return Problem(llvm::formatv("{0} '{1}' is {2} (the Vulkan target's "
                                   "graph inputs and outputs are f32, image "
                                   "inputs u8, and integer inputs are read "
                                   "as indices)",
                                   What, Tensor.name,
                                   fb::EnumNameDType(Tensor.dtype)));
    Storages[size_t(T)] = {dimsOf(Tensor), false};
    Place P;
    P.K = K;
    P.IoIndex = int32_t(Index);
    if (Storages[size_t(T)].elements() == 0)
      return Problem(llvm::formatv("{0} '{1}' has no elements (a Vulkan "
                                   "buffer is never empty)",
                                   What, Tensor.name));
    P.Bytes = Storages[size_t(T)].bytes(
        Frame ? 1 : fb::dtypeSize(Tensor.dtype));
    PlaceOf[size_t(T)] = Program.addPlace(P);
    Program.setTensorPlace(T, PlaceOf[size_t(T)]);
    IsIo[size_t(T)] = true;
    if (Fp16 && !Frame && !Integer && !convertsInKernel(T, K)) {
      // The kernels use an fp16 copy in the arena (PLAIN, as the buffer).
      IoPlaces.emplace_back(T, PlaceOf[size_t(T)]);
      Place Copy;
      Copy.Bytes = alignUp(Storages[size_t(T)].bytes(2), 16);
      PlaceOf[size_t(T)] = Program.addPlace(Copy);
    }
  };
  for (size_t I = 0; I < M.inputs.size(); ++I)
    bindIo(M.inputs[I], I, Place::Input);
  for (size_t I = 0; I < M.outputs.size(); ++I)
    bindIo(M.outputs[I], I, Place::Output);
  for (size_t T = 0; T < NumTensors; ++T) {
    const fb::TensorT &Src = tensor(int32_t(T));
    fb::TensorT &Dst = *Out.Model.tensors[T];
    if (!isActivation(Src)) {
      Dst.layout = fb::Layout::PACKED;
      continue;
    }
    if (IsIo[T])
      continue;
    if (Fp16 && Dst.dtype == fb::DType::F32)
      Dst.dtype = fb::DType::F16;
    bool C4 = Src.layout == fb::Layout::NHWC && Src.shape.size() == 4;
    Storages[T] = {dimsOf(Src), C4};
    if (C4)
      Dst.layout = fb::Layout::C4;
  }

  // Fp16: the graph inputs to fp16 first (dispatches of no operator).
  for (auto [T, IoPlace] : IoPlaces)
    if (Program.place(IoPlace).K == Place::Input)
      convertIo(T, IoPlace, true);

  // Attention chains run as one dispatch at their last matmul; the
  // operators they absorb get no dispatch and their results no memory.
  std::vector<AttentionChain> Attention = findAttentionChains(*this);
  std::map<const fb::OperatorT *, const AttentionChain *> AttentionAt;
  std::set<const fb::OperatorT *> Absorbed;
  for (const AttentionChain &C : Attention) {
    AttentionAt[C.PV] = &C;
    Absorbed.insert(C.Absorbed.begin(), C.Absorbed.end());
  }
  // So do unrolled LSTM and GRU steps' cells, at their output's operator.
  std::vector<LstmCell> Cells = findLstmCells(*this);
  std::vector<GruCell> GruCells = findGruCells(*this);
  std::map<const fb::OperatorT *, const LstmCell *> CellAt;
  std::map<const fb::OperatorT *, const GruCell *> GruAt;
  auto claim = [&](const fb::OperatorT *Last,
                   const std::vector<const fb::OperatorT *> &Ops) {
    bool Free = !Absorbed.count(Last) && !AttentionAt.count(Last) &&
                !CellAt.count(Last) && !GruAt.count(Last);
    for (const fb::OperatorT *O : Ops)
      Free = Free && !Absorbed.count(O) && !AttentionAt.count(O) &&
             !CellAt.count(O) && !GruAt.count(O);
    if (Free)
      Absorbed.insert(Ops.begin(), Ops.end());
    return Free;
  };
  for (const LstmCell &C : Cells)
    if (claim(C.Last, C.Absorbed))
      CellAt[C.Last] = &C;
  for (const GruCell &C : GruCells)
    if (claim(C.Last, C.Absorbed))
      GruAt[C.Last] = &C;

  for (size_t I = 0; I < M.operators.size(); ++I) {
    const fb::OperatorT &Op = *M.operators[I];
    if (Absorbed.count(&Op))
      continue;
    CurrentOp = int32_t(I);
    // Outputs get arena places unless the lowering aliases them.
    for (int32_t T : Op.outputs)
      if (PlaceOf[size_t(T)] < 0) {
        Place P;
        P.Bytes = alignUp(Storages[size_t(T)].bytes(elementSize()), 16);
        PlaceOf[size_t(T)] = Program.addPlace(P);
        Program.setTensorPlace(T, PlaceOf[size_t(T)]);
      }
    std::string Why;
    // A comparison's result is boolean and its constant integer: the casts
    // that read it compute it (IndexLowering.cpp).
    bool Comparison = isComparison(Op);
    for (int32_t T : Op.inputs)
      if (T >= 0 && !isActivation(tensor(T)) &&
          tensor(T).dtype != fb::DType::F32 && tensor(T).dtype != fb::DType::F16 &&
          tensor(T).dtype != fb::DType::I32 &&
          !(Comparison && tensor(T).dtype == fb::DType::I64))
        Why = "its constant input '" + tensor(T).name + "' is " +
              fb::EnumNameDType(tensor(T).dtype) +
              (tensor(T).dtype == fb::DType::I8
                   ? " (the Vulkan target runs fp32 and fp16 models; int8 "
                     "is not supported yet)"
                   : " (the Vulkan target's constants are f32, f16 or i32, "
                     "and int64 only as what token ids are compared with)");
    for (int32_t T : Op.outputs)
      if (tensor(T).dtype != fb::DType::F32 && !Comparison)
        Why = "its output '" + tensor(T).name + "' is " +
              fb::EnumNameDType(tensor(T).dtype) +
              " (the Vulkan kernels compute fp32 and fp16)";
    if (Op.kind == fb::OpKind::BOX_NMS)
      Why = BoxNmsOnCpuOnly;
    if (Why.empty() && Comparison)
      Why = lowerComparison(*this, Op);
    else if (Why.empty()) {
      switch (Op.kind) {
      case fb::OpKind::CONV_2D:
        Why = lowerConv(*this, Op);
        break;
      case fb::OpKind::FULLY_CONNECTED:
        Why = lowerFullyConnected(*this, Op);
        break;
      case fb::OpKind::MAX_POOL_2D:
      case fb::OpKind::AVERAGE_POOL_2D:
      case fb::OpKind::GLOBAL_AVERAGE_POOL_2D:
      case fb::OpKind::GLOBAL_MAX_POOL_2D:
      case fb::OpKind::REDUCE:
        Why = lowerPool(*this, Op);
        break;
      case fb::OpKind::BINARY:
      case fb::OpKind::UNARY:
      case fb::OpKind::PRELU:
        if (auto It = CellAt.find(&Op); It != CellAt.end())
          Why = lowerLstmCell(*this, *It->second);
        else if (auto G = GruAt.find(&Op); G != GruAt.end())
          Why = lowerGruCell(*this, *G->second);
        else
          Why = lowerElementwise(*this, Op);
        break;
      case fb::OpKind::TRANSPOSE:
      case fb::OpKind::RESHAPE:
      case fb::OpKind::SLICE:
      case fb::OpKind::BROADCAST:
        Why = lowerMovement(*this, Op);
        break;
      case fb::OpKind::CONCAT:
        Why = lowerConcat(*this, Op);
        break;
      case fb::OpKind::SOFTMAX:
        Why = lowerSoftmax(*this, Op);
        break;
      case fb::OpKind::RESIZE:
        Why = lowerResize(*this, Op);
        break;
      case fb::OpKind::LAYER_NORM:
        Why = lowerLayerNorm(*this, Op);
        break;
      case fb::OpKind::MATMUL:
        if (auto It = AttentionAt.find(&Op); It != AttentionAt.end())
          Why = lowerAttention(*this, *It->second);
        else
          Why = lowerMatMul(*this, Op);
        break;
      case fb::OpKind::PIXELS_TO_TENSOR:
        Why = lowerPixelsToTensor(*this, Op);
        break;
      case fb::OpKind::GATHER:
        Why = lowerGather(*this, Op);
        break;
      case fb::OpKind::CAST:
        Why = lowerCast(*this, Op);
        break;
      default:
        Why = "the Vulkan target has no kernel for it yet";
      }
    }
    if (Why.empty())
      continue;
    Problem(llvm::formatv("node '{0}' ({1}): {2}", Op.name,
                          fb::EnumNameOpKind(Op.kind), Why));
  }
  if (Count)
    return unsupportedError("the Vulkan target cannot run {0} part(s) of this "
                      "model:{1}", Count, Problems);
  // Fp16: the graph outputs back to f32 last.
  CurrentOp = -1;
  for (auto [T, IoPlace] : IoPlaces)
    if (Program.place(IoPlace).K == Place::Output)
      convertIo(T, IoPlace, false);

  // Constants no kernel packed (read by no dispatch) keep their bytes so
  // the graph stays complete for tools.
  for (size_t T = 0; T < NumTensors; ++T)
    if (!isActivation(tensor(int32_t(T))) && !Packed.count(int32_t(T)))
      Program.addWeight(rawBytes(int32_t(T)), int32_t(T));
  Out.Model.target = fb::Target::VULKAN;
  if (Out.Model.metadata)
    Out.Model.metadata->target = "vulkan";
  Program.finish(Out);
  if (Fp16) {
    auto *P = Out.Model.payload.AsVulkanPayload();
    P->fp16 = true;
    // 16-bit storage is all the storage-only kernels use (fp32
    // arithmetic). Their fp16-arithmetic twins need shaderFloat16, but the
    // runtime runs them only where the device has it, so the file does not
    // ask for it: it still runs on a device with 16-bit storage alone.
    P->required_features = {"storageBuffer16BitAccess"};
  }
  return std::move(Out);
}

} // namespace kiln::vulkan
