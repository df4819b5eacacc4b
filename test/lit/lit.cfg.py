# lit configuration for kiln: FileCheck tests on .kir files and CLI runs.
# RUN lines run in bash (external shell), so `(cmd; echo "exit=$?")` works.
import os
import lit.formats

config.name = "kiln"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".kir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_obj_root, "test", "lit")
config.excludes = ["lit.cfg.py", "lit.site.cfg.py.in", "Inputs"]

config.environment["PATH"] = os.pathsep.join(
    [config.kiln_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
config.substitutions.append(("%kiln", os.path.join(config.kiln_tools_dir, "kiln")))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("%src", config.kiln_src_root))
# The host NNAPI device (test/nnapi), which the runtime's NNAPI executor
# dlopens in place of Android's libneuralnetworks.so.
config.substitutions.append(("%nnapi_host", os.path.join(
    config.kiln_obj_root, "test", "nnapi", "libkiln_nnapi_host.so")))
# Headless Chromium (Debian's chromium, installed by scripts/install-deps.sh)
# renders kiln build's HTML report; as root it needs --no-sandbox.
config.substitutions.append(("%chromium",
    "chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage"))
# `REQUIRES: torchscript` tests need the TorchScript frontend.
if config.kiln_with_torchscript.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("torchscript")
    # `REQUIRES: torchvision`: the importer has torchvision's operator
    # library to load (python3-torchvision, found by CMake).
    if config.kiln_torchvision_ops:
        config.available_features.add("torchvision")
# `REQUIRES: onednn` tests need a runtime built with oneDNN (x86).
if config.kiln_with_onednn.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("onednn")
# `REQUIRES: vulkan` tests run Vulkan sessions: a runtime built with the
# Vulkan executor (a device, lavapipe at least, is then expected). The
# loader's ICD variables pass through, so a run can pick or hide drivers.
if getattr(config, "kiln_with_vulkan", "").upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("vulkan")
for var in ["VK_ICD_FILENAMES", "VK_DRIVER_FILES", "VK_LAYER_PATH"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
# The x86 kernels a session takes: "avx512" where the CPU has AVX-512F and
# ONEDNN_MAX_CPU_ISA (which caps oneDNN, and kiln's own AVX-512 kernel with
# it) does not rule it out; "avx2" otherwise. Tests of an ISA-specific
# kernel check it where the CPU has it and the path taken instead where it
# does not: `REQUIRES: avx512`, or FileCheck prefixes named by %isa
# (`--check-prefixes=X,X-%isa` reads X-AVX512 or X-AVX2 lines).
isa_cap = os.environ.get("ONEDNN_MAX_CPU_ISA", "ALL").upper()
if "ONEDNN_MAX_CPU_ISA" in os.environ:
    config.environment["ONEDNN_MAX_CPU_ISA"] = os.environ["ONEDNN_MAX_CPU_ISA"]
try:
    with open("/proc/cpuinfo") as cpuinfo:
        cpu_avx512 = " avx512f" in cpuinfo.read()
except OSError:
    cpu_avx512 = False
isa = "avx512" if cpu_avx512 and (isa_cap == "ALL" or
                                  isa_cap.startswith("AVX512")) else "avx2"
config.available_features.add(isa)
config.substitutions.append(("%isa", isa.upper()))
# `%ulimit_v KB` bounds a command's address space, to show that hostile
# input cannot make kiln allocate without bound. The sanitizers reserve
# terabytes of address space for their shadow memory at start-up, so under
# them it bounds nothing (the release build's run is the check).
def _on(value):
    return str(value).upper() in ("ON", "1", "TRUE", "YES")
sanitized = _on(getattr(config, "kiln_sanitize", "")) or _on(getattr(config, "kiln_tsan", ""))
config.substitutions.append(("%ulimit_v", ": ulimit -v" if sanitized else "ulimit -v"))
# ASan in the asan preset: make leaks and UB abort with a distinct exit code.
for var in ["ASAN_OPTIONS", "UBSAN_OPTIONS"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
