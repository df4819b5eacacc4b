// kiln-metal-kernel-identities DIR NAME...: writes DIR/NAME.identity for each
// catalog kernel NAME: metalKernelIdentity (runtime/src/metal/
// MetalKernelIdentity.h) of its Metal record exactly as compileForMetal
// writes it, at the MSL version kiln writes. The build hashes these into
// the runtime's Metal kernel catalog (runtime/src/metal/Sources.cmake).
// Every catalog kernel must translate: a failure fails the build.
#include "backends/metal/MetalTarget.h"
#include "backends/metal/MslTranslation.h"
#include "metal/MetalKernelIdentity.h"

#include "Support/FileSystem.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

int main(int Argc, char **Argv) {
  if (Argc < 3) {
    llvm::errs() << "usage: kiln-metal-kernel-identities DIR NAME...\n";
    return 2;
  }
  for (int I = 2; I < Argc; ++I) {
    auto Record = kiln::metalCatalogKernel(Argv[I]);
    if (!Record) {
      llvm::errs() << "kiln-metal-kernel-identities: " << Argv[I] << ": "
                   << llvm::toString(Record.takeError()) << '\n';
      return 1;
    }
    flatbuffers::FlatBufferBuilder B;
    B.Finish(kiln::fb::MetalKernel::Pack(B, Record->get()));
    const auto *Table =
        flatbuffers::GetRoot<kiln::fb::MetalKernel>(B.GetBufferPointer());
    std::string Path = std::string(Argv[1]) + "/" + Argv[I] + ".identity";
    if (llvm::Error E = kiln::writeFileAtomically(
            Path, kiln::rt::metalKernelIdentity(*Table, kiln::metal::MslVersion))) {
      llvm::errs() << "kiln-metal-kernel-identities: "
                   << llvm::toString(std::move(E)) << '\n';
      return 1;
    }
  }
  return 0;
}
