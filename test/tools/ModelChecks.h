// What the end-to-end tests of every target share (kiln-cpu-e2e,
// kiln-vulkan-e2e): finding models, importing ONNX and TorchScript with their
// inputs, the -O2 pipeline, running .kiln bytes in the runtime through the
// C API, and comparing outputs with the reference interpreter's.
#pragma once

#include "IR/Graph.h"
#include "IR/Tensor.h"

#include "kiln/kiln.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::testing {

constexpr double RelTol = 1e-4;
constexpr double AbsTol = 1e-6;

/// The first line of E's message (consumes E).
std::string firstLine(llvm::Error E);
/// The first unsupported node's reason of a "cannot run" error.
std::string firstReason(const std::string &Message);
/// Files (or folders, with Dirs) in Dir, sorted.
std::vector<std::string> listDir(const std::string &Dir, bool Dirs);

/// Got against Ref: same type; floats within AbsTol + RelTol * |ref| (NaN
/// and inf must match), integers exactly. "" or the first difference.
/// Worst, when given, keeps the largest error in units of that tolerance.
std::string compare(const Tensor &Got, const Tensor &Ref,
                    double *Worst = nullptr);
/// Signal-to-noise ratio of Got against Ref in dB (200 when equal).
double sqnrDb(const Tensor &Got, const Tensor &Ref);

/// Loads Bytes in the runtime, runs them once on Inputs with Options and
/// appends the outputs to Out; "" or what failed. Precision, when given,
/// gets what the session computed in (kiln_engine_info.precision).
std::string runCompiled(const std::string &Bytes, llvm::ArrayRef<Tensor> Inputs,
                        const kiln_session_options &Options,
                        std::vector<Tensor> &Out,
                        std::string *Precision = nullptr);

/// NAME.input.npz beside NAME.onnx, NAME.traced.pt or NAME.scripted.pt.
std::string inputsFileFor(const std::string &Model);
/// ONNX, TorchScript with the input shapes of its inputs file, or .kir text.
llvm::Expected<std::unique_ptr<Graph>> importModel(const std::string &Path);
/// The inputs of model Path from its inputs file, in the graph's order.
llvm::Expected<std::vector<Tensor>> exampleInputs(const std::string &Path,
                                                  const Graph &G);
/// An ONNX conformance test's test_data_set_0 inputs.
llvm::Expected<std::vector<Tensor>> nodeTestInputs(const std::string &Folder);
/// The -O2 pipeline, verifying after each pass.
llvm::Error optimize(Graph &G);
/// ONNX 1.12 stores bfloat16 test data as UINT16 bit patterns.
Tensor asDeclared(Tensor T, ElementType Wanted);

} // namespace kiln::testing
