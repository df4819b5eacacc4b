// kiln ops: lists the op registry: each op's operands, results, attributes
// (with kinds and defaults) and a one-line summary.
#include "Command.h"
#include "IR/FloatFormat.h"
#include "IR/OpRegistry.h"

#include "llvm/Support/raw_ostream.h"

#include <climits>

namespace kiln {

static std::string defaultText(const AttrSpec &A) {
  if (!A.Default)
    return "required";
  const AttrValue &V = *A.Default;
  switch (kindOf(V)) {
  case AttrKind::Int: return std::to_string(std::get<int64_t>(V));
  case AttrKind::Float: return formatDouble(std::get<double>(V));
  case AttrKind::String: return "\"" + std::get<std::string>(V) + "\"";
  case AttrKind::Ints: return std::get<std::vector<int64_t>>(V).empty() ? "[]" : "[...]";
  case AttrKind::Floats: return std::get<std::vector<double>>(V).empty() ? "[]" : "[...]";
  case AttrKind::Strings: return "[...]";
  case AttrKind::Tensor: return toString(std::get<Tensor>(V).type());
  }
  return "";
}

static std::string operandText(const OperandSpec &O) {
  return O.Name + (O.Optional ? "?" : "") + (O.Variadic ? "..." : "");
}

static std::string resultText(const OpDef &D) {
  if (D.MinResults == D.MaxResults)
    return std::to_string(D.MinResults);
  return std::to_string(D.MinResults) + "-" +
         (D.MaxResults > 1000 ? std::string("N") : std::to_string(D.MaxResults));
}

Command addOpsCommand(CLI::App &App) {
  auto Json = std::make_shared<bool>(false);
  CLI::App *Sub = App.add_subcommand("ops", "list the ops of the IR");
  Sub->add_flag("--json", *Json, "print JSON");
  return {Sub, [Json]() -> llvm::Error {
            auto Ops = OpRegistry::instance().all();
            if (*Json) {
              llvm::json::Array A;
              for (const OpDef *D : Ops) {
                llvm::json::Array Operands, Attrs;
                for (const OperandSpec &O : D->Operands)
                  Operands.push_back(llvm::json::Object{
                      {"name", O.Name}, {"optional", O.Optional},
                      {"variadic", O.Variadic}});
                for (const AttrSpec &S : D->Attrs)
                  Attrs.push_back(llvm::json::Object{
                      {"name", S.Name}, {"kind", attrKindName(S.Kind)},
                      {"default", defaultText(S)}});
                A.push_back(llvm::json::Object{
                    {"name", D->Name}, {"category", D->Category},
                    {"summary", D->Summary}, {"operands", std::move(Operands)},
                    {"results", resultText(*D)}, {"attributes", std::move(Attrs)}});
              }
              printJson(llvm::json::Object{{"ops", std::move(A)}});
              return llvm::Error::success();
            }
            commandOut() << Ops.size() << " ops\n";
            for (const OpDef *D : Ops) {
              commandOut() << D->Name << '(';
              for (size_t I = 0; I < D->Operands.size(); ++I)
                commandOut() << (I ? ", " : "") << operandText(D->Operands[I]);
              commandOut() << ") -> " << resultText(*D) << "  [" << D->Category
                           << "] " << D->Summary << '\n';
              for (const AttrSpec &S : D->Attrs)
                commandOut() << "    " << S.Name << ": " << attrKindName(S.Kind)
                             << " = " << defaultText(S)
                             << (S.Doc.empty() ? "" : "  (" + S.Doc + ")") << '\n';
            }
            return llvm::Error::success();
          }};
}

} // namespace kiln
