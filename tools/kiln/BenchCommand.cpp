// kiln bench: times a .kiln model in the kiln runtime.
//   kiln bench MODEL.kiln [--threads N] [--runs K] [--warmup W] [--profile]
//              [--no-onednn] [--reference-kernels] [--huge-pages] [--verify-weights] [--json]
//              [--image WxH]
// Reports the load time (map + verify), the session creation time (memory
// planning, kernel creation and weight packing), the first run,
// and the median / p90 / min of K further runs on seeded inputs. --profile
// also times every operator and compares their sum with the whole-model
// median: the executor's own overhead. On a Vulkan file the header names the
// device and the dispatches per run, operator times are GPU timestamps, and
// the overhead is the wall time over the summed GPU dispatch time;
// --pipeline-cache DIR shows a cold (first) and a warm (later) session.
// --image WxH times the preprocessing of a camera frame apart from the
// model: fitting a seeded WxH rgba8 frame to the file's image input
// (kiln_session_set_image: resize and format), and the model's own
// conversion (its PIXELS_TO_TENSOR operator, from profiled runs), each and
// together as a share of the median latency.
#include "Command.h"
#include "Tooling/CompiledModel.h"
#include "Tooling/SessionFlags.h"

#include "Support/Error.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <random>

namespace kiln {

namespace {

struct BenchOptions {
  std::string Model;
  unsigned Threads = 1;
  unsigned Runs = 50;
  unsigned Warmup = 3;
  unsigned Sessions = 1;
  bool Profile = false;
  bool Json = false;
  std::string Image; // --image WxH
  CompiledModel::SessionSettings Session;
};


using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point Start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - Start).count();
}

double percentile(std::vector<double> V, double P) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  size_t I = size_t(P * double(V.size() - 1) + 0.5);
  return V[std::min(I, V.size() - 1)];
}

/// Seeded inputs: f32 in [-1, 1], other types zero. A batch-polymorphic
/// file's symbolic dims are 1.
std::vector<Tensor> seededInputs(const std::vector<CompiledIo> &Ins) {
  std::mt19937 Rng(1234);
  std::uniform_real_distribution<float> U(-1.f, 1.f);
  std::vector<Tensor> Out;
  for (CompiledIo In : Ins) {
    for (Dim &D : In.Type.Dims)
      if (!D.isStatic())
        D = Dim(1);
    int64_t N = numElements(In.Type.Dims).getValueOr(0);
    std::vector<uint8_t> Bytes(size_t(N) * elementSize(In.Type.Elem), 0);
    if (In.Type.Elem == ElementType::F32)
      for (int64_t I = 0; I < N; ++I) {
        float V = U(Rng);
        std::memcpy(&Bytes[size_t(I) * 4], &V, 4);
      }
    Out.emplace_back(In.Type, Buffer::own(std::move(Bytes)));
  }
  return Out;
}

struct OperatorProfile {
  /// Per profiled run, the whole run minus the sum of its operators' times
  /// (the executor's own work), as a median over runs and relative to the
  /// operators' sum: measured in the same runs, so noise between runs does
  /// not enter it.
  double OverheadMs = 0, OverheadFraction = 0;
  double MedianMsSum = 0;     // sum over operators of their median time
  std::map<std::string, double> ByEngine; // "xnnpack" -> ms
  std::map<std::string, double> ByKind;   // "CONV_2D [xnnpack]" -> ms
  /// Every operator: index, kind, source name, engine, median ms.
  struct Layer {
    size_t Index;
    std::string Kind, Name, Engine;
    double Ms;
  };
  std::vector<Layer> Layers;
  /// Every partition (one for a file of one target): its target,
  /// operators, and median run and boundary-copy times.
  struct Partition {
    std::string Target;
    size_t FirstOperator, NumOperators;
    double RunMs, TransferMs;
  };
  std::vector<Partition> Partitions;
};

llvm::Expected<OperatorProfile> profileOperators(CompiledModel &M,
                                                 unsigned Runs) {
  M.setProfiling(true);
  std::vector<std::vector<double>> Times, PartRun, PartCopy;
  std::vector<double> Overheads, Fractions;
  for (unsigned R = 0; R < Runs; ++R) {
    auto Start = Clock::now();
    if (llvm::Error E = M.rerun())
      return E;
    double Whole = msSince(Start), Sum = 0;
    auto Ops = M.operators();
    Times.resize(Ops.size());
    for (size_t I = 0; I < Ops.size(); ++I) {
      Times[I].push_back(Ops[I].LastRunMs);
      Sum += Ops[I].LastRunMs;
    }
    auto Parts = M.partitions();
    PartRun.resize(Parts.size());
    PartCopy.resize(Parts.size());
    for (size_t I = 0; I < Parts.size(); ++I) {
      PartRun[I].push_back(Parts[I].LastRunMs);
      PartCopy[I].push_back(Parts[I].LastTransferMs);
    }
    Overheads.push_back(Whole - Sum);
    Fractions.push_back(Sum > 0 ? (Whole - Sum) / Sum : 0);
  }
  M.setProfiling(false);
  OperatorProfile P;
  P.OverheadMs = percentile(Overheads, 0.5);
  P.OverheadFraction = percentile(Fractions, 0.5);
  auto Ops = M.operators();
  for (size_t I = 0; I < Ops.size() && I < Times.size(); ++I) {
    double Median = percentile(Times[I], 0.5);
    P.MedianMsSum += Median;
    P.ByEngine[Ops[I].Engine] += Median;
    P.ByKind[Ops[I].Kind + " [" + Ops[I].Engine + "]"] += Median;
    P.Layers.push_back({I, Ops[I].Kind, Ops[I].Name, Ops[I].Engine, Median});
  }
  auto Parts = M.partitions();
  for (size_t I = 0; I < Parts.size() && I < PartRun.size(); ++I)
    P.Partitions.push_back({Parts[I].Target, Parts[I].FirstOperator,
                            Parts[I].NumOperators,
                            percentile(PartRun[I], 0.5),
                            percentile(PartCopy[I], 0.5)});
  return P;
}

/// --image: the median time to fit a frame, and the conversion operator's.
struct ImageTiming {
  std::string Input, Format;
  int64_t Width = 0, Height = 0;
  double FitMs = 0, ConvertMs = 0;
};

llvm::Expected<ImageTiming> timeImage(CompiledModel &M, llvm::StringRef Path,
                                      llvm::StringRef Size, unsigned Runs) {
  ImageTiming T;
  auto [W, H] = Size.split('x');
  if (W.getAsInteger(10, T.Width) || H.getAsInteger(10, T.Height) ||
      T.Width < 1 || T.Height < 1 || T.Width > 16384 || T.Height > 16384)
    return usageError("--image takes WxH, each 1 to 16384, e.g. 1920x1080; "
                      "got '{0}'",
                      Size);
  size_t Index = 0;
  while (Index < M.inputs().size() && !M.imageInput(Index))
    ++Index;
  if (Index == M.inputs().size())
    return usageError("--image: {0} has no image input (convert with "
                      "--image-input NAME=FORMAT)",
                      Path);
  T.Input = M.inputs()[Index].Name;
  // An nv21 input takes nv21 frames (even sizes); every other one RGBA.
  bool Nv21 = M.imageInput(Index)->format == KILN_PIXEL_NV21;
  if (Nv21 && (T.Width % 2 || T.Height % 2))
    return usageError("--image: '{0}' takes nv21 frames, whose width and "
                      "height are even; got {1}",
                      T.Input, Size);
  T.Format = Nv21 ? "nv21" : "rgba8";
  size_t Stride = size_t(T.Width) * (Nv21 ? 1 : 4);
  size_t Rows = size_t(T.Height) + (Nv21 ? size_t(T.Height) / 2 : 0);
  std::mt19937 Rng(7);
  std::vector<uint8_t> Frame(Stride * Rows);
  for (uint8_t &B : Frame)
    B = uint8_t(Rng());
  std::vector<double> Times;
  for (unsigned I = 0; I < Runs; ++I) {
    auto Start = Clock::now();
    if (llvm::Error E = M.setImage(Index, Frame.data(), T.Width, T.Height,
                                   Stride,
                                   Nv21 ? KILN_PIXEL_NV21 : KILN_PIXEL_RGBA8))
      return E;
    Times.push_back(msSince(Start));
  }
  T.FitMs = percentile(Times, 0.5);
  auto P = profileOperators(M, Runs);
  if (!P)
    return P.takeError();
  for (const auto &L : P->Layers)
    if (L.Kind == "PIXELS_TO_TENSOR")
      T.ConvertMs += L.Ms;
  return T;
}

llvm::Error runBench(const BenchOptions &O) {
  if (O.Runs == 0)
    return usageError("--runs must be at least 1");
  auto Start = Clock::now();
  auto M = CompiledModel::load(O.Model);
  if (!M)
    return M.takeError();
  double LoadMs = msSince(Start);
  Start = Clock::now();
  CompiledModel::SessionSettings Settings = O.Session;
  Settings.Threads = O.Threads;
  if (llvm::Error E = M->createSession(Settings))
    return E;
  double SessionMs = msSince(Start);
  // Further loads + sessions in this process: warm page cache, allocator
  // and kernel-library caches (oneDNN keeps the code it generated).
  std::vector<double> WarmLoads;
  for (unsigned I = 1; I < O.Sessions; ++I) {
    Start = Clock::now();
    auto Again = CompiledModel::load(O.Model);
    if (!Again)
      return Again.takeError();
    if (llvm::Error E = Again->createSession(Settings))
      return E;
    WarmLoads.push_back(msSince(Start));
  }

  std::vector<Tensor> Inputs = seededInputs(M->inputs());
  Start = Clock::now();
  auto First = M->run(Inputs);
  if (!First)
    return First.takeError();
  double FirstMs = msSince(Start);
  for (unsigned I = 0; I < O.Warmup; ++I)
    if (llvm::Error E = M->rerun())
      return E;
  std::vector<double> Times;
  for (unsigned I = 0; I < O.Runs; ++I) {
    Start = Clock::now();
    if (llvm::Error E = M->rerun())
      return E;
    Times.push_back(msSince(Start));
  }
  double Median = percentile(Times, 0.5), P90 = percentile(Times, 0.9),
         Min = *std::min_element(Times.begin(), Times.end());
  llvm::Optional<OperatorProfile> Profile;
  if (O.Profile) {
    auto P = profileOperators(*M, O.Runs);
    if (!P)
      return P.takeError();
    Profile = *P;
  }
  llvm::Optional<ImageTiming> Image;
  if (!O.Image.empty()) {
    auto T = timeImage(*M, O.Model, O.Image, O.Runs);
    if (!T)
      return T.takeError();
    Image = *T;
  }
  // Operators per kernel library, always listing the five.
  std::map<std::string, size_t> Engines = {{"eigen", 0},     {"kiln", 0},
                                           {"onednn", 0},    {"reference", 0},
                                           {"xnnpack", 0}};
  size_t Total = 0;
  for (const auto &Op : M->operators()) {
    ++Total;
    ++Engines[Op.Engine];
  }
  CompiledModel::EngineInfo Info = M->engineInfo();
  bool Gpu = Info.Target == "vulkan";

  if (O.Json) {
    llvm::json::Object J{{"model", O.Model},
                         {"threads", int64_t(O.Threads)},
                         {"runs", int64_t(O.Runs)},
                         {"load_ms", LoadMs},
                         {"session_ms", SessionMs},
                         {"load_total_ms", LoadMs + SessionMs},
                         {"sessions", int64_t(O.Sessions)},
                         {"first_run_ms", FirstMs},
                         {"median_ms", Median},
                         {"p90_ms", P90},
                         {"min_ms", Min},
                         {"operators", int64_t(Total)},
                         {"arena_bytes", int64_t(M->arenaBytes())},
                         {"scratch_bytes", int64_t(M->scratchBytes())}};
    J["target"] = Info.Target;
    for (const auto &[Engine, Count] : Engines)
      if (!Gpu)
        J[Engine + "_operators"] = int64_t(Count);
    if (Info.Target != "nnapi") {
      J["weights_mapped_bytes"] = int64_t(Info.WeightsMappedBytes);
      J["weights_released_bytes"] = int64_t(Info.WeightsReleasedBytes);
    }
    if (Gpu) {
      J["device"] = Info.Device;
      J["precision"] = Info.Precision;
      J["dispatches"] = int64_t(Info.Dispatches);
      J["pipelines"] = int64_t(Info.Pipelines);
      J["pipeline_cache_bytes"] = int64_t(Info.PipelineCacheBytes);
    }
    if (!WarmLoads.empty())
      J["warm_load_total_ms"] = percentile(WarmLoads, 0.5);
    if (Profile) {
      llvm::json::Object Kinds;
      for (const auto &[Kind, Ms] : Profile->ByKind)
        Kinds[Kind] = Ms;
      J["operator_sum_ms"] = Profile->MedianMsSum;
      if (Gpu) {
        J["gpu_ms_summed"] = Profile->MedianMsSum;
        J["gpu_timestamps"] = Info.GpuTimestamps;
        J["overhead_pct"] = 100.0 * Profile->OverheadFraction;
      } else {
        for (const char *Engine :
             {"eigen", "kiln", "onednn", "reference", "xnnpack"})
          J[std::string(Engine) + "_ms"] = Profile->ByEngine[Engine];
      }
      J["overhead_ms"] = Profile->OverheadMs;
      J["overhead_fraction"] = Profile->OverheadFraction;
      J["by_kind_ms"] = std::move(Kinds);
      llvm::json::Array Layers;
      for (const auto &L : Profile->Layers)
        Layers.push_back(llvm::json::Object{
            {"index", int64_t(L.Index)},
            {"kind", L.Kind},
            {"name", L.Name},
            {"engine", L.Engine},
            {"ms", L.Ms}});
      J["operators_ms"] = std::move(Layers);
      llvm::json::Array Parts;
      for (const auto &Part : Profile->Partitions)
        Parts.push_back(llvm::json::Object{
            {"target", Part.Target},
            {"first_operator", int64_t(Part.FirstOperator)},
            {"operators", int64_t(Part.NumOperators)},
            {"run_ms", Part.RunMs},
            {"transfer_ms", Part.TransferMs}});
      J["partitions"] = std::move(Parts);
    }
    if (Image)
      J["image"] = llvm::json::Object{
          {"input", Image->Input},
          {"frame", std::to_string(Image->Width) + "x" +
                        std::to_string(Image->Height) + " " + Image->Format},
          {"fit_ms", Image->FitMs},
          {"convert_ms", Image->ConvertMs},
          {"fraction_of_latency",
           (Image->FitMs + Image->ConvertMs) / Median}};
    printJson(std::move(J));
    return llvm::Error::success();
  }
  llvm::raw_ostream &OS = commandOut();
  if (Gpu)
    OS << O.Model << " (vulkan on " << Info.Device << ", " << Info.Precision
       << ", " << Total
       << " operators, " << Info.Dispatches << " dispatches per run)\n";
  else if (Info.Target == "partitioned") {
    std::vector<std::string> Parts;
    for (const auto &P : M->partitions())
      Parts.push_back(P.Target);
    OS << O.Model << " (partitioned: " << llvm::join(Parts, " then ")
       << (Info.Device.empty() ? "" : ", device " + Info.Device) << ", "
       << Total << " operators)\n";
  } else
    OS << O.Model << " (" << O.Threads << " thread"
       << (O.Threads == 1 ? "" : "s") << ", " << Total
       << " operators: " << Engines["onednn"] << " on oneDNN, "
       << Engines["kiln"] << " on kiln's panel kernel, " << Engines["xnnpack"]
       << " on XNNPACK, " << Engines["eigen"] << " on Eigen, "
       << Engines["reference"] << " reference)\n";
  OS << llvm::format("  load:      %.3f ms (map + verify)\n", LoadMs);
  if (Gpu)
    OS << llvm::format("  session:   %.3f ms (device, buffers, weight upload, "
                       "%llu pipelines; %s)\n",
                       SessionMs, (unsigned long long)Info.Pipelines,
                       Info.PipelineCacheBytes
                           ? ("warm: " + std::to_string(Info.PipelineCacheBytes) +
                              " bytes of pipeline cache read").c_str()
                       : O.Session.PipelineCacheDir.empty()
                           ? "cold: no --pipeline-cache"
                           : "cold: nothing in the pipeline cache yet");
  else
    OS << llvm::format("  session:   %.3f ms (plan, create kernels, pack "
                       "weights)\n",
                       SessionMs);
  if (Info.Target == "cpu")
    OS << llvm::format("  weights:   %.1f MB read in place from the file, "
                       "%.1f MB packed by XNNPACK (their file pages dropped: "
                       "resident once)\n",
                       double(Info.WeightsMappedBytes) / 1e6,
                       double(Info.WeightsReleasedBytes) / 1e6);
  else if (Info.WeightsReleasedBytes)
    OS << llvm::format("  weights:   %.1f MB of file pages dropped once the "
                       "weights were %s (resident once)\n",
                       double(Info.WeightsReleasedBytes) / 1e6,
                       Info.Target == "partitioned"
                           ? "uploaded to the device or packed by XNNPACK"
                           : "uploaded to the device");
  if (!WarmLoads.empty())
    OS << llvm::format("  reload:    %.3f ms median load + session over %zu "
                       "more in this process (warm caches)\n",
                       percentile(WarmLoads, 0.5), WarmLoads.size());
  OS << llvm::format("  first run: %.3f ms\n", FirstMs);
  OS << llvm::format("  latency:   median %.3f ms, p90 %.3f ms, min %.3f ms "
                     "(%u runs)\n",
                     Median, P90, Min, O.Runs);
  if (Image)
    OS << llvm::format("  image:     %lldx%lld %s frame to '%s': fit %.3f ms "
                       "(resize, kiln_session_set_image) + convert %.3f ms "
                       "(PIXELS_TO_TENSOR) = %.1f%% of the median latency\n",
                       (long long)Image->Width, (long long)Image->Height,
                       Image->Format.c_str(), Image->Input.c_str(), Image->FitMs, Image->ConvertMs,
                       100.0 * (Image->FitMs + Image->ConvertMs) / Median);
  OS << "  arena:     " << M->arenaBytes() << " bytes";
  if (size_t Scratch = M->scratchBytes())
    OS << ", plus " << Scratch << " bytes of kernel scratch";
  OS << "\n";
  if (Profile && Gpu) {
    OS << llvm::format("  gpu:       %.3f ms summed over %llu dispatches (%s); "
                       "executor overhead %.3f ms per run (%.2f%%)\n",
                       Profile->MedianMsSum,
                       (unsigned long long)Info.Dispatches,
                       Info.GpuTimestamps ? "timestamp queries"
                                          : "no timestamps on this device",
                       Profile->OverheadMs, 100.0 * Profile->OverheadFraction);
  } else if (Profile) {
    OS << llvm::format("  operators: %.3f ms summed (oneDNN %.3f, kiln %.3f, "
                       "XNNPACK %.3f, Eigen %.3f, reference %.3f); executor "
                       "overhead %.3f ms per run (%.2f%%)\n",
                       Profile->MedianMsSum, Profile->ByEngine["onednn"],
                       Profile->ByEngine["kiln"], Profile->ByEngine["xnnpack"],
                       Profile->ByEngine["eigen"], Profile->ByEngine["reference"],
                       Profile->OverheadMs,
                       100.0 * Profile->OverheadFraction);
  }
  if (Profile && Profile->Partitions.size() > 1) {
    OS << "  partitions (median of the profiled runs; transfers: the copies "
          "of boundary tensors into the partition):\n";
    for (size_t I = 0; I < Profile->Partitions.size(); ++I) {
      const auto &Part = Profile->Partitions[I];
      OS << llvm::format("    %zu %-8s operators %zu-%zu  run %9.3f ms  "
                         "transfers %7.3f ms\n",
                         I, Part.Target.c_str(), Part.FirstOperator,
                         Part.FirstOperator + Part.NumOperators - 1, Part.RunMs,
                         Part.TransferMs);
    }
  }
  if (Profile) {
    for (const auto &[Kind, Ms] : Profile->ByKind)
      OS << llvm::format("    %-36s %9.3f ms\n", Kind.c_str(), Ms);
    // Where the time goes, layer by layer: the slowest operators.
    auto Slowest = Profile->Layers;
    std::stable_sort(Slowest.begin(), Slowest.end(),
                     [](const auto &A, const auto &B) { return A.Ms > B.Ms; });
    if (Slowest.size() > 10)
      Slowest.resize(10);
    OS << "  slowest operators:\n";
    for (const auto &L : Slowest)
      OS << llvm::format("    #%-4zu %-24s %-11s %9.3f ms  %s\n", L.Index,
                         L.Kind.c_str(), ("[" + L.Engine + "]").c_str(), L.Ms,
                         L.Name.c_str());
  }
  return llvm::Error::success();
}

} // namespace

Command addBenchCommand(CLI::App &App) {
  auto O = std::make_shared<BenchOptions>();
  CLI::App *Sub = App.add_subcommand(
      "bench", "time a .kiln model in the kiln runtime (load, first run, "
               "median and p90 latency)");
  Sub->add_option("model", O->Model, "the .kiln file")->required();
  Sub->add_option("--threads", O->Threads,
                  "worker threads (default 1; 0: every core)");
  Sub->add_option("--runs", O->Runs, "timed runs (default 50)");
  Sub->add_option("--sessions", O->Sessions,
                  "load the model and create its session this many times; "
                  "the first is timed cold, the median of the others warm "
                  "(default 1)")
      ->check(CLI::Range(1u, 1000u));
  Sub->add_option("--warmup", O->Warmup,
                  "untimed runs after the first (default 3)");
  Sub->add_flag("--profile", O->Profile,
                "also time every operator and report the executor's overhead");
  Sub->add_flag("--json", O->Json, "print a JSON report on stdout");
  Sub->add_option("--image", O->Image,
                  "WxH: also time fitting a WxH rgba8 frame to the image "
                  "input and the model's conversion of it, apart from the "
                  "model");
  addSessionFlags(*Sub, O->Session);
  return {Sub, [O] { return runBench(*O); }};
}

} // namespace kiln
