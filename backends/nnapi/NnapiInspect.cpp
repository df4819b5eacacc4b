#include "backends/nnapi/NnapiInspect.h"

#include "backends/nnapi/NnapiDescribe.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

#include <map>

namespace kiln {

namespace {

struct NnapiTotals {
  std::map<std::string, int64_t> Operations;
  int64_t Constants = 0, InlineBytes = 0, SegmentConstants = 0;
};

NnapiTotals totals(const fb::NnapiPayloadT &P) {
  NnapiTotals T;
  for (const auto &Op : P.operations) {
    const nnapi::OperationInfo *I = nnapi::findOperation(Op->type);
    T.Operations[I ? I->Name : "?" + std::to_string(Op->type)] += 1;
  }
  for (const auto &O : P.operands) {
    if (O->source == fb::NnapiValueSource::INLINE) {
      ++T.Constants;
      T.InlineBytes += int64_t(O->value.size());
    } else if (O->source == fb::NnapiValueSource::SEGMENT) {
      ++T.Constants;
      ++T.SegmentConstants;
    }
  }
  return T;
}

std::string operatorName(const fb::ModelT &M, int32_t Op) {
  return Op >= 0 && size_t(Op) < M.operators.size() ? M.operators[size_t(Op)]->name
                                                     : "";
}

} // namespace

std::string nnapiTextSection(const fb::ModelT &M, bool Detail) {
  const fb::NnapiPayloadT *P = M.payload.AsNnapiPayload();
  if (!P)
    return "";
  NnapiTotals T = totals(*P);
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  OS << "nnapi:\n  feature level:  " << P->feature_level
     << (P->feature_level >= nnapi::FeatureLevel6
             ? " (NNAPI feature level 6, Android 13)\n"
             : " (Android API level)\n")
     << "  computation:    "
     << (P->relax_fp32_to_fp16 ? "fp32 relaxed to fp16" : "as the operands")
     << "\n  operations:     " << P->operations.size() << "\n";
  for (const auto &[Name, N] : T.Operations)
    OS << llvm::formatv("    {0,-26} {1,5}\n", Name, N);
  OS << "  operands:       " << P->operands.size() << " (" << T.Constants
     << " constants: " << T.SegmentConstants << " in weight segments, "
     << (T.Constants - T.SegmentConstants) << " inline, " << T.InlineBytes
     << " bytes)\n  model inputs:   ";
  for (size_t I = 0; I < P->inputs.size(); ++I)
    OS << (I ? ", " : "") << nnapi::describeOperand(*P, P->inputs[I]);
  OS << "\n  model outputs:  ";
  for (size_t I = 0; I < P->outputs.size(); ++I)
    OS << (I ? ", " : "") << nnapi::describeOperand(*P, P->outputs[I]);
  OS << "\n  on the host:    " << P->host_before.size() << " before, "
     << P->host_after.size() << " after (kiln operators";
  for (uint32_t H : P->host_before)
    OS << " " << H;
  if (!P->host_after.empty())
    OS << ";";
  for (uint32_t H : P->host_after)
    OS << " " << H;
  OS << ")\n  operations (NNAPI order):\n";
  size_t Limit = Detail ? P->operations.size()
                        : std::min(P->operations.size(), NnapiOperationListLimit);
  for (size_t I = 0; I < Limit; ++I) {
    const fb::NnapiOperationT &Op = *P->operations[I];
    OS << llvm::formatv("  {0,4} ", I) << nnapi::describeOperation(*P, Op);
    if (Op.operator_ >= 0)
      OS << "  [" << Op.operator_ << " " << operatorName(M, Op.operator_)
         << "]";
    OS << "\n";
  }
  if (Limit < P->operations.size())
    OS << "  ... " << (P->operations.size() - Limit)
       << " more (--nodes lists every operation)\n";
  return OS.str();
}

llvm::json::Value nnapiJsonSection(const fb::ModelT &M) {
  const fb::NnapiPayloadT *P = M.payload.AsNnapiPayload();
  if (!P)
    return nullptr;
  NnapiTotals T = totals(*P);
  llvm::json::Object Counts;
  for (const auto &[Name, N] : T.Operations)
    Counts[Name] = N;
  llvm::json::Array Operands, Operations;
  for (const auto &O : P->operands) {
    const nnapi::OperationInfo *Ty = nnapi::findOperandType(O->type);
    llvm::json::Object J{
        {"type", Ty ? Ty->Name : "?"},
        {"dimensions", llvm::json::Array(O->dimensions)},
        {"source", fb::EnumNameNnapiValueSource(O->source)}};
    if (O->scale != 0)
      J["scale"] = O->scale;
    if (O->zero_point != 0)
      J["zero_point"] = O->zero_point;
    if (!O->channel_scales.empty()) {
      J["channel_dim"] = int64_t(O->channel_dim);
      J["channel_scales"] = int64_t(O->channel_scales.size());
    }
    if (O->segment >= 0)
      J["segment"] = O->segment;
    if (O->tensor >= 0)
      J["tensor"] = O->tensor;
    Operands.push_back(std::move(J));
  }
  for (const auto &Op : P->operations) {
    const nnapi::OperationInfo *I = nnapi::findOperation(Op->type);
    Operations.push_back(llvm::json::Object{
        {"type", I ? I->Name : "?"},
        {"inputs", llvm::json::Array(Op->inputs)},
        {"outputs", llvm::json::Array(Op->outputs)},
        {"operator", Op->operator_},
        {"name", operatorName(M, Op->operator_)}});
  }
  return llvm::json::Object{
      {"feature_level", P->feature_level},
      {"relax_fp32_to_fp16", P->relax_fp32_to_fp16},
      {"operation_counts", std::move(Counts)},
      {"operations", std::move(Operations)},
      {"operands", std::move(Operands)},
      {"inputs", llvm::json::Array(P->inputs)},
      {"outputs", llvm::json::Array(P->outputs)},
      {"host_before", llvm::json::Array(P->host_before)},
      {"host_after", llvm::json::Array(P->host_after)}};
}

} // namespace kiln
