#include "frontends/onnx/OnnxGuardedInference.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

namespace kiln::onnx_import {

namespace {

/// The input that holds the weight of a convolution, or -1 for the pools.
int weightInput(const std::string &Op) {
  if (Op == "Conv" || Op == "ConvTranspose" || Op == "ConvInteger")
    return 1;
  if (Op == "QLinearConv")
    return 3;
  return -1;
}

bool isGuarded(const std::string &Op) {
  return weightInput(Op) >= 0 || Op == "MaxPool" || Op == "AveragePool" ||
         Op == "LpPool" || Op == "MaxUnpool";
}

const onnx::TensorShapeProto *shapeOf(onnx::InferenceContext &Ctx, size_t I) {
  if (I >= Ctx.getNumInputs())
    return nullptr;
  const onnx::TypeProto *T = Ctx.getInputType(I);
  if (!T || !T->has_tensor_type() || !T->tensor_type().has_shape())
    return nullptr;
  return &T->tensor_type().shape();
}

/// What libonnx's convPoolShapeInference and convTransposeShapeInference
/// index without checking: the weight's rank against the input's, and the
/// lengths of the per-axis attributes against the spatial rank.
void checkRanks(onnx::InferenceContext &Ctx, const std::string &Op) {
  const onnx::TensorShapeProto *X = shapeOf(Ctx, 0);
  if (!X)
    return; // libonnx infers nothing without the input's shape
  int Rank = X->dim_size();
  if (Rank < 2)
    fail_shape_inference(Op, ": input has rank ", Rank,
                         "; expected batch, channels and spatial axes");
  int Weight = weightInput(Op);
  if (Weight >= 0)
    if (const onnx::TensorShapeProto *W = shapeOf(Ctx, size_t(Weight)))
      if (W->dim_size() != Rank)
        fail_shape_inference(Op, ": weight has rank ", W->dim_size(),
                             " but the input has rank ", Rank);
  size_t Spatial = size_t(Rank - 2);
  struct PerAxis {
    const char *Name;
    size_t Expected;
  };
  for (PerAxis A : {PerAxis{"kernel_shape", Spatial}, {"strides", Spatial},
                    {"dilations", Spatial}, {"output_padding", Spatial},
                    {"output_shape", Spatial}, {"pads", 2 * Spatial}}) {
    const onnx::AttributeProto *Attr = Ctx.getAttribute(A.Name);
    if (Attr && size_t(Attr->ints_size()) != A.Expected)
      fail_shape_inference(Op, ": attribute '", A.Name, "' has ",
                           Attr->ints_size(), " values; the input's ",
                           Spatial, " spatial axes need ", A.Expected);
  }
}

class GuardedRegistry final : public onnx::ISchemaRegistry {
public:
  const onnx::OpSchema *GetSchema(const std::string &Key, const int MaxVersion,
                                  const std::string &Domain) const override {
    const onnx::OpSchema *S =
        onnx::OpSchemaRegistry::Instance()->GetSchema(Key, MaxVersion, Domain);
    if (!S || !isGuarded(Key) || !(Domain.empty() || Domain == "ai.onnx"))
      return S;
    std::lock_guard<std::mutex> Lock(M);
    auto &Slot = Guarded[{Key, S->SinceVersion(), Domain}];
    if (!Slot) {
      Slot = std::make_unique<onnx::OpSchema>(*S);
      onnx::InferenceFunction Infer = S->GetTypeAndShapeInferenceFunction();
      Slot->TypeAndShapeInferenceFunction(
          [Infer, Key](onnx::InferenceContext &Ctx) {
            checkRanks(Ctx, Key);
            if (Infer)
              Infer(Ctx);
          });
    }
    return Slot.get();
  }

private:
  mutable std::mutex M;
  mutable std::map<std::tuple<std::string, int, std::string>,
                   std::unique_ptr<onnx::OpSchema>>
      Guarded;
};

} // namespace

const onnx::ISchemaRegistry *guardedSchemaRegistry() {
  static const GuardedRegistry *R = new GuardedRegistry;
  return R;
}

} // namespace kiln::onnx_import
