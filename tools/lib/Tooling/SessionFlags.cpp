#include "Tooling/SessionFlags.h"

namespace kiln {

void addSessionFlags(CLI::App &Sub, CompiledModel::SessionSettings &S,
                     const std::string &Prefix) {
  Sub.add_flag("--no-onednn", S.DisableOnednn,
               Prefix + "run the convolutions on XNNPACK even where this "
                        "runtime has oneDNN (to compare the two)");
  Sub.add_flag("--huge-pages", S.HugePages,
               Prefix + "put the weights oneDNN converts on transparent huge "
                        "pages (kiln_cpu_options huge_page_weights)");
}

} // namespace kiln
