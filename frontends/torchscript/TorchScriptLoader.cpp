// importTorchScriptFile for the tools: opens the TorchScript frontend plugin
// on first use and forwards to it (see TorchScriptPlugin.h for why).
//
// The plugin is looked for, in order, at $KILN_TORCHSCRIPT_PLUGIN, beside
// the executable's lib/ folder as installed (BIN/../lib/kiln/), and where
// the build tree put it.
#include "frontends/torchscript/TorchScriptPlugin.h"

#include "Support/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <string>
#include <vector>

namespace kiln {

namespace {

constexpr const char *PluginFile = "kiln-torchscript.so";

std::vector<std::string> candidatePaths() {
  std::vector<std::string> Paths;
  if (const char *Env = std::getenv("KILN_TORCHSCRIPT_PLUGIN"); Env && *Env)
    return {Env};
  std::string Exe = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&candidatePaths));
  if (!Exe.empty()) {
    llvm::SmallString<256> P(llvm::sys::path::parent_path(Exe));
    llvm::sys::path::append(P, "..", "lib", "kiln", PluginFile);
    Paths.emplace_back(P.str());
  }
  Paths.emplace_back(KILN_TORCHSCRIPT_PLUGIN_BUILD_PATH);
  return Paths;
}

struct LoadedPlugin {
  const TorchScriptPluginApi *Api = nullptr;
  std::string Problem;
};

LoadedPlugin loadPlugin() {
  std::string Tried;
  for (const std::string &Path : candidatePaths()) {
    if (!llvm::sys::fs::exists(Path)) {
      Tried += "\n  " + Path + ": not found";
      continue;
    }
    // RTLD_NOW: a symbol the plugin needs and the executable lacks is an
    // error here, not a crash in the middle of an import.
    void *Handle = ::dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!Handle) {
      Tried += "\n  " + Path + ": " + ::dlerror();
      continue;
    }
    using EntryFn = const TorchScriptPluginApi *(*)();
    auto Entry =
        reinterpret_cast<EntryFn>(::dlsym(Handle, KILN_TORCHSCRIPT_PLUGIN_ENTRY));
    const TorchScriptPluginApi *Api = Entry ? Entry() : nullptr;
    if (!Api || Api->AbiVersion != TorchScriptPluginAbiVersion) {
      Tried += "\n  " + Path + ": not a kiln TorchScript plugin of this version";
      continue;
    }
    return {Api, ""};
  }
  return {nullptr, Tried};
}

} // namespace

llvm::Expected<std::unique_ptr<Graph>>
importTorchScriptFile(llvm::StringRef Path,
                      const TorchScriptImportOptions &Opts) {
  static std::once_flag Once;
  static LoadedPlugin Plugin;
  std::call_once(Once, [] { Plugin = loadPlugin(); });
  if (!Plugin.Api)
    return inputError("{0}: cannot load kiln's TorchScript frontend "
                      "(libtorch); tried:{1}",
                      Path, Plugin.Problem);
  return Plugin.Api->Import(Path, Opts);
}

} // namespace kiln
