#include "PerLayerInt8.h"

#include "ModelChecks.h"
#include "backends/common/KilnWriter.h"
#include "backends/nnapi/NnapiLowering.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace kiln::testing {

namespace {

kiln_session_options oneThread() {
  kiln_session_options O;
  kiln_session_options_init(&O);
  O.num_threads = 1;
  return O;
}

bool isInt8Activation(const fb::TensorT &T) {
  return T.buffer < 0 && T.dtype == fb::DType::I8 && T.quant &&
         !T.quant->scale.empty();
}

/// The kinds checked: those whose int8 result NNAPI requantizes (or, for
/// the pools, reshape, transpose and concat, keeps or requantizes) itself,
/// and the int8 activation tables, which NNAPI computes with its own int8
/// operations (NnapiInt8ActivationLowering.cpp).
bool isCheckedKind(fb::OpKind K) {
  switch (K) {
  case fb::OpKind::UNARY:
  case fb::OpKind::CONV_2D:
  case fb::OpKind::FULLY_CONNECTED:
  case fb::OpKind::BINARY:
  case fb::OpKind::MAX_POOL_2D:
  case fb::OpKind::AVERAGE_POOL_2D:
  case fb::OpKind::GLOBAL_AVERAGE_POOL_2D:
  case fb::OpKind::GLOBAL_MAX_POOL_2D:
  case fb::OpKind::CONCAT:
  case fb::OpKind::RESHAPE:
  case fb::OpKind::TRANSPOSE:
    return true;
  default:
    return false;
  }
}

/// "CONV_2D", or with the operation of a BINARY or UNARY: "BINARY.MUL".
std::string kindName(const fb::OperatorT &Op) {
  std::string Name = fb::EnumNameOpKind(Op.kind);
  if (const auto *B = Op.options.AsBinaryOptions())
    Name += std::string(".") + fb::EnumNameBinaryOp(B->op);
  if (const auto *U = Op.options.AsUnaryOptions())
    Name += std::string(".") + fb::EnumNameUnaryOp(U->op);
  return Name;
}

/// A layer all of whose non-constant inputs and outputs are int8
/// activations.
bool isInt8Layer(const fb::ModelT &M, const fb::OperatorT &Op) {
  if (!isCheckedKind(Op.kind) || Op.outputs.empty())
    return false;
  for (int32_t T : Op.outputs)
    if (!isInt8Activation(*M.tensors[size_t(T)]))
      return false;
  for (int32_t T : Op.inputs)
    if (T >= 0 && M.tensors[size_t(T)]->buffer < 0 &&
        !isInt8Activation(*M.tensors[size_t(T)]))
      return false;
  return true;
}

/// Operator Op of Cpu alone: its tensors (renumbered) and their segments;
/// its activation inputs are the graph inputs (Sources: their indices in
/// Cpu), its outputs the graph's.
KilnModule oneLayer(const KilnModule &Cpu, size_t Op,
                    std::vector<int32_t> &Sources) {
  const fb::OperatorT &Src = *Cpu.Model.operators[Op];
  KilnModule M;
  std::map<int32_t, int32_t> Renumbered;
  auto Take = [&](int32_t T) {
    if (T < 0)
      return T;
    auto [It, New] = Renumbered.emplace(T, int32_t(M.Model.tensors.size()));
    if (New) {
      auto Copy = std::make_unique<fb::TensorT>(*Cpu.Model.tensors[size_t(T)]);
      if (Copy->buffer >= 0)
        Copy->buffer = M.addSegment(Cpu.Segments[size_t(Copy->buffer)]);
      M.Model.tensors.push_back(std::move(Copy));
    }
    return It->second;
  };
  auto Layer = std::make_unique<fb::OperatorT>(Src);
  for (int32_t &T : Layer->inputs)
    T = Take(T);
  for (int32_t &T : Layer->outputs)
    T = Take(T);
  auto MD = std::make_unique<fb::MetadataT>();
  MD->target = "cpu";
  for (int32_t From : Src.inputs) {
    int32_t T = From < 0 ? -1 : Renumbered.at(From);
    if (T >= 0 && M.Model.tensors[size_t(T)]->buffer < 0 &&
        std::find(M.Model.inputs.begin(), M.Model.inputs.end(), T) ==
            M.Model.inputs.end()) {
      M.Model.inputs.push_back(T);
      Sources.push_back(From);
      MD->inputs.push_back(tensorInfoOf(*M.Model.tensors[size_t(T)]));
    }
  }
  for (int32_t T : Layer->outputs) {
    M.Model.outputs.push_back(T);
    MD->outputs.push_back(tensorInfoOf(*M.Model.tensors[size_t(T)]));
  }
  M.Model.operators.push_back(std::move(Layer));
  M.Model.metadata = std::move(MD);
  M.Model.target = fb::Target::CPU;
  M.Model.payload.Set(fb::CpuPayloadT());
  return M;
}

Tensor int8Tensor(const fb::TensorT &T, const std::vector<uint8_t> &Bytes) {
  return Tensor(TensorType(ElementType::I8, makeShape(T.shape)),
                Buffer::copy(Bytes));
}

} // namespace

std::string runKeepingTensors(const std::string &Bytes,
                              llvm::ArrayRef<Tensor> Inputs,
                              std::vector<std::vector<uint8_t>> &Out) {
  kiln_model *M = nullptr;
  if (kiln_model_load_buffer(Bytes.data(), Bytes.size(), &M) != KILN_OK)
    return std::string("load: ") + kiln_last_error();
  kiln_session_options O = oneThread();
  O.keep_intermediates = 1;
  kiln_session *S = nullptr;
  std::string Why;
  if (kiln_session_create(M, &O, &S) != KILN_OK)
    Why = std::string("session: ") + kiln_last_error();
  for (size_t I = 0; I < Inputs.size() && Why.empty(); ++I)
    if (kiln_session_set_input(S, I, Inputs[I].buffer().data(),
                               Inputs[I].buffer().size()) != KILN_OK)
      Why = std::string("input: ") + kiln_last_error();
  if (Why.empty() && kiln_session_run(S) != KILN_OK)
    Why = std::string("run: ") + kiln_last_error();
  size_t N = Why.empty() ? kiln_session_num_tensors(S) : 0;
  Out.assign(N, {});
  for (size_t T = 0; T < N && Why.empty(); ++T) {
    kiln_tensor_value V;
    if (kiln_session_tensor(S, T, &V) != KILN_OK) {
      Why = llvm::formatv("tensor {0}: {1}", T, kiln_last_error()).str();
      break;
    }
    if (!V.is_constant && V.data) {
      const auto *D = static_cast<const uint8_t *>(V.data);
      Out[T].assign(D, D + V.info.byte_size);
    }
  }
  kiln_session_destroy(S);
  kiln_model_destroy(M);
  return Why;
}

std::string checkInt8PerLayer(const KilnModule &Cpu,
                              const std::vector<std::vector<uint8_t>> &Tensors,
                              int32_t Level, PerLayerFigures &Figures) {
  const fb::ModelT &Model = Cpu.Model;
  for (size_t K = 0; K < Model.operators.size(); ++K) {
    const fb::OperatorT &Op = *Model.operators[K];
    if (!isInt8Layer(Model, Op))
      continue;
    std::string Where =
        llvm::formatv("level {0} layer '{1}' ({2}, operator {3})", Level,
                      Op.name, fb::EnumNameOpKind(Op.kind), K)
            .str();
    std::vector<int32_t> Sources;
    KilnModule One = oneLayer(Cpu, K, Sources);
    nnapi::Lowering L(One, {Level, false});
    if (llvm::Error E = L.run()) {
      std::string Why = llvm::toString(std::move(E));
      if ((Op.kind == fb::OpKind::RESHAPE ||
           Op.kind == fb::OpKind::TRANSPOSE) &&
          Why.find("nothing is left for NNAPI to run") != std::string::npos) {
        ++Figures.Skipped;
        continue;
      }
      return Where + ": lowering alone: " + Why.substr(0, Why.find('\n'));
    }
    One.Model.target = fb::Target::NNAPI;
    One.Model.metadata->target = "nnapi";
    auto Bytes = serializeKilnModule(One);
    if (!Bytes)
      return Where + ": write: " + firstLine(Bytes.takeError());
    std::vector<Tensor> Inputs, Got;
    for (size_t I = 0; I < Sources.size(); ++I) {
      const std::vector<uint8_t> &Value = Tensors[size_t(Sources[I])];
      const fb::TensorT &T = *Model.tensors[size_t(Sources[I])];
      if (Value.empty())
        return Where + ": no CPU value for input '" + T.name + "'";
      Inputs.push_back(int8Tensor(T, Value));
    }
    if (std::string Why = runCompiled(*Bytes, Inputs, oneThread(), Got);
        !Why.empty())
      return Where + ": " + Why;
    if (Got.size() != Op.outputs.size())
      return Where + ": output count differs";
    ++Figures.Checked;
    int LayerWorst = 0;
    for (size_t I = 0; I < Op.outputs.size(); ++I) {
      const std::vector<uint8_t> &Ref = Tensors[size_t(Op.outputs[I])];
      if (Got[I].buffer().size() != Ref.size())
        return Where + ": output size differs";
      const auto *G = reinterpret_cast<const int8_t *>(Got[I].buffer().data());
      const auto *R = reinterpret_cast<const int8_t *>(Ref.data());
      for (size_t E = 0; E < Ref.size(); ++E) {
        int D = std::abs(int(G[E]) - int(R[E]));
        LayerWorst = std::max(LayerWorst, D);
        Figures.Worst = std::max(Figures.Worst, D);
        if (D > 1)
          return llvm::formatv("{0}: output {1} element {2}: NNAPI {3}, CPU "
                               "{4} ({5} quanta)",
                               Where, I, E, int(G[E]), int(R[E]), D)
              .str();
      }
    }
    Figures.OffByOne += LayerWorst == 1;
    std::pair<int, unsigned> &Kind = Figures.ByKind[kindName(Op)];
    Kind.first = std::max(Kind.first, LayerWorst);
    ++Kind.second;
  }
  return "";
}

std::string PerLayerFigures::byKind() const {
  std::string S;
  for (const auto &[Kind, WorstAndCount] : ByKind)
    S += (S.empty() ? "" : ", ") + Kind + " " +
         std::to_string(WorstAndCount.first) + "/" +
         std::to_string(WorstAndCount.second);
  return S;
}

} // namespace kiln::testing
