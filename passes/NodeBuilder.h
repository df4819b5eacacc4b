// Building a replacement for one node out of other ops, in front of it:
// each new node gets the node's provenance and inferred result types, and the
// first inference error is kept (later calls then do nothing and give null),
// so an expansion is written as straight-line code and checked once.
#pragma once

#include "IR/Graph.h"
#include "IR/OpRegistry.h"
#include "Support/Error.h"

#include "llvm/Support/Error.h"

#include <vector>

namespace kiln {

class NodeBuilder {
public:
  /// New nodes go before For and take its sources.
  NodeBuilder(Graph &G, Node &For) : G(G), For(For) {}
  ~NodeBuilder() { llvm::consumeError(std::move(Err)); }

  Value *op(llvm::StringRef Name, std::vector<Value *> Operands,
            AttrMap Attrs = {}) {
    if (Err)
      return nullptr;
    for (Value *V : Operands)
      if (!V) { // an operand the builder failed to make
        Err = internalError("{0}: an operand is missing", Name);
        return nullptr;
      }
    auto R = createInferred(G, Name, Operands, std::move(Attrs), 1, &For);
    if (!R) {
      Err = R.takeError();
      return nullptr;
    }
    (*R)->setSources(For.sources());
    return (*R)->result();
  }
  Value *constant(Tensor T) {
    Value *C = G.createConstant(std::move(T), "", &For);
    C->producer()->setSources(For.sources());
    return C;
  }
  /// A 1-D i64 constant.
  Value *ints(std::vector<int64_t> V) {
    int64_t Size = int64_t(V.size());
    return constant(
        Tensor::fromValues<int64_t>(ElementType::I64, {Dim(Size)}, V));
  }
  /// A rank-0 constant of element type E.
  Value *scalar(ElementType E, double V) { return constant(Tensor::scalar(E, V)); }

  /// The first error, or success (and building may go on).
  llvm::Error takeError() { return std::move(Err); }

private:
  Graph &G;
  Node &For;
  llvm::Error Err = llvm::Error::success();
};

} // namespace kiln
