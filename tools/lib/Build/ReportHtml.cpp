// OUT/report.html: one self-contained page (no script, no network): a table
// of the artifacts with their sizes and gates, then per artifact a chart of
// per-layer SQNR, worst layers first, and its graph (kiln inspect's SVG).
#include "Build/BuildReport.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>

namespace kiln {

namespace {

std::string esc(llvm::StringRef S) {
  std::string O;
  for (char C : S)
    switch (C) {
    case '<': O += "&lt;"; break;
    case '>': O += "&gt;"; break;
    case '&': O += "&amp;"; break;
    case '"': O += "&quot;"; break;
    case '\'': O += "&#39;"; break;
    default: O += C;
    }
  return O;
}

std::string bytes(uint64_t B) {
  if (B >= 1000000)
    return llvm::formatv("{0:f2} MB", double(B) / 1e6);
  if (B >= 1000)
    return llvm::formatv("{0:f1} kB", double(B) / 1e3);
  return std::to_string(B) + " B";
}

std::string db(const std::optional<double> &V) {
  return V ? llvm::formatv("{0:f1} dB", *V).str() : "exact";
}

const char *const Style = R"(
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}
h1{font-size:20px}h2{font-size:16px;margin-top:32px}
table{border-collapse:collapse}td,th{padding:4px 10px;border-bottom:1px solid #ddd;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.pass{color:#176f2c;font-weight:600}.fail{color:#b00020;font-weight:600}
.fails{color:#b00020;margin:4px 0}
.graph{overflow:auto;max-height:640px;border:1px solid #ddd}
svg text{font:11px system-ui,sans-serif}
)";

/// Per-layer SQNR as horizontal bars, worst first (at most 30).
std::string layerChart(const ArtifactResult &R) {
  std::vector<const LayerError *> Shown;
  for (const LayerError &L : R.Layers)
    if (Shown.size() < 30)
      Shown.push_back(&L);
  if (Shown.empty())
    return "<p>No per-layer comparison.</p>";
  double Max = 60;
  for (const LayerError *L : Shown)
    if (L->SqnrDb)
      Max = std::max(Max, *L->SqnrDb);
  if (R.A->MinSqnr)
    Max = std::max(Max, *R.A->MinSqnr);
  const int Label = 300, Width = 420, Row = 18;
  int Height = int(Shown.size()) * Row + 24;
  std::string S = llvm::formatv(
      "<svg class=\"chart\" width=\"{0}\" height=\"{1}\" role=\"img\" "
      "aria-label=\"per-layer SQNR of {2}\">",
      Label + Width + 80, Height, esc(R.A->Name));
  for (size_t I = 0; I < Shown.size(); ++I) {
    const LayerError &L = *Shown[I];
    double V = L.SqnrDb ? std::max(0.0, *L.SqnrDb) : Max;
    int Y = int(I) * Row;
    bool Low = R.A->MinSqnr && L.SqnrDb && *L.SqnrDb < *R.A->MinSqnr;
    std::string Name = L.Name.size() > 44 ? "..." + L.Name.substr(L.Name.size() - 41) : L.Name;
    S += llvm::formatv("<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\">{2} "
                       "({3})</text>",
                       Label - 6, Y + 13, esc(Name), esc(L.Op));
    S += llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" "
                       "fill=\"{4}\"><title>{5}: {6}</title></rect>",
                       Label, Y + 3, int(V / Max * Width), Row - 6,
                       Low ? "#d9534f" : "#5b8def", esc(L.Name), db(L.SqnrDb));
    S += llvm::formatv("<text x=\"{0}\" y=\"{1}\">{2}</text>",
                       Label + int(V / Max * Width) + 4, Y + 13, db(L.SqnrDb));
  }
  if (R.A->MinSqnr) {
    int X = Label + int(*R.A->MinSqnr / Max * Width);
    S += llvm::formatv("<line x1=\"{0}\" x2=\"{0}\" y1=\"0\" y2=\"{1}\" "
                       "stroke=\"#b00020\" stroke-dasharray=\"4 3\"/>"
                       "<text x=\"{2}\" y=\"{3}\" fill=\"#b00020\">min_sqnr "
                       "{4} dB</text>",
                       X, Height - 20, X + 4, Height - 6,
                       shortNumber(*R.A->MinSqnr));
  }
  return S + "</svg>";
}

/// The graph's SVG (from graphviz), without its XML prologue.
std::string graphSvg(const BuildArtifact &A) {
  auto Buf = llvm::MemoryBuffer::getFile(A.GraphSvg);
  if (!Buf)
    return "<p>No graph.</p>";
  llvm::StringRef Svg = (*Buf)->getBuffer();
  size_t Start = Svg.find("<svg");
  if (Start == llvm::StringRef::npos)
    return "<p>No graph.</p>";
  if (Svg.size() > (8u << 20))
    return "<p>The graph is too large to embed; see kiln inspect " +
           esc(A.File) + " --format svg.</p>";
  return "<div class=\"graph\">" + Svg.drop_front(Start).str() + "</div>";
}

} // namespace

std::string buildReportHtml(const BuildPlan &P, const BuildSummary &S) {
  unsigned Failed = 0;
  for (const ArtifactResult &R : S.Artifacts)
    Failed += !R.passed();
  std::string H = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
                  "charset=\"utf-8\"><title>kiln build: " +
                  esc(P.ManifestPath) + "</title><style>" + Style +
                  "</style></head><body>\n";
  H += "<h1>kiln build: " + esc(P.ManifestPath) + "</h1>\n";
  H += llvm::formatv("<p id=\"summary\">{0} artifacts, {1} rebuilt, {2} "
                     "reused; <span class=\"{3}\">{4}</span>; kiln {5}</p>\n",
                     S.Artifacts.size(), S.Rebuilt, S.Reused,
                     Failed || !S.Errors.empty() ? "fail" : "pass",
                     Failed || !S.Errors.empty()
                         ? std::to_string(Failed) + " failed"
                         : std::string("every gate passed"),
                     esc(S.Version));
  for (const std::string &E : S.Errors)
    H += "<p class=\"fails\">" + esc(E) + "</p>\n";
  H += "<table id=\"artifacts\"><thead><tr><th>artifact</th><th>target</th>"
       "<th>precision</th><th>size</th><th>worst output SQNR</th>"
       "<th>min_sqnr</th><th>gate</th></tr></thead><tbody>\n";
  for (const ArtifactResult &R : S.Artifacts) {
    std::optional<double> Worst;
    for (const OutputError &O : R.Outputs)
      if (O.SqnrDb && (!Worst || *O.SqnrDb < *Worst))
        Worst = O.SqnrDb;
    H += llvm::formatv(
        "<tr data-artifact=\"{0}\"><td><a href=\"#a-{0}\">{0}</a></td>"
        "<td>{1}</td><td>{2}</td><td class=\"num\">{3}</td>"
        "<td class=\"num\">{4}</td><td class=\"num\">{5}</td>"
        "<td class=\"{6}\">{7}</td></tr>\n",
        esc(R.A->Name), esc(R.A->Target), esc(R.A->Precision),
        R.Exists ? bytes(R.Bytes) : "-",
        R.GateRan ? db(Worst) : "not run",
        R.A->MinSqnr ? shortNumber(*R.A->MinSqnr) + " dB" : "-",
        R.passed() ? "pass" : "fail", R.passed() ? "passed" : "FAILED");
  }
  H += "</tbody></table>\n";
  for (const ArtifactResult &R : S.Artifacts) {
    H += "<section id=\"a-" + esc(R.A->Name) + "\"><h2>" + esc(R.A->Name) +
         "</h2>\n";
    if (!R.Error.empty())
      H += "<p class=\"fails\">not built: " + esc(R.Error) + "</p>\n";
    for (const std::string &F : R.Failures)
      H += "<p class=\"fails\">gate failed: " + esc(F) + "</p>\n";
    if (!R.GateError.empty())
      H += "<p>kiln diff did not run: " + esc(R.GateError) + "</p>\n";
    if (R.Exists)
      H += llvm::formatv("<p>{0}, {1}, built in {2:f1} s{3}</p>\n",
                         esc(R.A->Name + ".kiln"), bytes(R.Bytes),
                         R.BuildSeconds, R.Rebuilt ? "" : " (reused)");
    if (!R.Outputs.empty()) {
      H += "<table><thead><tr><th>output</th><th>SQNR</th><th>cosine</th>"
           "<th>max abs error</th></tr></thead><tbody>";
      for (const OutputError &O : R.Outputs)
        H += llvm::formatv("<tr><td>{0}</td><td class=\"num\">{1}</td>"
                           "<td class=\"num\">{2}</td><td class=\"num\">{3}"
                           "</td></tr>",
                           esc(O.Name), db(O.SqnrDb),
                           O.Cosine ? llvm::formatv("{0:f6}", *O.Cosine).str() : "-",
                           O.MaxAbs ? llvm::formatv("{0:e2}", *O.MaxAbs).str() : "-");
      H += "</tbody></table>\n<h3>Per-layer SQNR, worst first</h3>\n" +
           layerChart(R) + "\n";
    }
    if (R.Exists)
      H += "<details><summary>Graph</summary>" + graphSvg(*R.A) +
           "</details>\n";
    H += "</section>\n";
  }
  return H + "</body></html>\n";
}

} // namespace kiln
