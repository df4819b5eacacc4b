#include "backends/cpu/NativePrepack.h"

#include "backends/common/KilnWriter.h"

#include "kiln/native_layouts.h"

#include "Support/Error.h"

#include "llvm/Support/Memory.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

namespace kiln {

/// What the blocked segments' producers share: the bytes of the weight
/// being converted, as the portable file would store them, and the first
/// conversion that failed.
struct PackingState {
  std::mutex Lock;
  std::vector<char> Stored;
  std::string Failed;
};

llvm::Error PrepackReport::conversionError() const {
  if (!State)
    return llvm::Error::success();
  std::lock_guard<std::mutex> Hold(State->Lock);
  if (State->Failed.empty())
    return llvm::Error::success();
  return internalError("--prepack native: oneDNN failed to convert the weight "
                       "'{0}' to its blocked layout",
                       State->Failed);
}

namespace {

/// The segments of the weights a convolution or fully connected layer
/// reads (its input 1): the ones a kernel may convert.
std::set<int32_t> weightSegments(const fb::ModelT &M) {
  std::set<int32_t> Out;
  for (const auto &Op : M.operators)
    if ((Op->kind == fb::OpKind::CONV_2D ||
         Op->kind == fb::OpKind::FULLY_CONNECTED) &&
        Op->inputs.size() > 1 && Op->inputs[1] >= 0)
      Out.insert(M.tensors[size_t(Op->inputs[1])]->buffer);
  return Out;
}

/// M as a file whose weight segments (weightSegments) are left as zeros, in
/// anonymous memory that only the FlatBuffer and the other segments touch:
/// what a layout-only session reads. Its kernels choose their weights'
/// layouts from the shapes alone, and convert no weight.
class LayoutImage {
public:
  static llvm::Expected<std::unique_ptr<LayoutImage>> of(KilnModule &M) {
    auto L = layoutKilnModule(M);
    if (!L)
      return L.takeError();
    std::set<int32_t> Weights = weightSegments(M.Model);
    auto Image = std::unique_ptr<LayoutImage>(new LayoutImage());
    std::error_code EC;
    Image->Block = llvm::sys::Memory::allocateMappedMemory(
        size_t((*L)->Size), nullptr,
        llvm::sys::Memory::MF_READ | llvm::sys::Memory::MF_WRITE, EC);
    if (EC)
      return internalError("--prepack native: cannot map {0} bytes: {1}",
                           (*L)->Size, EC.message());
    Image->Size = size_t((*L)->Size);
    char *Base = static_cast<char *>(Image->Block.base());
    // The FlatBuffer, then segment I as piece I + 1.
    for (size_t I = 0; I < (*L)->Pieces.size(); ++I) {
      const FilePiece &P = (*L)->Pieces[I];
      if (!P.Produce && (I == 0 || !Weights.count(int32_t(I - 1))))
        std::copy(P.Bytes.begin(), P.Bytes.end(), Base + P.Offset);
    }
    return Image;
  }
  ~LayoutImage() { llvm::sys::Memory::releaseMappedMemory(Block); }
  LayoutImage(const LayoutImage &) = delete;
  LayoutImage &operator=(const LayoutImage &) = delete;

  const char *data() const { return static_cast<const char *>(Block.base()); }
  size_t size() const { return Size; }

private:
  LayoutImage() = default;
  llvm::sys::MemoryBlock Block;
  size_t Size = 0;
};

std::unique_ptr<fb::BlockedLayoutT> toSchema(const runtime::NativeLayout &L) {
  auto B = std::make_unique<fb::BlockedLayoutT>();
  B->library = L.Library;
  B->isa = L.Isa;
  B->order = L.Order;
  B->padded_dims = L.PaddedDims;
  B->strides = L.Strides;
  B->inner_blocks = L.InnerBlocks;
  B->inner_dims = L.InnerDims;
  return B;
}

/// Writes the weight of tensor Name, stored portably as Stored, in the
/// blocked layout Packed describes: converted while the file is written,
/// on the writer's producer thread, so the conversion overlaps the disk.
Segment::Producer blockedProducer(const Segment &Stored, std::string Name,
                                  const runtime::NativeWeight &Packed,
                                  std::shared_ptr<PackingState> State) {
  auto Fail = [State, Name] {
    std::lock_guard<std::mutex> Hold(State->Lock);
    if (State->Failed.empty())
      State->Failed = Name;
  };
  if (!Stored.isProduced())
    return [Bytes = Stored.bytes(), Pack = Packed.Pack, Fail](char *Out) {
      if (!Pack(Bytes.data(), reinterpret_cast<uint8_t *>(Out)))
        Fail();
    };
  return [Make = Stored.producer(), Size = size_t(Stored.size()),
          Pack = Packed.Pack, State, Fail](char *Out) {
    bool Converted = false;
    {
      std::lock_guard<std::mutex> Hold(State->Lock);
      State->Stored.resize(std::max(State->Stored.size(), Size));
      Make(State->Stored.data());
      Converted = Pack(reinterpret_cast<const uint8_t *>(State->Stored.data()),
                    reinterpret_cast<uint8_t *>(Out));
    }
    if (!Converted)
      Fail();
  };
}

} // namespace

llvm::Expected<PrepackReport> prepackForThisCpu(KilnModule &M) {
  auto Image = LayoutImage::of(M);
  if (!Image)
    return Image.takeError();
  std::vector<runtime::NativeWeight> Weights;
  std::string Error;
  if (!runtime::nativeWeightLayouts((*Image)->data(), (*Image)->size(),
                                    Weights, Error))
    return internalError("--prepack native: {0}", Error);

  PrepackReport R;
  R.State = std::make_shared<PackingState>();
  std::map<int32_t, unsigned> Readers; // segment -> tensors that use it
  for (const auto &T : M.Model.tensors)
    if (T->buffer >= 0)
      ++Readers[T->buffer];
  std::set<int32_t> Done;
  for (const runtime::NativeWeight &Packed : Weights) {
    int32_t Index = Packed.Tensor;
    if (!Done.insert(Index).second)
      continue; // a weight two convolutions share: packed the same way
    fb::TensorT &T = *M.Model.tensors[size_t(Index)];
    const Segment &Stored = M.Segments[size_t(T.buffer)];
    R.PaddingBytes += Packed.Bytes - Stored.size();
    Segment Blocked = Segment::produced(
        Packed.Bytes, blockedProducer(Stored, T.name, Packed, R.State));
    if (Readers[T.buffer] == 1)
      M.Segments[size_t(T.buffer)] = std::move(Blocked);
    else // another tensor reads the plain bytes
      T.buffer = M.addSegment(std::move(Blocked));
    T.layout = fb::Layout::BLOCKED;
    T.blocked = toSchema(Packed.Layout);
    R.Isa = Packed.Layout.Isa;
    ++R.Tensors;
  }
  return R;
}

} // namespace kiln
