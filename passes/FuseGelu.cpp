// fuse-gelu: GELU written out with erf, as torch.onnx.export and nn.GELU()
// traced into older opsets leave it,
//   0.5 * x * (1 + erf(x / sqrt(2)))
// (the division may be a multiplication by 1/sqrt(2), and the three factors
// x, 0.5 and (1 + erf(...)) may be multiplied in any grouping and order),
// becomes gelu(x). One op instead of five: the CPU runs it as one kernel
// (XNNPACK or oneDNN), the Vulkan target has a gelu kernel, and targets
// without one expand it once, their own way.
#include "passes/FusionSupport.h"
#include "passes/Pass.h"
#include "passes/ValueReplacement.h"

#include "IR/OpRegistry.h"

#include <cmath>
#include <vector>

namespace kiln {

namespace {

/// V is a float scalar (or one-element) constant within 1e-6 of Want.
bool isScalar(const Value *V, double Want) {
  auto C = floatConstant(V);
  return C && C->size() == 1 && std::abs((*C)[0] - Want) <= 1e-6 * std::abs(Want);
}

/// The x of erf(x / sqrt(2)) or erf(x * (1/sqrt(2))), or null.
Value *erfArgument(const Node &Erf) {
  const Node *P = Erf.operand(0)->producer();
  if (!P || P->numOperands() != 2)
    return nullptr;
  if (P->isOp("div") && isScalar(P->operand(1), std::sqrt(2.0)))
    return P->operand(0);
  if (P->isOp("mul"))
    for (unsigned I = 0; I < 2; ++I)
      if (isScalar(P->operand(I), 1.0 / std::sqrt(2.0)))
        return P->operand(1 - I);
  return nullptr;
}

/// A single-use intermediate value (not a graph output).
bool isInner(const Graph &G, const Value *V) {
  return V->numUses() == 1 && !G.isOutput(V);
}

struct GeluMatch {
  Value *X = nullptr;
  Node *Last = nullptr;           // the mul whose result is gelu(x)
  std::vector<Node *> Erased;     // the other nodes, users first
};

/// Matches from the erf: add(erf, 1) then a product of it with x and 0.5
/// over one or two muls.
bool matchGelu(const Graph &G, Node &Erf, GeluMatch &M) {
  M.X = erfArgument(Erf);
  if (!M.X || !isInner(G, Erf.result()))
    return false;
  Node *Add = Erf.result()->uses().front().User;
  if (!Add->isOp("add") || Add->numOperands() != 2 ||
      !readFusedActivation(*Add).isNone() ||
      !isScalar(Add->operand(Add->operand(0) == Erf.result() ? 1 : 0), 1.0) ||
      !isInner(G, Add->result()))
    return false;
  // The product of Add's result with X and 0.5: walk up single-use muls,
  // collecting the other factors.
  std::vector<Value *> Factors;
  Node *Cur = Add;
  std::vector<Node *> Muls;
  while (Muls.size() < 2) {
    if (!isInner(G, Cur->result()))
      break;
    Node *Mul = Cur->result()->uses().front().User;
    if (!Mul->isOp("mul") || Mul->numOperands() != 2)
      break;
    Value *Other = Mul->operand(Mul->operand(0) == Cur->result() ? 1 : 0);
    Muls.push_back(Mul);
    Cur = Mul;
    // The other factor may itself be x * 0.5 (or 0.5 * x).
    const Node *OP = Other->producer();
    if (OP && OP->isOp("mul") && isInner(G, Other) && Muls.size() == 1) {
      Factors.push_back(OP->operand(0));
      Factors.push_back(OP->operand(1));
      M.Erased.push_back(const_cast<Node *>(OP));
      break;
    }
    Factors.push_back(Other);
  }
  if (Factors.size() != 2)
    return false;
  bool XThenHalf = Factors[0] == M.X && isScalar(Factors[1], 0.5);
  bool HalfThenX = Factors[1] == M.X && isScalar(Factors[0], 0.5);
  if (!XThenHalf && !HalfThenX)
    return false;
  M.Last = Muls.back();
  if (M.Last->result()->type() != M.X->type())
    return false;
  for (auto It = Muls.rbegin() + 1; It != Muls.rend(); ++It)
    M.Erased.push_back(*It);
  M.Erased.push_back(Add);
  M.Erased.push_back(&Erf);
  M.Erased.push_back(Erf.operand(0)->producer());
  return isInner(G, Erf.operand(0));
}

class FuseGelu : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    std::vector<Node *> Erfs;
    for (Node &N : G.nodes())
      if (N.isOp("erf"))
        Erfs.push_back(&N);
    bool Changed = false;
    for (Node *Erf : Erfs) {
      GeluMatch M;
      if (!matchGelu(G, *Erf, M))
        continue;
      Node *Gelu = G.createNode(OpRegistry::instance().get("gelu"), {M.X},
                                {M.X->type()}, {{"approximate", std::string("none")}},
                                M.Last);
      Gelu->setSources(M.Last->sources());
      for (Node *N : M.Erased)
        Gelu->addSources(*N);
      if (!canReplaceValue(G, M.Last->result(), Gelu->result())) {
        G.erase(Gelu);
        continue;
      }
      replaceValue(G, M.Last->result(), Gelu->result());
      std::vector<Value *> Constants;
      G.erase(M.Last);
      for (Node *N : M.Erased) {
        for (Value *V : N->operands())
          Constants.push_back(V);
        G.erase(N);
      }
      eraseUnusedConstants(G, Constants);
      Stats.add("fused");
      Changed = true;
    }
    return Changed;
  }
};

} // namespace

std::unique_ptr<Pass> createFuseGelu() { return std::make_unique<FuseGelu>(); }

} // namespace kiln
