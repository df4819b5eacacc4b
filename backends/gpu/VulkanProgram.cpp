#include "backends/gpu/VulkanProgram.h"
#include "backends/gpu/ArenaPlanner.h"
#include "backends/gpu/KernelCatalog.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace kiln::vulkan {

int32_t VulkanProgram::addPlace(Place P) {
  Places.push_back(P);
  return int32_t(Places.size() - 1);
}

int32_t VulkanProgram::root(int32_t I) const {
  while (Places[size_t(I)].K == Place::Alias)
    I = Places[size_t(I)].AliasOf;
  return I;
}

int32_t VulkanProgram::addWeight(std::vector<uint8_t> Bytes, int32_t Tensor) {
  // Final bytes: a large model's weights go to the spill file as they are
  // made, so conversion holds one weight at a time (issue "Models past 2 GB").
  Blobs.push_back({Buffer::spilledIfLarge(Buffer::own(std::move(Bytes))),
                   Tensor, -1});
  return int32_t(Blobs.size() - 1);
}

PendingDispatch &VulkanProgram::addDispatch(llvm::StringRef Kernel,
                                            int32_t Operator) {
  Dispatches.emplace_back();
  Dispatches.back().Kernel = Kernel.str();
  Dispatches.back().Operator = Operator;
  return Dispatches.back();
}

uint64_t VulkanProgram::finish(KilnModule &M) {
  auto Payload = std::make_unique<fb::VulkanPayloadT>();

  // Lifetimes of the places the dispatches use, by root.
  constexpr uint32_t Unused = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> First(Places.size(), Unused), Last(Places.size(), 0);
  for (uint32_t D = 0; D < Dispatches.size(); ++D)
    for (const BindingRef &B : Dispatches[D].Bindings)
      if (!B.IsWeight) {
        size_t R = size_t(root(B.Index));
        First[R] = std::min(First[R], D);
        Last[R] = std::max(Last[R], D);
      }

  // The arena (buffer 0), then each graph input's and output's buffer.
  std::vector<ArenaRequest> Requests;
  std::vector<size_t> RequestPlace;
  for (size_t P = 0; P < Places.size(); ++P)
    if (Places[P].K == Place::Arena && First[P] != Unused) {
      Requests.push_back({Places[P].Bytes, First[P], Last[P]});
      RequestPlace.push_back(P);
    }
  uint64_t ArenaBytes = 0;
  std::vector<uint64_t> Offsets =
      planArena(Requests, BindingAlignment, ArenaBytes);
  std::vector<std::pair<uint32_t, uint64_t>> Where(Places.size(), {0, 0});
  auto addBuffer = [&](fb::VulkanBufferKind Kind, uint64_t Size,
                       int32_t Io) {
    auto B = std::make_unique<fb::VulkanBufferT>();
    B->kind = Kind;
    B->size = Size;
    B->io_index = Io;
    Payload->buffers.push_back(std::move(B));
    return uint32_t(Payload->buffers.size() - 1);
  };
  uint32_t Arena =
      addBuffer(fb::VulkanBufferKind::ARENA, std::max<uint64_t>(ArenaBytes, BindingAlignment), -1);
  for (size_t I = 0; I < RequestPlace.size(); ++I)
    Where[RequestPlace[I]] = {Arena, Offsets[I]};
  for (auto Kind : {Place::Input, Place::Output})
    for (size_t P = 0; P < Places.size(); ++P)
      if (Places[P].K == Kind)
        Where[P] = {addBuffer(Kind == Place::Input ? fb::VulkanBufferKind::INPUT
                                                   : fb::VulkanBufferKind::OUTPUT,
                              Places[P].Bytes, Places[P].IoIndex),
                    0};

  // Weights in order, each at an aligned offset, a new buffer when one is
  // full.
  std::vector<std::pair<uint32_t, uint64_t>> BlobWhere(Blobs.size());
  fb::VulkanBufferT *Current = nullptr;
  uint32_t CurrentIndex = 0;
  for (size_t I = 0; I < Blobs.size(); ++I) {
    Blob &B = Blobs[I];
    uint64_t Offset = Current ? alignUp(Current->size, BindingAlignment) : 0;
    if (!Current || (Offset + B.Bytes.size() > MaxWeightBufferBytes && Offset)) {
      CurrentIndex = addBuffer(fb::VulkanBufferKind::WEIGHTS, 0, -1);
      Current = Payload->buffers.back().get();
      Offset = 0;
    }
    B.Segment = M.addSegment(Segment(B.Bytes));
    Current->uploads.push_back(fb::VulkanUpload(uint32_t(B.Segment), Offset));
    Current->size = alignUp(Offset + std::max<uint64_t>(B.Bytes.size(), 4), 16);
    BlobWhere[I] = {CurrentIndex, Offset};
    if (B.Tensor >= 0 && M.Model.tensors[size_t(B.Tensor)]->buffer < 0)
      M.Model.tensors[size_t(B.Tensor)]->buffer = B.Segment;
  }

  // Shaders once each, in order of first use; bindings resolved.
  std::map<std::string, uint32_t> ShaderIndex;
  for (const PendingDispatch &D : Dispatches) {
    auto [It, New] = ShaderIndex.try_emplace(D.Kernel, uint32_t(ShaderIndex.size()));
    if (New) {
      auto S = std::make_unique<fb::VulkanShaderT>();
      S->name = D.Kernel;
      llvm::ArrayRef<uint32_t> Words = kernelSpirv(D.Kernel);
      assert(!Words.empty() && "a kernel the catalog lacks");
      S->spirv.assign(Words.begin(), Words.end());
      Payload->shaders.push_back(std::move(S));
    }
    auto Out = std::make_unique<fb::VulkanDispatchT>();
    Out->shader = It->second;
    // Only the constants the module declares (the optimizer drops the
    // ones a kernel never reads).
    std::set<uint32_t> Declared = specConstantIds(kernelSpirv(D.Kernel));
    for (auto [Id, Value] : D.Spec)
      if (Declared.count(Id))
        Out->spec_constants.emplace_back(Id, Value);
    for (const BindingRef &B : D.Bindings) {
      uint32_t Buf;
      uint64_t Off, Size;
      if (B.IsWeight) {
        std::tie(Buf, Off) = BlobWhere[size_t(B.Index)];
        Size = B.Bytes ? B.Bytes : Blobs[size_t(B.Index)].Bytes.size();
      } else {
        std::tie(Buf, Off) = Where[size_t(root(B.Index))];
        Size = B.Bytes ? B.Bytes : Places[size_t(B.Index)].Bytes;
      }
      Out->bindings.emplace_back(Buf, Off + B.Offset, std::max<uint64_t>(Size, 4));
    }
    Out->group_count_x = D.Groups[0];
    Out->group_count_y = D.Groups[1];
    Out->group_count_z = D.Groups[2];
    Out->operator_ = D.Operator;
    Payload->dispatches.push_back(std::move(Out));
  }

  // The fp16-arithmetic twins after every shader a dispatch names (so the
  // dispatches' shader indices are those of a file without them). A twin
  // must declare no constant its shader lacks: the dispatch carries only
  // the shader's. glslc could drop different constants from the two
  // variants; a kernel where it did keeps fp32 arithmetic (the catalog test
  // holds every twin to the rule).
  size_t NumUsed = Payload->shaders.size();
  for (size_t I = 0; I < NumUsed; ++I) {
    std::string Twin = fp16MathVariant(Payload->shaders[I]->name);
    if (Twin.empty())
      continue;
    llvm::ArrayRef<uint32_t> Words = kernelSpirv(Twin);
    std::set<uint32_t> Own = specConstantIds(kernelSpirv(Payload->shaders[I]->name));
    std::set<uint32_t> Theirs = specConstantIds(Words);
    if (!std::includes(Own.begin(), Own.end(), Theirs.begin(), Theirs.end()))
      continue;
    auto [It, New] = ShaderIndex.try_emplace(Twin, uint32_t(Payload->shaders.size()));
    if (New) {
      auto S = std::make_unique<fb::VulkanShaderT>();
      S->name = Twin;
      S->spirv.assign(Words.begin(), Words.end());
      Payload->shaders.push_back(std::move(S));
    }
    Payload->shaders[I]->fp16_math_variant = int32_t(It->second);
  }

  for (auto [Tensor, P] : TensorPlaces) {
    size_t R = size_t(root(P));
    if (Places[R].K == Place::Arena && First[R] == Unused)
      continue; // never bound: nothing to read back
    auto T = std::make_unique<fb::VulkanTensorPlaceT>();
    T->tensor = Tensor;
    T->buffer = Where[R].first;
    T->offset = Where[R].second;
    T->size = Places[size_t(P)].Bytes;
    Payload->places.push_back(std::move(T));
  }
  M.Model.payload.Set(std::move(*Payload));
  return ArenaBytes;
}

} // namespace kiln::vulkan
