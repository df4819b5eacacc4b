// The runtime tests' own .kiln writer (they do not link the compiler's):
// the FlatBuffer of a model built with the schema's object API, every field
// written so that the segment offsets can be set in place, then each weight
// segment at the next 64-byte boundary. Shared by the GPU (GpuTestModel.h)
// and NNAPI (nnapi/NnapiTestModels.h) test models.
#pragma once

#include "schema/kiln_generated.h"

#include <string>
#include <vector>

namespace kiln::testwriter {

inline std::string kilnBytes(const fb::ModelT &Model,
                             const std::vector<std::vector<uint8_t>> &Segments) {
  flatbuffers::FlatBufferBuilder B;
  B.ForceDefaults(true);
  B.Finish(fb::Model::Pack(B, &Model), fb::ModelIdentifier());
  std::string File(reinterpret_cast<const char *>(B.GetBufferPointer()),
                   B.GetSize());
  std::vector<uint64_t> Offsets;
  for (const std::vector<uint8_t> &S : Segments) {
    File.resize((File.size() + 63) / 64 * 64, '\0');
    Offsets.push_back(File.size());
    File.append(reinterpret_cast<const char *>(S.data()), S.size());
  }
  fb::Model *Root = fb::GetMutableModel(File.data());
  for (size_t I = 0; I < Offsets.size(); ++I)
    Root->mutable_buffers()->GetMutableObject(unsigned(I))->mutate_offset(
        Offsets[I]);
  return File;
}

} // namespace kiln::testwriter
