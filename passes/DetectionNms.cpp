#include "passes/DetectionNms.h"

#include "IR/OpRegistry.h"
#include "Support/Error.h"
#include "passes/NodeBuilder.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>

namespace kiln {

llvm::Expected<NmsSpec> parseNmsFlag(llvm::StringRef Text) {
  NmsSpec S;
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Text.split(Parts, ',', -1, false);
  for (llvm::StringRef Part : Parts) {
    auto [Key, Value] = Part.split('=');
    Key = Key.trim();
    Value = Value.trim();
    if (Key == "output") {
      if (Value.empty())
        return usageError("--nms: output= needs an output name");
      S.Output = Value.str();
      continue;
    }
    if (Key == "max") {
      long long Max = 0;
      if (Value.getAsInteger(10, Max) || Max < 1 || Max > 100000)
        return usageError("--nms: max must be a whole number in [1, 100000], "
                          "got '{0}'", Value);
      S.Max = Max;
      continue;
    }
    double *Into = Key == "iou" ? &S.Iou : Key == "score" ? &S.Score : nullptr;
    if (!Into)
      return usageError("--nms: unknown key '{0}' (keys: iou, score, max, "
                        "output)", Key);
    if (Value.getAsDouble(*Into) || !std::isfinite(*Into) ||
        (Key == "iou" && (*Into < 0 || *Into > 1)))
      return usageError("--nms: {0} must be a number{1}, got '{2}'", Key,
                        Key == "iou" ? " in [0, 1]" : "", Value);
  }
  return S;
}

namespace {

llvm::Expected<unsigned> findOutput(const Graph &G, const NmsSpec &S) {
  llvm::ArrayRef<Value *> Outs = G.outputs();
  std::vector<std::string> Names;
  for (const Value *V : Outs)
    Names.push_back("'" + V->name() + "'");
  if (S.Output.empty()) {
    if (Outs.size() == 1)
      return 0u;
    return usageError("--nms: the model has {0} outputs ({1}); name the "
                      "detections with output=NAME",
                      Outs.size(), llvm::join(Names, ", "));
  }
  for (unsigned I = 0; I < Outs.size(); ++I)
    if (Outs[I]->name() == S.Output)
      return I;
  return usageError("--nms: the model has no output '{0}' (its outputs: {1})",
                    S.Output, llvm::join(Names, ", "));
}

} // namespace

llvm::Error attachNms(Graph &G, const NmsSpec &S) {
  auto Index = findOutput(G, S);
  if (!Index)
    return Index.takeError();
  Value *Pred = G.outputs()[*Index];
  const TensorType &T = Pred->type();
  if (T.Elem != ElementType::F32 || T.rank() != 3 || !T.Dims[2].isStatic() ||
      T.Dims[2].size() < 6)
    return usageError("--nms: output '{0}' is {1}; it must be f32[N, boxes, "
                      "5 + classes] (cx, cy, w, h, objectness, class scores)",
                      Pred->name(), toString(T));
  for (llvm::StringRef Name : {"boxes", "scores", "labels", "count"})
    for (const Value *Out : G.outputs())
      if (Out != Pred && Out->name() == Name)
        return usageError("--nms: the model already has an output '{0}'", Name);
  int64_t Width = T.Dims[2].size();
  // The new nodes go at the end, after the output's producer.
  auto Slice = [&](int64_t From, int64_t To) -> llvm::Expected<Value *> {
    Value *Starts = G.createConstant(
        Tensor::fromValues<int64_t>(ElementType::I64, {Dim(1)}, {From}), "");
    Value *Ends = G.createConstant(
        Tensor::fromValues<int64_t>(ElementType::I64, {Dim(1)}, {To}), "");
    Value *Axes = G.createConstant(
        Tensor::fromValues<int64_t>(ElementType::I64, {Dim(1)}, {2}), "");
    auto N = createInferred(G, "slice", {Pred, Starts, Ends, Axes});
    if (!N)
      return N.takeError();
    (*N)->setSources({"nms"});
    return (*N)->result();
  };
  auto Box = Slice(0, 4);
  if (!Box)
    return Box.takeError();
  auto Obj = Slice(4, 5);
  if (!Obj)
    return Obj.takeError();
  auto Cls = Slice(5, Width);
  if (!Cls)
    return Cls.takeError();
  auto Conf = createInferred(G, "mul", {*Cls, *Obj});
  if (!Conf)
    return Conf.takeError();
  (*Conf)->setSources({"nms"});
  auto Nms = createInferred(
      G, "box_nms", {*Box, (*Conf)->result()},
      {{"box_format", std::string("cxcywh")},
       {"iou_threshold", S.Iou},
       {"score_threshold", S.Score},
       {"max_detections", S.Max}},
      4);
  if (!Nms)
    return Nms.takeError();
  (*Nms)->setSources({"nms"});
  Pred->setName(Pred->name() + "_raw");
  const char *Names[] = {"boxes", "scores", "labels", "count"};
  for (unsigned R = 0; R < 4; ++R)
    (*Nms)->result(R)->setName(Names[R]);
  G.setOutput(*Index, (*Nms)->result(0));
  for (unsigned R = 1; R < 4; ++R)
    G.addOutput((*Nms)->result(R));
  return llvm::Error::success();
}

} // namespace kiln
