#include "HostileKernels.h"

#include "LoaderFuzzTarget.h"

#include "kiln/kiln.h"

#include "Support/FileSystem.h"
#include "schema/kiln_generated.h"

#include "HostileKernelModules.h" // generated: kiln::hostile::<kernel>

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <string>

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

/// Seed with the first two buffer indices of its first Metal kernel
/// swapped: kiln's MSL, whose bindings the executor would then set at each
/// other's index. Structurally valid; only the catalog (which covers the
/// indices with the MSL) tells. Empty where the seed is no Metal file.
std::string withSwappedMetalBuffers(const std::string &Seed) {
  std::string Bytes = Seed;
  auto *M = fb::GetMutableModel(Bytes.data());
  if (M->payload_type() != fb::TargetPayload::MetalPayload)
    return "";
  auto *P = static_cast<fb::MetalPayload *>(M->mutable_payload());
  auto *Kernels = P->mutable_kernels();
  if (!Kernels || !Kernels->size())
    return "";
  auto *Indices = Kernels->GetMutableObject(0)->mutable_buffer_indices();
  if (!Indices || Indices->size() < 2)
    return "";
  uint32_t First = Indices->Get(0);
  Indices->Mutate(0, Indices->Get(1));
  Indices->Mutate(1, First);
  return Bytes;
}

/// Loads Bytes: it must be refused by the kernel catalog, not by another
/// check that happens to catch it.
bool refusedByCatalog(const std::string &Bytes) {
  if (kiln::fuzz::runOne(Bytes) != kiln::fuzz::Outcome::RejectedAtLoad)
    return false;
  return std::string(kiln_last_error()).find(
             "is not one of this runtime's kernels") != std::string::npos;
}

} // namespace

HostileKernelFiles hostileKernelFiles(const std::vector<std::string> &Seeds,
                                      const std::string &WriteDir) {
  HostileKernelFiles R;
  auto Check = [&](const std::string &Bytes, const std::string &Name) {
    if (Bytes.empty())
      return;
    ++R.Written;
    if (!WriteDir.empty())
      (void)writeFileAtomically(
          llvm::formatv("{0}/hostile-{1}.kiln", WriteDir, Name).str(), Bytes);
    if (!refusedByCatalog(Bytes)) {
      ++R.NotRejected;
      llvm::errs() << "kiln-mutants: " << Name
                   << " was not refused by the kernel catalog\n";
    }
  };
  for (size_t S = 0; S < Seeds.size(); ++S) {
    for (const HostileKernel &K : Kernels)
      Check(withKernel(Seeds[S], K.Words),
            llvm::formatv("{0}-{1}", K.Name, S).str());
    Check(withSwappedMetalBuffers(Seeds[S]),
          llvm::formatv("metal_buffers_swapped-{0}", S).str());
  }
  return R;
}

} // namespace kiln::mutants
