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
# `REQUIRES: torchscript` tests need the TorchScript frontend.
if config.kiln_with_torchscript.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("torchscript")
# `REQUIRES: onednn` tests need a runtime built with oneDNN (x86).
if config.kiln_with_onednn.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("onednn")
# `REQUIRES: avx512f` tests need a CPU that runs kiln's panel kernel.
try:
    with open("/proc/cpuinfo") as cpuinfo:
        if " avx512f" in cpuinfo.read():
            config.available_features.add("avx512f")
except OSError:
    pass
# ASan in the asan preset: make leaks and UB abort with a distinct exit code.
for var in ["ASAN_OPTIONS", "UBSAN_OPTIONS"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
