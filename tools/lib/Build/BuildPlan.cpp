#include "Build/BuildPlan.h"

#include "Support/Error.h"
#include "backends/Target.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>

namespace kiln {

llvm::StringRef jobKindName(JobKind K) {
  switch (K) {
  case JobKind::Import:
    return "import";
  case JobKind::Optimize:
    return "optimize";
  case JobKind::Calibrate:
    return "calibrate";
  case JobKind::Merge:
    return "merge";
  case JobKind::Convert:
    return "convert";
  case JobKind::Gate:
    return "gate";
  }
  return "convert";
}

const BuildJob *BuildPlan::job(llvm::StringRef Id) const {
  for (const BuildJob &J : Jobs)
    if (J.Id == Id)
      return &J;
  return nullptr;
}

namespace {

std::string join(const std::string &Dir, const std::string &Name) {
  llvm::SmallString<256> S(Dir);
  llvm::sys::path::append(S, Name);
  return std::string(S.str());
}

void addShapes(std::vector<std::string> &Args, const ManifestModel &M) {
  for (const std::string &S : M.InputShapes) {
    Args.push_back("--input-shape");
    Args.push_back(S);
  }
}

/// M imported once: its text IR (with the input shapes bound) in a folder
/// of its own; returns the .kir's path.
std::string planImport(BuildPlan &P, const ManifestModel &M) {
  std::string Dir = join(join(join(P.StateDir, "ir"), M.Name), "import");
  std::string Kir = join(Dir, "model.kir");
  BuildJob J;
  J.Id = "import:" + M.Name;
  J.Kind = JobKind::Import;
  J.Model = M.Name;
  std::vector<std::string> Args = {"opt", M.SourcePath, "-O", "0"};
  addShapes(Args, M);
  Args.insert(Args.end(), {"-o", Kir});
  J.Commands.push_back({Args, ""});
  J.Reads = {M.SourcePath};
  J.Outputs = {Dir};
  J.Folders = {Dir};
  P.Jobs.push_back(std::move(J));
  return Kir;
}

/// A model's import after one target's pipeline: the .kir, and the pass
/// record that lets calibration and conversion take it as optimized.
struct OptimizedIr {
  std::string Job, Kir, Record;

  /// The arguments and Reads that a command reading it takes.
  void addTo(std::vector<std::string> &Args,
             std::vector<std::string> &Reads) const {
    Args.insert(Args.end(), {Kir, "--pass-record", Record});
    Reads.push_back(llvm::sys::path::parent_path(Kir).str());
  }
};

/// M's import (Import) through the CPU target's -O2 pipeline, by kiln opt
/// in a folder of its own.
OptimizedIr planOptimize(BuildPlan &P, const ManifestModel &M,
                         const std::string &Import) {
  std::string Dir = join(join(join(P.StateDir, "ir"), M.Name), "optimized");
  OptimizedIr O{"optimize:" + M.Name, join(Dir, "model.kir"),
                join(Dir, "passes.json")};
  BuildJob J;
  J.Id = O.Job;
  J.Kind = JobKind::Optimize;
  J.Model = M.Name;
  J.Deps = {"import:" + M.Name};
  J.Commands.push_back({{"opt", Import, "--target", "cpu", "-o", O.Kir,
                         "--pass-record", O.Record},
                        ""});
  J.Reads = {llvm::sys::path::parent_path(Import).str()};
  J.Outputs = {Dir};
  J.Folders = {Dir};
  P.Jobs.push_back(std::move(J));
  return O;
}

/// Whether Target's -O2 pipeline begins with the CPU target's, so that it
/// continues from the optimized import (vulkan and metal: the same
/// pipeline; nnapi: more passes after it).
bool extendsCpuPipeline(const Target &T) {
  static const std::vector<std::string> Cpu = findTarget("cpu")->Pipeline(2);
  std::vector<std::string> Own = T.Pipeline(2);
  return Own.size() >= Cpu.size() &&
         std::equal(Cpu.begin(), Cpu.end(), Own.begin());
}

/// Whether T's pipeline is the CPU's, with nothing after it: only then is
/// the graph its conversion quantizes the optimized import that the shared
/// calibration statistics describe (NNAPI's expansions rewrite layer_norm,
/// gelu and matmul, so its statistics would be of another graph).
bool isCpuPipeline(const Target &T) {
  return extendsCpuPipeline(T) &&
         T.Pipeline(2).size() == findTarget("cpu")->Pipeline(2).size();
}

/// Whether a [[build]] entry's options choose the pipeline (-O, --passes,
/// --disable-pass): its conversions optimize the import themselves.
bool choosesPipeline(const std::vector<std::string> &Options) {
  for (llvm::StringRef A : Options)
    if (A.startswith("-O") || A.startswith("--disable-pass") ||
        A.startswith("--passes") || A.startswith("--pass-record"))
      return true;
  return false;
}

/// Whether the entry's target options or precision replace a pass of the
/// CPU's part of T's pipeline by a variant (Target::PassVariants: NNAPI at
/// --nnapi-feature-level 29 and above, and the CPU's float files, keep
/// forward LSTMs whole), so that the optimized import (whose pipeline every
/// precision continues from) is not what its conversions start from.
bool optionsVaryPasses(const Target &T, const std::vector<std::string> &Options,
                       const std::string &Precision) {
  if (!T.PassVariants)
    return false;
  std::map<std::string, std::string> TargetOptions;
  TargetOptions["quantize"] = Precision == "fp32" ? "none" : Precision;
  for (size_t I = 0; I < Options.size(); ++I) {
    llvm::StringRef A = Options[I];
    if (!A.consume_front("--nnapi-feature-level"))
      continue;
    if (A.consume_front("="))
      TargetOptions["nnapi-feature-level"] = A.str();
    else if (A.empty() && I + 1 < Options.size())
      TargetOptions["nnapi-feature-level"] = Options[I + 1];
  }
  return !T.PassVariants(TargetOptions).empty();
}

/// The calibration jobs of M (reading Ir, its import after the CPU
/// pipeline, which `kiln calibrate` runs); returns the id of the one whose
/// output is the merged .kcal, and sets Kcal to it.
std::string planCalibration(BuildPlan &P, const ManifestModel &M,
                            const OptimizedIr &Ir, std::string &Kcal) {
  std::string Dir = join(P.StateDir, "calib");
  Kcal = join(Dir, M.Name + ".kcal");
  auto Calibrate = [&](const std::string &Id, const std::string &Out,
                       unsigned Shard) {
    BuildJob J;
    J.Id = Id;
    J.Kind = JobKind::Calibrate;
    J.Model = M.Name;
    J.Deps = {Ir.Job};
    std::vector<std::string> Args = {"calibrate"};
    Ir.addTo(Args, J.Reads);
    Args.insert(Args.end(), {"--calib", M.CalibPath});
    Args.insert(Args.end(), M.CalibOptions.begin(), M.CalibOptions.end());
    if (M.CalibShards > 1) {
      Args.push_back("--shard");
      Args.push_back(std::to_string(Shard) + "/" + std::to_string(M.CalibShards));
    }
    Args.push_back("-o");
    Args.push_back(Out);
    J.Commands.push_back({Args, ""});
    J.Reads.push_back(M.CalibPath);
    J.Outputs = {Out};
    P.Jobs.push_back(std::move(J));
  };
  if (M.CalibShards == 1) {
    Calibrate("calibrate:" + M.Name, Kcal, 0);
    return "calibrate:" + M.Name;
  }
  BuildJob Merge;
  Merge.Id = "merge:" + M.Name;
  Merge.Kind = JobKind::Merge;
  Merge.Model = M.Name;
  std::vector<std::string> Args = {"calibrate", "--merge"};
  for (unsigned I = 0; I < M.CalibShards; ++I) {
    std::string Id = "calibrate:" + M.Name + ":" + std::to_string(I) + "/" +
                     std::to_string(M.CalibShards);
    std::string Out = join(Dir, M.Name + "." + std::to_string(I) + "-of-" +
                                    std::to_string(M.CalibShards) + ".kcal");
    Calibrate(Id, Out, I);
    Merge.Deps.push_back(Id);
    Merge.Reads.push_back(Out);
    Args.push_back(Out);
  }
  Args.push_back("-o");
  Args.push_back(Kcal);
  Merge.Commands.push_back({Args, ""});
  Merge.Outputs = {Kcal};
  P.Jobs.push_back(std::move(Merge));
  return "merge:" + M.Name;
}

std::string where(const Manifest &M, const ManifestBuild &B) {
  return M.Path + ":" + std::to_string(B.Line) + ": [[build]] #" +
         std::to_string(B.Index);
}

} // namespace

llvm::Expected<BuildPlan> planBuild(const Manifest &M,
                                    const std::string &OutDir) {
  BuildPlan P;
  llvm::SmallString<256> Out(OutDir);
  if (std::error_code EC = llvm::sys::fs::make_absolute(Out))
    return inputError("{0}: {1}", OutDir, EC.message());
  llvm::sys::path::remove_dots(Out, true);
  P.OutDir = std::string(Out.str());
  P.StateDir = join(P.OutDir, ".kiln-build");
  P.ManifestPath = M.Path;
  P.ManifestDir = M.Dir;

  // Which models need calibration: those with an int8 artifact.
  std::map<std::string, std::string> NamedBy; // artifact -> its entry
  struct Combo {
    const ManifestBuild *B;
    std::string Target, Precision;
    /// Converts from the optimized import (else from the import, running
    /// its own pipeline).
    bool ReadsOptimized;
    /// An int8 artifact whose graph is the optimized import's reads the
    /// shared calibration statistics; others calibrate in their conversion.
    bool SharedStats;
  };
  std::vector<Combo> Combos;
  std::map<std::string, bool> NeedsCalib;
  for (const ManifestBuild &B : M.Builds)
    for (const std::string &T : B.Targets)
      for (const std::string &Pr : B.Precisions) {
        const Target *Tg = findTarget(T);
        bool Int8 = Pr == "int8" || Pr == "int8-dynamic";
        std::string Name = B.Model + "." + T + "." + Pr;
        if (Int8 && !Tg->TakesInt8) {
          std::string Why = "the " + T + " target does not take " + Pr +
                            " (its kernels have no int8 variants yet)";
          if (B.SkipUnsupported) {
            P.Skipped.push_back(Name + ": " + Why);
            continue;
          }
          return inputError("{0}: {1}: {2}; remove it, or set "
                            "skip_unsupported = true",
                            where(M, B), Name, Why);
        }
        if (Pr == "int8" && M.Models.at(B.Model).CalibPath.empty())
          return inputError("{0}: {1}: int8 needs calibration samples: give "
                            "[model.{2}] a calib (or use int8-dynamic)",
                            where(M, B), Name, B.Model);
        auto [It, New] = NamedBy.emplace(Name, where(M, B));
        if (!New)
          return inputError("{0}: {1} is built by {2} already", where(M, B),
                            Name, It->second);
        bool ReadsOptimized = !choosesPipeline(B.Options) &&
                              !optionsVaryPasses(*Tg, B.Options, Pr) &&
                              extendsCpuPipeline(*Tg);
        // The shared statistics are of the optimized import's graph; a
        // conversion whose graph is another calibrates itself.
        bool SharedStats = ReadsOptimized && isCpuPipeline(*Tg);
        NeedsCalib[B.Model] |= Pr == "int8" && SharedStats;
        Combos.push_back({&B, T, Pr, ReadsOptimized, SharedStats});
      }

  // Each model with an artifact is imported once and optimized once, by
  // the CPU target's pipeline, which calibration runs and every target's
  // begins with but --target onnx's (NNAPI's adds passes after it, which
  // its conversions run).
  std::map<std::string, std::string> Kir;
  for (const Combo &C : Combos)
    if (!Kir.count(C.B->Model))
      Kir[C.B->Model] = "";
  for (auto &[Name, File] : Kir)
    File = planImport(P, M.Models.at(Name));
  std::map<std::string, OptimizedIr> Opt;
  for (const auto &[Name, Model] : M.Models) {
    bool Needed = NeedsCalib[Name];
    for (const Combo &C : Combos)
      Needed |= C.B->Model == Name && C.ReadsOptimized;
    if (Needed)
      Opt[Name] = planOptimize(P, Model, Kir.at(Name));
  }
  std::map<std::string, std::pair<std::string, std::string>> Kcal; // job, file
  for (const auto &[Name, Model] : M.Models)
    if (NeedsCalib[Name]) {
      std::string File;
      std::string Job = planCalibration(P, Model, Opt.at(Name), File);
      Kcal[Name] = {Job, File};
    }

  for (const Combo &C : Combos) {
    const ManifestModel &Model = M.Models.at(C.B->Model);
    BuildArtifact A;
    A.Name = C.B->Model + "." + C.Target + "." + C.Precision;
    A.Model = C.B->Model;
    A.Target = C.Target;
    A.Precision = C.Precision;
    A.File = join(P.OutDir, A.Name + ".kiln");
    A.Entry = C.B->Index;
    A.MinSqnr = C.B->MinSqnr;
    A.MaxSize = C.B->MaxSize;
    A.ConvertJob = "convert:" + A.Name;
    A.GateJob = "gate:" + A.Name;
    A.ConvertReport = join(join(P.StateDir, "convert"), A.Name + ".json");
    A.GateReport = join(join(P.StateDir, "gate"), A.Name + ".json");
    A.GraphSvg = join(join(P.StateDir, "graph"), A.Name + ".svg");

    BuildJob Conv;
    Conv.Id = A.ConvertJob;
    Conv.Kind = JobKind::Convert;
    Conv.Model = A.Model;
    Conv.Artifact = A.Name;
    // The optimized import (or the import, when the entry chooses the
    // pipeline or the target's does not extend the CPU's), recording the
    // original as the source: the bytes a conversion of the original
    // gives.
    std::vector<std::string> Args = {"convert"};
    if (C.ReadsOptimized) {
      const OptimizedIr &Ir = Opt.at(A.Model);
      Ir.addTo(Args, Conv.Reads);
      Conv.Deps.push_back(Ir.Job);
    } else {
      const std::string &Ir = Kir.at(A.Model);
      Args.push_back(Ir);
      Conv.Deps.push_back("import:" + A.Model);
      Conv.Reads.push_back(llvm::sys::path::parent_path(Ir).str());
    }
    Args.insert(Args.end(),
                {"--source-of", Model.SourcePath, "--target", C.Target});
    Conv.Reads.push_back(Model.SourcePath);
    if (C.Precision != "fp32") {
      Args.push_back("--quantize");
      Args.push_back(C.Precision);
    }
    if (C.Precision == "int8" && C.SharedStats) {
      const auto &[Job, File] = Kcal.at(A.Model);
      Args.push_back("--calib-stats");
      Args.push_back(File);
      Conv.Deps.push_back(Job);
      Conv.Reads.push_back(File);
    } else if (C.Precision == "int8") {
      Args.insert(Args.end(), {"--calib", Model.CalibPath});
      Args.insert(Args.end(), Model.CalibOptions.begin(),
                  Model.CalibOptions.end());
      Conv.Reads.push_back(Model.CalibPath);
    }
    Args.insert(Args.end(), C.B->Options.begin(), C.B->Options.end());
    Args.insert(Args.end(), {"-o", A.File, "--json"});
    Conv.Commands.push_back({Args, A.ConvertReport});
    Conv.Outputs = {A.File, A.ConvertReport};
    P.Jobs.push_back(std::move(Conv));

    BuildJob Gate;
    Gate.Id = A.GateJob;
    Gate.Kind = JobKind::Gate;
    Gate.Model = A.Model;
    Gate.Artifact = A.Name;
    Gate.Deps = {A.ConvertJob};
    Args = {"diff", Model.SourcePath, A.File};
    Gate.Reads = {Model.SourcePath, A.File};
    if (!Model.CheckInputsPath.empty()) {
      Args.insert(Args.end(), {"--inputs", Model.CheckInputsPath});
      Gate.Reads.push_back(Model.CheckInputsPath);
    } else if (!Model.CalibPath.empty()) {
      Args.insert(Args.end(), {"--calib", Model.CalibPath, "--calib-limit",
                               std::to_string(Model.CheckSamples)});
      Args.insert(Args.end(), Model.CalibOptions.begin(),
                  Model.CalibOptions.end());
      Gate.Reads.push_back(Model.CalibPath);
    } else {
      Args.insert(Args.end(),
                  {"--samples", std::to_string(Model.CheckSamples)});
    }
    addShapes(Args, Model);
    Args.insert(Args.end(), {"--per-layer", "--top", "100000", "--json"});
    Gate.Commands.push_back({Args, A.GateReport});
    Gate.Commands.push_back({{"inspect", A.File, "--format", "svg"}, A.GraphSvg});
    Gate.Outputs = {A.GateReport, A.GraphSvg};
    P.Jobs.push_back(std::move(Gate));
    P.Artifacts.push_back(std::move(A));
  }
  return P;
}

llvm::json::Value planJson(const BuildPlan &P, const std::string &Kiln) {
  llvm::json::Array Jobs, All;
  // Absolute paths: a scheduler may run the jobs from any folder.
  llvm::SmallString<256> Path(P.ManifestDir);
  llvm::sys::path::append(Path, llvm::sys::path::filename(P.ManifestPath));
  std::string Manifest(Path.str()); // json::Value keeps a StringRef's bytes by reference
  auto Only = [&](const std::string &Id) {
    return llvm::json::Array{Kiln, "build", Manifest, "-o", P.OutDir,
                             "--only", Id};
  };
  for (const BuildJob &J : P.Jobs) {
    llvm::json::Array Runs, Deps, Outputs;
    for (const JobCommand &C : J.Commands) {
      llvm::json::Array Args{Kiln};
      for (const std::string &A : C.Args)
        Args.push_back(A);
      Runs.push_back(llvm::json::Object{
          {"args", std::move(Args)},
          {"stdout", C.Stdout.empty() ? llvm::json::Value(nullptr)
                                      : llvm::json::Value(C.Stdout)}});
    }
    for (const std::string &D : J.Deps)
      Deps.push_back(D);
    for (const std::string &O : J.Outputs)
      Outputs.push_back(O);
    All.push_back(J.Id);
    Jobs.push_back(llvm::json::Object{
        {"id", J.Id},
        {"kind", jobKindName(J.Kind)},
        {"model", J.Model},
        {"artifact", J.Artifact.empty() ? llvm::json::Value(nullptr)
                                        : llvm::json::Value(J.Artifact)},
        {"deps", std::move(Deps)},
        {"command", Only(J.Id)},
        {"runs", std::move(Runs)},
        {"outputs", std::move(Outputs)}});
  }
  llvm::json::Array Skipped;
  for (const std::string &S : P.Skipped)
    Skipped.push_back(S);
  return llvm::json::Object{
      {"manifest", Manifest},
      {"out", P.OutDir},
      {"jobs", std::move(Jobs)},
      {"final", llvm::json::Object{{"id", "report"},
                                   {"deps", std::move(All)},
                                   {"command", Only("report")}}},
      {"skipped", std::move(Skipped)}};
}

} // namespace kiln
