// The state of one ONNX export: the GraphProto being filled, a unique ONNX
// name for every IR value, and helpers to add nodes, attributes and
// initializers. Shared by the exporter (graph, constants) and the op table
// (OnnxOpExport.cpp).
#pragma once

#include "IR/Graph.h"

#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace kiln::onnx_export {

class GraphBuilder {
public:
  explicit GraphBuilder(onnx::GraphProto &G) : G(G) {}

  /// The ONNX name of V ("" for an absent optional operand).
  std::string name(const Value *V);
  /// A name no other value uses, derived from Base.
  std::string fresh(const std::string &Base);
  /// Appends a node documented with the provenance of From and named
  /// Name, or From's display name, so that a re-import gives the same
  /// provenance (names are made unique).
  onnx::NodeProto &node(const std::string &OpType,
                        const std::vector<std::string> &Inputs,
                        const std::vector<std::string> &Outputs,
                        const Node &From, const std::string &Name = "");
  /// An initializer from a tensor, named Name.
  void initializer(const std::string &Name, const Tensor &T);
  /// A scalar f32 initializer; returns its name.
  std::string scalarF32(const std::string &Base, float X);
  /// A scalar initializer of element type E with value 0; returns its name.
  std::string zeroOf(const std::string &Base, ElementType E);

  onnx::GraphProto &graph() { return G; }

private:
  onnx::GraphProto &G;
  std::map<const Value *, std::string> Names;
  std::set<std::string> Used, NodeNames;
};

/// ONNX TensorProto::DataType for an element type.
int32_t onnxDataType(ElementType E);

void setInt(onnx::NodeProto &N, const std::string &Name, int64_t V);
void setFloat(onnx::NodeProto &N, const std::string &Name, float V);
void setString(onnx::NodeProto &N, const std::string &Name, const std::string &V);
void setInts(onnx::NodeProto &N, const std::string &Name,
             const std::vector<int64_t> &V);

/// Emits N as ONNX nodes. Returns false when N's op has no ONNX form here.
bool exportNode(const Node &N, GraphBuilder &B);
/// Whether exportNode takes N, decided without emitting anything.
bool exportsNode(const Node &N);
/// Every IR op exportNode knows, sorted.
std::vector<std::string> exportableOps();

} // namespace kiln::onnx_export
