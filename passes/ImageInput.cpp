#include "passes/ImageInput.h"

#include "IR/OpRegistry.h"
#include "Support/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

namespace kiln {

using numerics::PixelFormat;

llvm::Expected<ImageInputSpec> parseImageInputFlag(llvm::StringRef Text) {
  auto [Name, Format] = Text.split('=');
  ImageInputSpec S;
  S.Input = Name.str();
  S.Format = numerics::parsePixelFormat(std::string_view(Format.data(),
                                                         Format.size()));
  if (Name.empty() || S.Format == PixelFormat::Unknown)
    return usageError("--image-input takes NAME=FORMAT, FORMAT one of rgb8, "
                      "bgr8, rgba8, bgra8, gray8, nv21; got '{0}'",
                      Text);
  return S;
}

namespace {

llvm::Error checkChannelValues(const ImageInputSpec &S, llvm::StringRef Flag,
                               const std::vector<double> &V, int64_t C) {
  if (V.size() != 1 && V.size() != size_t(C))
    return usageError("{0} needs 1 or {1} values for image input '{2}', got "
                      "{3}",
                      Flag, C, S.Input, V.size());
  for (double X : V)
    if (!std::isfinite(X) || (Flag == "--std" && X == 0))
      return usageError("{0} for image input '{1}' must be finite{2}, got {3}",
                        Flag, S.Input, Flag == "--std" ? " and non-zero" : "",
                        X);
  return llvm::Error::success();
}

} // namespace

llvm::Error attachImageInput(Graph &G, const ImageInputSpec &S) {
  Value *In = nullptr;
  std::vector<std::string> Names;
  for (Value *V : G.inputs()) {
    Names.push_back("'" + V->name() + "'");
    if (V->name() == S.Input)
      In = V;
  }
  if (!In)
    return usageError("--image-input: the model has no input '{0}' (its "
                      "inputs: {1})",
                      S.Input, llvm::join(Names, ", "));
  const TensorType T = In->type();
  auto bad = [&](llvm::StringRef Why) {
    return usageError("--image-input: input '{0}' is {1}; an image input must "
                      "be a float image [N, C, H, W] {2}",
                      S.Input, toString(T), Why);
  };
  if (!isFloatType(T.Elem) || T.rank() != 4)
    return bad("");
  if (!T.Dims[1].isStatic() || !T.Dims[2].isStatic() || !T.Dims[3].isStatic())
    return bad("with static C, H and W (fix them with --input-shape)");
  int64_t C = T.Dims[1].size(), H = T.Dims[2].size(), W = T.Dims[3].size();
  if (C != 1 && C != 3)
    return bad("of 1 or 3 channels");
  if (S.Format == PixelFormat::Nv21 && (H % 2 || W % 2))
    return bad("of even height and width for nv21");
  if (G.isOutput(In))
    return bad("that is not also an output");
  if (auto E = checkChannelValues(S, "--mean", S.Mean, C)) return E;
  if (auto E = checkChannelValues(S, "--std", S.Std, C)) return E;

  std::vector<Use> Uses(In->uses().begin(), In->uses().end());
  In->setType(TensorType(ElementType::U8,
                         {T.Dims[0], Dim(numerics::frameRows(S.Format, H)),
                          Dim(W), Dim(numerics::pixelBytes(S.Format))}));
  std::vector<double> Scale;
  for (double X : S.Std)
    Scale.push_back(1.0 / X);
  AttrMap Attrs;
  Attrs["format"] = std::string(numerics::pixelFormatName(S.Format));
  Attrs["channels"] = C;
  Attrs["channel_order"] = S.ChannelOrder;
  Attrs["mean"] = S.Mean;
  Attrs["scale"] = Scale;
  Attrs["input_std"] = S.Std;
  Node *First = G.nodes().empty() ? nullptr : &G.nodes().front();
  auto P = createInferred(G, "pixels_to_tensor", {In}, std::move(Attrs), 1,
                          First);
  if (!P)
    return addContext(P.takeError(), "--image-input " + S.Input);
  (*P)->setSources({S.Input});
  Value *Image = (*P)->result();
  Image->setName(S.Input + "_image");
  // The frame's image, as float, goes where the float input went (a model
  // of f16 inputs reads it through a cast).
  if (T.Elem != ElementType::F32) {
    auto Cast = createInferred(G, "cast", {Image},
                               {{"to", elementTypeName(T.Elem).str()}}, 1,
                               First);
    if (!Cast)
      return Cast.takeError();
    Image = (*Cast)->result();
  }
  for (const Use &U : Uses)
    U.User->setOperand(U.Index, Image);
  return llvm::Error::success();
}

} // namespace kiln

namespace kiln {

llvm::Error attachArgmaxOutput(Graph &G, llvm::StringRef Output) {
  llvm::ArrayRef<Value *> Outs = G.outputs();
  std::vector<std::string> Names;
  for (unsigned I = 0; I < Outs.size(); ++I) {
    Names.push_back("'" + Outs[I]->name() + "'");
    if (Outs[I]->name() != Output)
      continue;
    Value *Scores = Outs[I];
    const TensorType &T = Scores->type();
    if (!isFloatType(T.Elem) || T.rank() != 4 || !T.Dims[1].isStatic() ||
        T.Dims[1].size() > 256)
      return usageError("--argmax-output: output '{0}' is {1}; it must be "
                        "float scores [N, C, H, W] with at most 256 classes",
                        Output, toString(T));
    auto Arg = createInferred(G, "argmax", {Scores},
                              {{"axis", int64_t(1)}, {"keepdims", int64_t(0)}});
    if (!Arg)
      return Arg.takeError();
    auto Mask = createInferred(G, "cast", {(*Arg)->result()},
                               {{"to", std::string("u8")}});
    if (!Mask)
      return Mask.takeError();
    (*Arg)->setSources({Output.str() + "_argmax"});
    (*Mask)->setSources({Output.str() + "_argmax"});
    // The output keeps its name; the scores become an intermediate.
    (*Mask)->result()->setName(Output.str());
    Scores->setName(Output.str() + "_scores");
    G.setOutput(I, (*Mask)->result());
    return llvm::Error::success();
  }
  return usageError("--argmax-output: the model has no output '{0}' (its "
                    "outputs: {1})",
                    Output, llvm::join(Names, ", "));
}

} // namespace kiln
