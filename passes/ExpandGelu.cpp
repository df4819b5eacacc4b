// expand-gelu: gelu for targets without a GELU or erf operation (NNAPI).
// The exact form, x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2)), is written with
// erf's odd symmetry and Abramowitz & Stegun's formula 7.1.26
// (erf(a) = 1 - t (a1 + t (a2 + t (a3 + t (a4 + t a5)))) exp(-a^2),
// t = 1 / (1 + p a), a >= 0; absolute error below 1.5e-7):
//   gelu(x) = relu(x) - 0.5 |x| t (a1 + ...) exp(-x^2 / 2),
//   t = 1 / (1 + p |x| / sqrt 2), |x| t written as 1 / (1/|x| + p / sqrt 2)
// so that x = +-inf gives +inf / 0, not NaN
// so no sign or select is needed: relu, abs, mul, add, div and exp only.
// Its error against the exact GELU is at most 0.5 |x| * 1.5e-7, about
// float32's own rounding. approximate = "tanh" is written as defined:
//   0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
#include "passes/NodeBuilder.h"
#include "passes/Pass.h"
#include "passes/ValueReplacement.h"

#include <cmath>

namespace kiln {

namespace {

Value *expandExact(NodeBuilder &B, Value *X, ElementType E) {
  const double P = 0.3275911;
  const double A[] = {0.254829592, -0.284496736, 1.421413741, -1.453152027,
                      1.061405429};
  auto C = [&](double V) { return B.scalar(E, V); };
  Value *Abs = B.op("abs", {X});
  const double Q = P / std::sqrt(2.0);
  Value *T = B.op("div", {C(1.0), B.op("add", {C(1.0), B.op("mul", {Abs, C(Q)})})});
  // |x| t as 1 / (1/|x| + q): finite at |x| = inf (where |x| * t would be
  // inf * 0) and 0 at x = 0 (1/0 = inf).
  Value *AbsT = B.op("div", {C(1.0), B.op("add", {B.op("div", {C(1.0), Abs}), C(Q)})});
  Value *Poly = C(A[4]);
  for (int I = 3; I >= 0; --I)
    Poly = B.op("add", {C(A[I]), B.op("mul", {T, Poly})});
  Value *Gauss = B.op("exp", {B.op("mul", {B.op("mul", {X, X}), C(-0.5)})});
  Value *Tail = B.op("mul", {B.op("mul", {AbsT, C(0.5)}), B.op("mul", {Poly, Gauss})});
  return B.op("sub", {B.op("relu", {X}), Tail});
}

Value *expandTanh(NodeBuilder &B, Value *X, ElementType E) {
  auto C = [&](double V) { return B.scalar(E, V); };
  Value *Cube = B.op("mul", {B.op("mul", {X, X}), X});
  Value *Inner = B.op("mul", {B.op("add", {X, B.op("mul", {Cube, C(0.044715)})}),
                              C(std::sqrt(2.0 / M_PI))});
  Value *Half = B.op("mul", {X, C(0.5)});
  return B.op("mul", {Half, B.op("add", {C(1.0), B.op("tanh", {Inner})})});
}

class ExpandGelu : public Pass {
public:
  llvm::Expected<bool> run(Graph &G, PassStats &Stats) override {
    std::vector<Node *> Matches;
    for (Node &N : G.nodes())
      if (N.isOp("gelu") && isFloatType(N.operand(0)->type().Elem) &&
          !N.operand(0)->type().Quant)
        Matches.push_back(&N);
    bool Changed = false;
    for (Node *N : Matches) {
      NodeBuilder B(G, *N);
      ElementType E = N->operand(0)->type().Elem;
      bool Tanh = N->getString("approximate") == "tanh";
      Value *Y = Tanh ? expandTanh(B, N->operand(0), E)
                      : expandExact(B, N->operand(0), E);
      if (llvm::Error Err = B.takeError())
        return Err;
      if (!canReplaceValue(G, N->result(), Y))
        continue;
      replaceValue(G, N->result(), Y);
      G.erase(N);
      Stats.add(Tanh ? "expanded-tanh" : "expanded-exact");
      Changed = true;
    }
    return Changed;
  }
};

} // namespace

std::unique_ptr<Pass> createExpandGelu() {
  return std::make_unique<ExpandGelu>();
}

} // namespace kiln
