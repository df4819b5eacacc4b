// Running one ONNX node test folder through the ONNX importer and the
// reference interpreter, and comparing with the expected outputs.
#include "NodeTest.h"


#include "Interpreter/Interpreter.h"
#include "frontends/onnx/OnnxImporter.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kiln::conformance {

static std::string firstLine(llvm::Error E) {
  std::string S = llvm::toString(std::move(E));
  // Drop the model path (the test name says it) and keep one line; a line
  // that announces a list ("...:") keeps its first entry.
  size_t P = S.find("model.onnx: ");
  if (P != std::string::npos && P < S.find('\n'))
    S = S.substr(P + 12);
  size_t NL = S.find('\n');
  if (NL != std::string::npos && NL > 0 && S[NL - 1] == ':') {
    size_t Next = S.find('\n', NL + 1);
    std::string Entry = S.substr(NL + 1, Next - NL - 1);
    size_t Q = Entry.find("model.onnx: ");
    if (Q != std::string::npos)
      Entry = Entry.substr(Q + 12);
    S = S.substr(0, NL) + " " + Entry + (Next == std::string::npos ? "" : " [...]");
    return S;
  }
  return NL == std::string::npos ? S : S.substr(0, NL) + " [...]";
}

std::string compareTensors(const Tensor &Actual, const Tensor &Expected,
                           const Tolerance &Tol) {
  const TensorType &A = Actual.type(), &E = Expected.type();
  if (A.Elem != E.Elem)
    return llvm::formatv("dtype {0}, expected {1}", elementTypeName(A.Elem),
                         elementTypeName(E.Elem));
  if (A.Dims != E.Dims)
    return llvm::formatv("shape {0}, expected {1}", toString(A.Dims),
                         toString(E.Dims));
  int64_t N = Expected.numElements();
  if (Actual.buffer().size() != Expected.buffer().size())
    return llvm::formatv("{0} bytes of data, expected {1}",
                         Actual.buffer().size(), Expected.buffer().size());
  bool IsFloat = isFloatType(E.Elem);
  int64_t Bad = 0, FirstBad = -1;
  for (int64_t I = 0; I < N; ++I) {
    bool Ok;
    if (IsFloat) {
      double X = Actual.asDouble(I), Y = Expected.asDouble(I);
      if (std::isnan(X) || std::isnan(Y))
        Ok = std::isnan(X) && std::isnan(Y);
      else if (std::isinf(X) || std::isinf(Y))
        Ok = X == Y;
      else
        Ok = std::fabs(X - Y) <= Tol.ATol + Tol.RTol * std::fabs(Y);
    } else {
      size_t Size = elementSize(E.Elem);
      Ok = std::memcmp(Actual.buffer().data() + I * Size,
                       Expected.buffer().data() + I * Size, Size) == 0;
    }
    if (!Ok && Bad++ == 0)
      FirstBad = I;
  }
  if (Bad == 0)
    return "";
  return llvm::formatv("{0} of {1} values differ; first at flat index {2}: "
                       "{3} vs expected {4}",
                       Bad, N, FirstBad, Actual.asDouble(FirstBad),
                       Expected.asDouble(FirstBad));
}

/// prefix_0.pb, prefix_1.pb, ... in index order, stopping at the first gap.
static std::vector<std::string> numberedFiles(llvm::StringRef Dir,
                                              llvm::StringRef Prefix) {
  std::vector<std::string> Out;
  for (unsigned I = 0;; ++I) {
    llvm::SmallString<256> P(Dir);
    llvm::sys::path::append(P, Prefix + "_" + std::to_string(I) + ".pb");
    if (!llvm::sys::fs::exists(P))
      return Out;
    Out.push_back(std::string(P));
  }
}

/// ONNX 1.12's test generator stores bfloat16 tensors as UINT16 bit patterns;
/// read them back as the bf16 the model declares.
static Tensor asBf16IfStoredAsU16(Tensor T, ElementType Wanted) {
  if (Wanted == ElementType::BF16 && T.type().Elem == ElementType::U16)
    return Tensor(TensorType(ElementType::BF16, T.type().Dims), T.buffer());
  return T;
}

/// Runs one data set on G and compares; "" on success.
static std::string runOnGraph(const Graph &G, const std::string &Tag,
                              std::vector<Tensor> Inputs,
                              std::vector<Tensor> Expected,
                              const Tolerance &Tol) {
  if (Inputs.size() != G.numInputs())
    return llvm::formatv("{0}: {1} input files for {2} graph inputs", Tag,
                         Inputs.size(), G.numInputs());
  if (Expected.size() != G.outputs().size())
    return llvm::formatv("{0}: {1} output files for {2} graph outputs", Tag,
                         Expected.size(), G.outputs().size());
  for (size_t I = 0; I < Inputs.size(); ++I)
    Inputs[I] = asBf16IfStoredAsU16(std::move(Inputs[I]),
                                    G.input(unsigned(I))->type().Elem);
  for (size_t I = 0; I < Expected.size(); ++I)
    Expected[I] = asBf16IfStoredAsU16(std::move(Expected[I]),
                                      G.outputs()[I]->type().Elem);
  InterpreterOptions IO;
  IO.Threads = 1;
  Interpreter Interp(G, IO);
  auto Out = Interp.run(Inputs);
  if (!Out)
    return "run: " + firstLine(Out.takeError());
  for (size_t I = 0; I < Expected.size(); ++I) {
    std::string Why = compareTensors((*Out)[I], Expected[I], Tol);
    if (!Why.empty())
      return llvm::formatv("{0}: output {1} ('{2}'): {3}", Tag, I,
                           G.outputs()[I]->name(), Why);
  }
  return "";
}

/// Runs a data set on the imported graph (G, or ImportError).
static std::string runDataSet(const Graph *G, const std::string &ImportError,
                              const std::string &Tag, std::vector<Tensor> Inputs,
                              std::vector<Tensor> Expected,
                              const Tolerance &Tol) {
  return G ? runOnGraph(*G, Tag, std::move(Inputs), std::move(Expected), Tol)
           : ImportError;
}

std::string runNodeTest(llvm::StringRef Folder, const Tolerance &Tol) {
  llvm::SmallString<256> ModelPath(Folder);
  llvm::sys::path::append(ModelPath, "model.onnx");
  auto G = importOnnxFile(ModelPath);
  std::string ImportError;
  if (!G)
    ImportError = "import: " + firstLine(G.takeError());

  std::vector<std::string> DataSets;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Folder, EC), End; It != End && !EC;
       It.increment(EC))
    if (llvm::sys::path::filename(It->path()).startswith("test_data_set_"))
      DataSets.push_back(It->path());
  std::sort(DataSets.begin(), DataSets.end());
  if (DataSets.empty())
    return "no test_data_set_* folder";

  for (const std::string &DS : DataSets) {
    std::string Tag = llvm::sys::path::filename(DS).str();
    std::vector<Tensor> Inputs, Expected;
    std::vector<std::string> InputFiles = numberedFiles(DS, "input");
    for (const std::string &F : InputFiles) {
      auto T = readTensorProtoFile(F);
      if (!T)
        return Tag + ": reading inputs: " + firstLine(T.takeError());
      Inputs.push_back(std::move(*T));
    }
    for (const std::string &F : numberedFiles(DS, "output")) {
      auto T = readTensorProtoFile(F);
      if (!T)
        return Tag + ": reading outputs: " + firstLine(T.takeError());
      Expected.push_back(std::move(*T));
    }
    std::string Why = runDataSet(G ? G->get() : nullptr, ImportError, Tag,
                                 std::move(Inputs), std::move(Expected), Tol);
    if (!Why.empty())
      return Why;
  }
  return "";
}

} // namespace kiln::conformance
