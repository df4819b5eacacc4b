// The sizes of a conv or conv_transpose: operands and attributes read and
// checked once per call, with messages that name the mismatch.
#include "Interpreter/kernels/ConvGeometry.h"

#include "IR/ShapeInference.h"
#include "Support/Error.h"

namespace kiln {

llvm::Expected<ConvGeom> readConvGeom(const KernelContext &Ctx,
                                      bool Transposed) {
  const Tensor &X = *Ctx.input(0), &Wt = *Ctx.input(1);
  std::vector<int64_t> XS = sizesOf(X), WS = sizesOf(Wt);
  if (XS.size() < 3 || WS.size() != XS.size())
    return inputError("input {0} and weight {1} must have the same rank >= 3",
                      toString(makeShape(XS)), toString(makeShape(WS)));
  if (Wt.type().Elem != X.type().Elem)
    return inputError("weight type {0} differs from input type {1}",
                      elementTypeName(Wt.type().Elem),
                      elementTypeName(X.type().Elem));
  size_t NS = XS.size() - 2;
  ConvGeom Gm;
  Gm.N = XS[0];
  Gm.C = XS[1];
  Gm.G = Ctx.N.getInt("group");
  Gm.In.assign(XS.begin() + 2, XS.end());
  Gm.K.assign(WS.begin() + 2, WS.end());
  if (Gm.G < 1 || Gm.C % Gm.G)
    return inputError("group={0} does not divide {1} input channels", Gm.G,
                      Gm.C);
  Gm.Cg = Gm.C / Gm.G;
  if (Transposed) {
    if (WS[0] != Gm.C)
      return inputError("weight has {0} input channels, input has {1}", WS[0],
                        Gm.C);
    Gm.Mg = WS[1];
    Gm.M = Gm.Mg * Gm.G;
  } else {
    if (WS[1] != Gm.Cg)
      return inputError("input has {0} channels but weight expects {1} x "
                        "group {2}",
                        Gm.C, WS[1], Gm.G);
    Gm.M = WS[0];
    if (Gm.M % Gm.G)
      return inputError("group={0} does not divide {1} output channels", Gm.G,
                        Gm.M);
    Gm.Mg = Gm.M / Gm.G;
  }
  auto Win = nn::readWindow(Ctx.N, NS, /*HasDilations=*/true);
  if (!Win)
    return Win.takeError();
  Gm.W = std::move(*Win);
  std::vector<int64_t> OutPad(NS, 0);
  if (Transposed) {
    auto OP = spatialAttr(Ctx.N, "output_padding", NS, 0);
    if (!OP)
      return OP.takeError();
    OutPad = *OP;
  }
  for (size_t D = 0; D < NS; ++D) {
    int64_t O = Transposed
                    ? Gm.W.Strides[D] * (Gm.In[D] - 1) + OutPad[D] +
                          (Gm.K[D] - 1) * Gm.W.Dilations[D] + 1 -
                          Gm.W.PadBegin[D] - Gm.W.PadEnd[D]
                    : slidingOutputSize(Gm.In[D], Gm.K[D], Gm.W.Strides[D],
                                        Gm.W.PadBegin[D], Gm.W.PadEnd[D],
                                        Gm.W.Dilations[D], false);
    if (O <= 0 || Gm.K[D] < 1)
      return inputError("kernel {0} does not fit input size {1} on spatial "
                        "axis {2}",
                        Gm.K[D], Gm.In[D], D);
    Gm.Out.push_back(O);
  }
  Gm.InP = nn::product(Gm.In, 0, NS);
  Gm.KP = nn::product(Gm.K, 0, NS);
  Gm.OutP = nn::product(Gm.Out, 0, NS);
  const Tensor *B = Ctx.input(2);
  if (B && B->numElements() != Gm.M)
    return inputError("bias has {0} values for {1} output channels",
                      B->numElements(), Gm.M);
  return Gm;
}

std::vector<int64_t> convOutputSizes(const ConvGeom &Gm) {
  std::vector<int64_t> S = {Gm.N, Gm.M};
  S.insert(S.end(), Gm.Out.begin(), Gm.Out.end());
  return S;
}

} // namespace kiln
