#include "backends/common/SymbolicModule.h"

#include "Support/Error.h"

#include "llvm/ADT/StringExtras.h"

namespace kiln {

namespace {

template <typename T, typename PackFn>
std::string packed(const T &Object, PackFn Pack) {
  flatbuffers::FlatBufferBuilder B;
  B.ForceDefaults(true);
  B.Finish(Pack(B, &Object));
  return std::string(reinterpret_cast<const char *>(B.GetBufferPointer()),
                     B.GetSize());
}

/// A tensor's bytes in the FlatBuffer without its shape.
std::string tensorWithoutShape(fb::TensorT &T) {
  std::vector<int64_t> Shape;
  Shape.swap(T.shape);
  std::string Bytes = packed(T, [](auto &B, const fb::TensorT *O) {
    return fb::Tensor::Pack(B, O);
  });
  Shape.swap(T.shape);
  return Bytes;
}

std::string operatorBytes(const fb::OperatorT &Op) {
  return packed(Op, [](auto &B, const fb::OperatorT *O) {
    return fb::Operator::Pack(B, O);
  });
}

/// "operator 3 (RESHAPE 'flatten')", or "the graph inputs" for a tensor no
/// operator writes.
std::string producerOf(const fb::ModelT &M, int32_t Tensor) {
  for (size_t I = 0; I < M.operators.size(); ++I) {
    const fb::OperatorT &Op = *M.operators[I];
    for (int32_t Out : Op.outputs)
      if (Out == Tensor)
        return llvm::formatv("operator {0} ({1} '{2}')", I,
                             fb::EnumNameOpKind(Op.kind), Op.name);
  }
  return "the graph inputs";
}

std::string sizesText(const std::vector<std::string> &Symbols,
                      llvm::ArrayRef<int64_t> Sizes) {
  std::vector<std::string> Parts;
  for (size_t K = 0; K < Symbols.size(); ++K)
    Parts.push_back(Symbols[K] + "=" + std::to_string(Sizes[K]));
  return llvm::join(Parts, ", ");
}

} // namespace

llvm::Error probeSizes(size_t NumSymbols, std::vector<int64_t> &First,
                       std::vector<int64_t> &Second) {
  static const int64_t Primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
  constexpr size_t MaxSymbols = std::size(Primes) / 2;
  if (NumSymbols > MaxSymbols)
    return inputError("the model has {0} symbolic dims; a .kiln file keeps at "
                      "most {1}: fix the others with --input-shape",
                      NumSymbols, MaxSymbols);
  First.clear();
  Second.clear();
  for (size_t K = 0; K < NumSymbols; ++K) {
    First.push_back(Primes[2 * K]);
    Second.push_back(Primes[2 * K + 1]);
  }
  return llvm::Error::success();
}

llvm::Error generalizeModule(KilnModule &A, const KilnModule &B,
                             const std::vector<std::string> &Symbols,
                             llvm::ArrayRef<int64_t> SizesA,
                             llvm::ArrayRef<int64_t> SizesB) {
  fb::ModelT &MA = A.Model;
  const fb::ModelT &MB = B.Model;
  std::string Probes = "at " + sizesText(Symbols, SizesA) + " and at " +
                       sizesText(Symbols, SizesB);
  auto Depends = [&](const std::string &What, const std::string &Why) {
    return inputError("{0}: {1} when the model is lowered {2}, so the file "
                      "cannot leave the symbolic dims open; fix the input "
                      "shapes with --input-shape",
                      What, Why, Probes);
  };
  if (MA.operators.size() != MB.operators.size() ||
      MA.tensors.size() != MB.tensors.size() ||
      A.Segments.size() != B.Segments.size() || MA.inputs != MB.inputs ||
      MA.outputs != MB.outputs)
    return Depends("the lowered model", "its operators differ");
  for (size_t I = 0; I < MA.operators.size(); ++I) {
    const fb::OperatorT &Op = *MA.operators[I];
    if (operatorBytes(Op) != operatorBytes(*MB.operators[I]))
      return Depends(llvm::formatv("operator {0} ({1} '{2}')", I,
                                   fb::EnumNameOpKind(Op.kind), Op.name),
                     "its inputs, outputs or options differ");
  }
  for (size_t S = 0; S < A.Segments.size(); ++S) {
    const Segment &SA = A.Segments[S], &SB = B.Segments[S];
    bool Same = SA.size() == SB.size() &&
                SA.isProduced() == SB.isProduced() &&
                (SA.isProduced() || SA.bytes().bytes() == SB.bytes().bytes());
    if (!Same)
      return Depends(llvm::formatv("constant segment {0}", S).str(),
                     "its bytes differ");
  }
  for (size_t I = 0; I < MA.tensors.size(); ++I) {
    fb::TensorT &TA = *MA.tensors[I];
    fb::TensorT &TB = *MB.tensors[I];
    std::string What = llvm::formatv("tensor {0} '{1}' (written by {2})", I,
                                     TA.name, producerOf(MA, int32_t(I)));
    if (TA.shape.size() != TB.shape.size() ||
        tensorWithoutShape(TA) != tensorWithoutShape(TB))
      return Depends(What, "its type differs");
    for (size_t Axis = 0; Axis < TA.shape.size(); ++Axis) {
      int64_t DA = TA.shape[Axis], DB = TB.shape[Axis];
      if (DA == DB)
        continue;
      if (TA.buffer >= 0)
        return Depends(What, "it is a constant whose size differs");
      int Found = -1;
      int64_t Factor = 0;
      for (size_t K = 0; K < SizesA.size(); ++K)
        if (DA % SizesA[K] == 0 && DB % SizesB[K] == 0 &&
            DA / SizesA[K] == DB / SizesB[K]) {
          if (Found >= 0)
            return Depends(What, llvm::formatv("dim {0} fits more than one "
                                               "symbol", Axis).str());
          Found = int(K);
          Factor = DA / SizesA[K];
        }
      if (Found < 0)
        return Depends(What, llvm::formatv("dim {0} ({1}, then {2}) is not a "
                                           "symbol times a size",
                                           Axis, DA, DB)
                                 .str());
      auto D = std::make_unique<fb::SymbolicDimT>();
      D->axis = int32_t(Axis);
      D->symbol = Found;
      D->factor = Factor;
      TA.symbolic_dims.push_back(std::move(D));
      TA.shape[Axis] = -1;
    }
  }
  // The caller-facing copies of the inputs' and outputs' types.
  if (MA.metadata) {
    auto Patch = [&](std::vector<std::unique_ptr<fb::TensorInfoT>> &Infos,
                     const std::vector<int32_t> &Tensors) {
      for (size_t I = 0; I < Infos.size() && I < Tensors.size(); ++I)
        Infos[I]->shape = MA.tensors[size_t(Tensors[I])]->shape;
    };
    Patch(MA.metadata->inputs, MA.inputs);
    Patch(MA.metadata->outputs, MA.outputs);
  }
  MA.symbols = Symbols;
  return llvm::Error::success();
}

} // namespace kiln
