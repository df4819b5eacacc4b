// The boundary between the tools and the TorchScript frontend plugin.
//
// libtorch takes more than a second to load and initialise, so the importer
// is a plugin (kiln-torchscript.so) that TorchScriptLoader.cpp opens with
// dlopen the first time a .pt file is read; no other command pays for it.
// The plugin has no copy of kiln's own libraries: its references to them
// bind to the host executable, which exports them (see CMakeLists.txt), so
// Graphs, Errors and registries are the host's own objects on both sides.
#pragma once

#include "frontends/torchscript/TorchScriptImporter.h"

#include <cstdint>

namespace kiln {

/// Bumped whenever TorchScriptPluginApi or TorchScriptImportOptions changes.
inline constexpr uint32_t TorchScriptPluginAbiVersion = 1;

struct TorchScriptPluginApi {
  uint32_t AbiVersion;
  llvm::Expected<std::unique_ptr<Graph>> (*Import)(
      llvm::StringRef Path, const TorchScriptImportOptions &Opts);
};

/// The importer, inside the plugin (importTorchScriptFile is the host's
/// loader; the two names must differ).
llvm::Expected<std::unique_ptr<Graph>>
importTorchScriptModule(llvm::StringRef Path,
                        const TorchScriptImportOptions &Opts);

} // namespace kiln

/// The plugin's one entry point, looked up by name.
#define KILN_TORCHSCRIPT_PLUGIN_ENTRY "kiln_torchscript_plugin_api"
extern "C" const kiln::TorchScriptPluginApi *kiln_torchscript_plugin_api();
