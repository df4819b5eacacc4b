// libtorch tensors and source ranges as kiln sees them: element types, weights
// aliased (not copied) into IR constants, and Python source locations.
#include "frontends/torchscript/TsConverter.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <torch/csrc/jit/frontend/source_range.h>

#include <regex>

namespace kiln::ts_import {

std::optional<ElementType> toElementType(c10::ScalarType S) {
  switch (S) {
  case c10::ScalarType::Float: return ElementType::F32;
  case c10::ScalarType::Half: return ElementType::F16;
  case c10::ScalarType::BFloat16: return ElementType::BF16;
  case c10::ScalarType::Double: return ElementType::F64;
  case c10::ScalarType::Long: return ElementType::I64;
  case c10::ScalarType::Int: return ElementType::I32;
  case c10::ScalarType::Short: return ElementType::I16;
  case c10::ScalarType::Char: return ElementType::I8;
  case c10::ScalarType::Byte: return ElementType::U8;
  case c10::ScalarType::Bool: return ElementType::Bool;
  default: return std::nullopt;
  }
}

c10::ScalarType toScalarType(ElementType E) {
  switch (E) {
  case ElementType::F32: return c10::ScalarType::Float;
  case ElementType::F16: return c10::ScalarType::Half;
  case ElementType::BF16: return c10::ScalarType::BFloat16;
  case ElementType::F64: return c10::ScalarType::Double;
  case ElementType::I64: return c10::ScalarType::Long;
  case ElementType::I32: return c10::ScalarType::Int;
  case ElementType::I16: return c10::ScalarType::Short;
  case ElementType::I8: return c10::ScalarType::Char;
  case ElementType::U8: return c10::ScalarType::Byte;
  case ElementType::Bool: return c10::ScalarType::Bool;
  default: return c10::ScalarType::Undefined;
  }
}

llvm::Expected<Tensor> toKilnTensor(const at::Tensor &T) {
  if (!T.defined())
    return inputError("an undefined tensor constant");
  if (T.is_quantized() || T.is_sparse() || !T.device().is_cpu())
    return inputError("a {0} tensor constant is not supported (only dense CPU "
                      "tensors)",
                      T.is_quantized() ? "quantized"
                      : T.is_sparse()  ? "sparse"
                                       : "non-CPU");
  auto E = toElementType(T.scalar_type());
  if (!E)
    return inputError("tensor element type {0} is not supported",
                      c10::toString(T.scalar_type()));
  auto Owner = std::make_shared<at::Tensor>(T.contiguous());
  Shape Dims;
  for (int64_t D : Owner->sizes())
    Dims.push_back(Dim(D));
  const auto *Data = static_cast<const uint8_t *>(Owner->data_ptr());
  size_t Bytes = size_t(Owner->numel()) * Owner->element_size();
  if (Bytes == 0)
    return Tensor(TensorType(*E, std::move(Dims)), Buffer());
  return Tensor(TensorType(*E, std::move(Dims)),
                Buffer::alias(std::shared_ptr<const void>(Owner, Owner.get()),
                              Data, Bytes));
}

/// Traced graphs record the Python stack as text, innermost frame first:
/// "model.py(12): forward\n.../torch/nn/modules/module.py(1182): ...".
static std::string tracedLocation(llvm::StringRef Stack) {
  static const std::regex Frame(R"(^(.*)\((\d+)\): (\S+)$)");
  llvm::SmallVector<llvm::StringRef, 8> Lines;
  Stack.split(Lines, '\n', -1, false);
  for (llvm::StringRef L : Lines) {
    std::smatch M;
    std::string S = L.trim().str();
    if (!std::regex_match(S, M, Frame))
      continue;
    if (llvm::StringRef(M[1].str()).contains("/torch/"))
      continue; // torch's own frames (Module._call_impl...)
    return M[1].str() + ":" + M[2].str() + " (in " + M[3].str() + ")";
  }
  return "";
}

std::string pythonLocation(const torch::jit::Node *N) {
  const torch::jit::SourceRange &R = N->sourceRange();
  if (!R.source())
    return "";
  // Scripted code: the range that generated the serialized code points at
  // the original Python file.
  if (auto Orig = R.findSourceRangeThatGenerated()) {
    std::string Traced = tracedLocation(Orig->text().str());
    if (!Traced.empty())
      return Traced;
    if (auto FLC = Orig->file_line_col()) {
      const auto &[File, Line, Col] = *FLC;
      std::string Text = Orig->source()->get_line(
          Orig->source()->lineno_for_offset(Orig->start())).str();
      std::string Loc = File + ":" + std::to_string(Line);
      llvm::StringRef Trimmed = llvm::StringRef(Text).trim();
      if (!Trimmed.empty())
        Loc += " (`" + Trimmed.str() + "`)";
      (void)Col;
      return Loc;
    }
  }
  std::string Traced = tracedLocation(R.text().str());
  if (!Traced.empty())
    return Traced;
  if (auto FLC = R.file_line_col())
    return std::get<0>(*FLC) + ":" + std::to_string(std::get<1>(*FLC));
  return "";
}

} // namespace kiln::ts_import
