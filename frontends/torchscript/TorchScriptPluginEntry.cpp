// The entry point the loader looks up in kiln-torchscript.so.
#include "frontends/torchscript/TorchScriptPlugin.h"

extern "C" __attribute__((visibility("default"))) const kiln::TorchScriptPluginApi *
kiln_torchscript_plugin_api() {
  static const kiln::TorchScriptPluginApi Api{
      kiln::TorchScriptPluginAbiVersion, &kiln::importTorchScriptModule};
  return &Api;
}
