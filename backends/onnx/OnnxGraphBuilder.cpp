// Names, nodes, attributes and initializers of an ONNX export.
#include "backends/onnx/OnnxGraphBuilder.h"

#include "IR/ElementType.h"

#include "llvm/ADT/StringExtras.h"

namespace kiln::onnx_export {

int32_t onnxDataType(ElementType E) {
  switch (E) {
  case ElementType::F32:
    return onnx::TensorProto::FLOAT;
  case ElementType::F16:
    return onnx::TensorProto::FLOAT16;
  case ElementType::BF16:
    return onnx::TensorProto::BFLOAT16;
  case ElementType::F64:
    return onnx::TensorProto::DOUBLE;
  case ElementType::I64:
    return onnx::TensorProto::INT64;
  case ElementType::I32:
    return onnx::TensorProto::INT32;
  case ElementType::I16:
    return onnx::TensorProto::INT16;
  case ElementType::I8:
    return onnx::TensorProto::INT8;
  case ElementType::U64:
    return onnx::TensorProto::UINT64;
  case ElementType::U32:
    return onnx::TensorProto::UINT32;
  case ElementType::U16:
    return onnx::TensorProto::UINT16;
  case ElementType::U8:
    return onnx::TensorProto::UINT8;
  case ElementType::Bool:
    return onnx::TensorProto::BOOL;
  }
  return onnx::TensorProto::UNDEFINED;
}

std::string GraphBuilder::fresh(const std::string &Base) {
  std::string Name = Base.empty() ? "v" : Base;
  for (int I = 1; Used.count(Name); ++I)
    Name = Base + "_" + std::to_string(I);
  Used.insert(Name);
  return Name;
}

std::string GraphBuilder::name(const Value *V) {
  if (!V)
    return "";
  auto It = Names.find(V);
  if (It != Names.end())
    return It->second;
  return Names[V] = fresh(V->name());
}

onnx::NodeProto &GraphBuilder::node(const std::string &OpType,
                                    const std::vector<std::string> &Inputs,
                                    const std::vector<std::string> &Outputs,
                                    const Node &From,
                                    const std::string &Name) {
  onnx::NodeProto &N = *G.add_node();
  N.set_op_type(OpType);
  std::string Base = Name.empty() ? From.displayName() : Name;
  std::string Unique = Base;
  for (int I = 1; NodeNames.count(Unique); ++I)
    Unique = Base + "_" + std::to_string(I);
  NodeNames.insert(Unique);
  N.set_name(Unique);
  for (const std::string &I : Inputs)
    N.add_input(I);
  for (const std::string &O : Outputs)
    N.add_output(O);
  if (!From.sources().empty())
    N.set_doc_string("kiln sources: " + llvm::join(From.sources(), ", "));
  return N;
}

void GraphBuilder::initializer(const std::string &Name, const Tensor &T) {
  onnx::TensorProto &P = *G.add_initializer();
  P.set_name(Name);
  P.set_data_type(onnxDataType(T.type().Elem));
  for (const Dim &D : T.type().Dims)
    P.add_dims(D.size());
  P.set_raw_data(T.buffer().data(), T.buffer().size());
}

std::string GraphBuilder::scalarF32(const std::string &Base, float X) {
  std::string Name = fresh(Base);
  onnx::TensorProto &P = *G.add_initializer();
  P.set_name(Name);
  P.set_data_type(onnx::TensorProto::FLOAT);
  P.add_float_data(X);
  return Name;
}

std::string GraphBuilder::zeroOf(const std::string &Base, ElementType E) {
  std::string Name = fresh(Base);
  onnx::TensorProto &P = *G.add_initializer();
  P.set_name(Name);
  P.set_data_type(onnxDataType(E));
  P.set_raw_data(std::string(elementSize(E), '\0'));
  return Name;
}

void setInt(onnx::NodeProto &N, const std::string &Name, int64_t V) {
  onnx::AttributeProto &A = *N.add_attribute();
  A.set_name(Name);
  A.set_type(onnx::AttributeProto::INT);
  A.set_i(V);
}

void setFloat(onnx::NodeProto &N, const std::string &Name, float V) {
  onnx::AttributeProto &A = *N.add_attribute();
  A.set_name(Name);
  A.set_type(onnx::AttributeProto::FLOAT);
  A.set_f(V);
}

void setString(onnx::NodeProto &N, const std::string &Name,
               const std::string &V) {
  onnx::AttributeProto &A = *N.add_attribute();
  A.set_name(Name);
  A.set_type(onnx::AttributeProto::STRING);
  A.set_s(V);
}

void setInts(onnx::NodeProto &N, const std::string &Name,
             const std::vector<int64_t> &V) {
  onnx::AttributeProto &A = *N.add_attribute();
  A.set_name(Name);
  A.set_type(onnx::AttributeProto::INTS);
  for (int64_t X : V)
    A.add_ints(X);
}

} // namespace kiln::onnx_export
