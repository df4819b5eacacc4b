// Baking integer graph inputs into an ONNX model as initializers (see
// FrozenInputs.h), by editing the ModelProto before import.
#include "FrozenInputs.h"

#include "frontends/onnx/OnnxImporter.h"

#include "llvm/Support/MemoryBuffer.h"

#include <onnx/onnx_pb.h>

namespace kiln::conformance {

static bool isIntegerOnnxType(int32_t T) {
  return T == onnx::TensorProto::INT64 || T == onnx::TensorProto::INT32;
}

llvm::Expected<std::unique_ptr<Graph>>
importWithFrozenIntInputs(const std::string &ModelPath,
                          const std::vector<std::string> &InputFiles,
                          std::vector<size_t> &Frozen) {
  auto Buf = llvm::MemoryBuffer::getFile(ModelPath);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "cannot read model");
  onnx::ModelProto M;
  if (!M.ParseFromArray((*Buf)->getBufferStart(), int((*Buf)->getBufferSize())))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot parse model");
  onnx::GraphProto &G = *M.mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> Kept;
  for (int I = 0; I < G.input_size(); ++I) {
    const onnx::ValueInfoProto &In = G.input(I);
    bool Freeze = size_t(I) < InputFiles.size() && In.type().has_tensor_type() &&
                  isIntegerOnnxType(In.type().tensor_type().elem_type());
    if (!Freeze) {
      *Kept.Add() = In;
      continue;
    }
    auto Data = llvm::MemoryBuffer::getFile(InputFiles[size_t(I)]);
    onnx::TensorProto T;
    if (!Data || !T.ParseFromArray((*Data)->getBufferStart(),
                                   int((*Data)->getBufferSize())))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "cannot read " + InputFiles[size_t(I)]);
    T.set_name(In.name());
    *G.add_initializer() = T;
    Frozen.push_back(size_t(I));
  }
  G.mutable_input()->Swap(&Kept);
  if (Frozen.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "no integer inputs to freeze");
  return importOnnxBuffer(M.SerializeAsString(), ModelPath);
}

} // namespace kiln::conformance
