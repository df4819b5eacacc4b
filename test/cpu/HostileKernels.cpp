#include "HostileKernels.h"

#include "LoaderFuzzTarget.h"

#include "Support/FileSystem.h"
#include "schema/kiln_generated.h"

#include "HostileKernelModules.h" // generated: kiln::hostile::<kernel>

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

namespace kiln::mutants {

namespace {

struct HostileKernel {
  const char *Name;
  llvm::ArrayRef<uint32_t> Words;
};

const HostileKernel Kernels[] = {
    {"buffer_reference", kiln::hostile::buffer_reference},
    {"shared_out_of_bounds", kiln::hostile::shared_out_of_bounds},
};

/// Seed with its first shader's module replaced by Words, in place: the
/// vector's length prefix shrinks and the module's words are overwritten,
/// so the FlatBuffer stays valid and nothing else moves. Empty where the
/// seed is no Vulkan file or its module is shorter than Words.
std::string withKernel(const std::string &Seed, llvm::ArrayRef<uint32_t> Words) {
  std::string Bytes = Seed;
  auto *M = fb::GetMutableModel(Bytes.data());
  if (M->payload_type() != fb::TargetPayload::VulkanPayload)
    return "";
  auto *P = static_cast<fb::VulkanPayload *>(M->mutable_payload());
  auto *Shaders = P->mutable_shaders();
  if (!Shaders || !Shaders->size())
    return "";
  auto *Spirv = Shaders->GetMutableObject(0)->mutable_spirv();
  if (!Spirv || Spirv->size() < Words.size())
    return "";
  auto *Data = reinterpret_cast<uint8_t *>(Spirv->data());
  uint32_t Count = flatbuffers::EndianScalar(uint32_t(Words.size()));
  std::memcpy(Data - sizeof(uint32_t), &Count, sizeof Count);
  for (size_t I = 0; I < Words.size(); ++I)
    Spirv->Mutate(flatbuffers::uoffset_t(I), Words[I]);
  return Bytes;
}

} // namespace

HostileKernelFiles hostileKernelFiles(const std::vector<std::string> &Seeds,
                                      const std::string &WriteDir) {
  HostileKernelFiles R;
  for (size_t S = 0; S < Seeds.size(); ++S)
    for (const HostileKernel &K : Kernels) {
      std::string Bytes = withKernel(Seeds[S], K.Words);
      if (Bytes.empty())
        continue;
      ++R.Written;
      if (!WriteDir.empty())
        (void)writeFileAtomically(
            llvm::formatv("{0}/hostile-{1}-{2}.kiln", WriteDir, K.Name, S).str(),
            Bytes);
      if (kiln::fuzz::runOne(Bytes) != kiln::fuzz::Outcome::RejectedAtLoad) {
        ++R.NotRejected;
        llvm::errs() << "kiln-mutants: seed " << S << " with the hostile kernel "
                     << K.Name << " was not rejected by the loader\n";
      }
    }
  return R;
}

} // namespace kiln::mutants
