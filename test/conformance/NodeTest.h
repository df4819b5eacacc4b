// One ONNX backend test folder (model.onnx + test_data_set_*/{input,output}_N.pb):
// import it, run the reference interpreter on every data set and compare the
// outputs with ONNX's rule (same dtype and shape; |a-b| <= atol + rtol*|b|,
// NaN equals NaN; integers and bools exactly).
#pragma once

#include "IR/Tensor.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace kiln::conformance {

struct Tolerance {
  double RTol = 1e-3;
  double ATol = 1e-7;
};

/// Empty when Actual matches Expected; otherwise why not (first mismatch).
std::string compareTensors(const Tensor &Actual, const Tensor &Expected,
                           const Tolerance &Tol);

/// Runs the test in Folder. Returns "" on success, else a one-line reason
/// ("import: ...", "run: ...", "output 0: ...").
std::string runNodeTest(llvm::StringRef Folder, const Tolerance &Tol);

} // namespace kiln::conformance
