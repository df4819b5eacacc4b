#include "PySessionOptions.h"
#include "PyErrors.h"

#include <functional>
#include <map>

namespace py = pybind11;

namespace kiln::python {

namespace {

const char *const OptionNames =
    "force_reference, disable_onednn, huge_page_weights, "
    "verify_weight_hashes, max_arena_bytes, keep_intermediates, "
    "vulkan_device, vulkan_validation, pipeline_cache_dir, fp16_arithmetic, "
    "robust_buffer_access, run_timeout_ms, nnapi_library, nnapi_preference, "
    "nnapi_disallow_cpu, nnapi_cache_dir, metal_binary_archive";

[[noreturn]] void usage(const std::string &Message) {
  raiseDiagnosis({ExitCode::Usage, Message});
}

} // namespace

const char *SessionOptions::names() { return OptionNames; }

SessionOptions::SessionOptions(std::optional<unsigned> Threads,
                               const py::kwargs &Kwargs,
                               const std::string &Path) {
  kiln_session_options_init(&Session);
  kiln_cpu_options_init(&Cpu);
  kiln_vulkan_options_init(&Vulkan);
  kiln_nnapi_options_init(&Nnapi);
  kiln_metal_options_init(&Metal);
  Session.num_threads = Threads ? *Threads : 0;
  Session.cpu = &Cpu;
  Session.vulkan = &Vulkan;
  Session.nnapi = &Nnapi;
  Session.metal = &Metal;

  auto Flag = [](uint32_t &Field) {
    return [&Field](const py::handle &V) { Field = V.cast<bool>() ? 1 : 0; };
  };
  auto PathOption = [](std::string &Store, const char *&Field) {
    return [&Store, &Field](const py::handle &V) {
      // str, bytes or os.PathLike; anything else is a TypeError (below).
      Store = py::str(py::module_::import("os").attr("fsdecode")(V));
      Field = Store.c_str();
    };
  };
  const std::map<std::string, std::function<void(const py::handle &)>> Set = {
      {"force_reference", Flag(Cpu.force_reference)},
      {"disable_onednn", Flag(Cpu.disable_onednn)},
      {"huge_page_weights", Flag(Cpu.huge_page_weights)},
      {"verify_weight_hashes", Flag(Session.verify_weight_hashes)},
      {"keep_intermediates", Flag(Session.keep_intermediates)},
      {"max_arena_bytes",
       [this](const py::handle &V) { Session.max_arena_bytes = V.cast<uint64_t>(); }},
      {"vulkan_device",
       [this](const py::handle &V) { Vulkan.device_index = V.cast<int32_t>(); }},
      {"vulkan_validation", Flag(Vulkan.validation)},
      {"pipeline_cache_dir", PathOption(PipelineCacheDir, Vulkan.pipeline_cache_dir)},
      {"fp16_arithmetic",
       [this](const py::handle &V) {
         Vulkan.fp16_arithmetic = V.cast<bool>()
                                      ? KILN_VULKAN_FP16_ARITHMETIC_AUTO
                                      : KILN_VULKAN_FP16_ARITHMETIC_OFF;
       }},
      {"robust_buffer_access",
       [this](const py::handle &V) {
         Vulkan.robust_buffer_access =
             V.cast<bool>() ? KILN_VULKAN_ROBUST_BUFFER_ACCESS_AUTO
                            : KILN_VULKAN_ROBUST_BUFFER_ACCESS_OFF;
       }},
      {"run_timeout_ms",
       [this](const py::handle &V) { Vulkan.run_timeout_ms = V.cast<uint32_t>(); }},
      {"nnapi_library", PathOption(NnapiLibrary, Nnapi.library)},
      {"nnapi_preference",
       [this](const py::handle &V) {
         std::string P = V.cast<std::string>();
         if (P == "low_power")
           Nnapi.preference = KILN_NNAPI_PREFER_LOW_POWER;
         else if (P == "fast_single_answer")
           Nnapi.preference = KILN_NNAPI_PREFER_FAST_SINGLE_ANSWER;
         else if (P == "sustained_speed")
           Nnapi.preference = KILN_NNAPI_PREFER_SUSTAINED_SPEED;
         else
           usage("nnapi_preference='" + P +
                 "': use 'low_power', 'fast_single_answer' or "
                 "'sustained_speed'");
       }},
      {"nnapi_disallow_cpu", Flag(Nnapi.disallow_cpu)},
      {"nnapi_cache_dir", PathOption(NnapiCacheDir, Nnapi.cache_dir)},
      {"metal_binary_archive", PathOption(MetalArchive, Metal.binary_archive_path)},
  };
  for (auto [Key, Value] : Kwargs) {
    std::string Name = py::str(Key);
    auto It = Set.find(Name);
    if (It == Set.end())
      usage(Path + ": kiln.Session takes no option '" + Name +
            "' (options: threads, " + OptionNames + ")");
    if (Value.is_none())
      continue; // the runtime's default
    try {
      It->second(Value);
    } catch (const py::cast_error &) {
      usage(Path + ": option " + Name + "=" + std::string(py::repr(Value)) +
            " has the wrong type");
    } catch (const py::error_already_set &) { // os.fsdecode's TypeError
      usage(Path + ": option " + Name + "=" + std::string(py::repr(Value)) +
            " has the wrong type");
    }
  }
}

} // namespace kiln::python
