// --keep-float auto --min-sqnr DB: keep the fewest layers in float that bring
// the int8 graph's output SQNR on calibration samples to DB.
//   1. Run the float graph on the samples. For every layer the int8 plan
//      would quantize, evaluate it alone on fake-quantized inputs and weights
//      with its output fake-quantized, against its float result: the layer's
//      own SQNR. Rank layers worst first.
//   2. Measure the whole int8 graph (insert-qdq on a copy) with the k worst
//      layers kept float, and binary-search the smallest k whose output SQNR
//      (the lowest over the graph outputs) reaches DB.
//   3. Try each kept layer back in int8, least sensitive first, and leave it
//      there when the target still holds: the result is minimal in that no
//      single kept layer can go back to int8.
// SQNR = 10 log10(sum ref^2 / sum (ref - int8)^2) over every sample.
#pragma once

#include "passes/quant/CalibrationDataset.h"
#include "passes/quant/PlanInt8.h"
#include "passes/quant/QuantizeGraph.h"

namespace kiln {

struct AutoKeepFloatResult {
  std::map<const Node *, std::string> Keep; // with the reason
  double AllInt8SqnrDb = 0, FinalSqnrDb = 0;
  std::vector<SensitivityReport> Ranking; // most sensitive first
};

llvm::Expected<AutoKeepFloatResult>
chooseLayersToKeepFloat(const Graph &G, const CalibrationStats &Stats,
                        const Int8PlanOptions &Base,
                        const CalibrationDataset &Data, double TargetDb,
                        uint64_t Samples, unsigned Threads);

} // namespace kiln
