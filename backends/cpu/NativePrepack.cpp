#include "backends/cpu/NativePrepack.h"

#include "backends/common/KilnWriter.h"

#include "LoadedModel.h"
#include "ModelBytes.h"
#include "Session.h"

#include "Support/Error.h"

#include <map>
#include <set>

namespace kiln {

namespace {

/// The session whose kernels hold the packed weights, with the file bytes
/// its model was loaded from: the new segments alias its memory.
struct PackingSession {
  std::string Bytes;
  std::unique_ptr<rt::Session> Session;
};

std::unique_ptr<fb::BlockedLayoutT> toSchema(const rt::BlockedDesc &L) {
  auto B = std::make_unique<fb::BlockedLayoutT>();
  B->library = L.Library;
  B->isa = L.Isa;
  B->order = L.Order;
  B->padded_dims = L.Padded;
  B->strides = L.Strides;
  B->inner_blocks = L.InnerBlocks;
  B->inner_dims = L.InnerDims;
  return B;
}

} // namespace

llvm::Expected<PrepackReport> prepackForThisCpu(KilnModule &M) {
  auto Bytes = serializeKilnModule(M);
  if (!Bytes)
    return Bytes.takeError();
  auto Owner = std::make_shared<PackingSession>();
  Owner->Bytes = std::move(*Bytes);
  // Weights packed while serializing are not packed again when the file is
  // written: those the session leaves as they are alias these bytes.
  for (size_t I = 0; I < M.Segments.size(); ++I)
    if (M.Segments[I].isProduced())
      M.Segments[I] = Buffer::alias(
          Owner,
          reinterpret_cast<const uint8_t *>(Owner->Bytes.data()) +
              M.Model.buffers[I]->offset,
          size_t(M.Segments[I].size()));
  std::shared_ptr<const rt::LoadedModel> Model;
  if (rt::Status S = rt::loadVerifiedModel(
          rt::ModelBytes::borrow(Owner->Bytes.data(), Owner->Bytes.size()),
          Model))
    return internalError("--prepack native: the runtime rejects the compiled "
                         "model: {0}", S.message());
  rt::SessionOptions Opts;
  Opts.Threads = 1; // the sessions that run oneDNN
  std::unique_ptr<rt::Session> &Session = Owner->Session;
  if (rt::Status S = rt::Session::create(Model, Opts, Session))
    return internalError("--prepack native: cannot create a session: {0}",
                         S.message());

  PrepackReport R;
  std::map<int32_t, unsigned> Readers; // segment -> tensors that use it
  for (const auto &T : M.Model.tensors)
    if (T->buffer >= 0)
      ++Readers[T->buffer];
  std::set<int32_t> Done;
  for (const auto &[Index, Packed] : Session->packedWeights()) {
    if (!Done.insert(Index).second)
      continue; // a weight two convolutions share: packed the same way
    fb::TensorT &T = *M.Model.tensors[size_t(Index)];
    Buffer Blocked = Buffer::alias(Owner, Packed.Data, size_t(Packed.Bytes));
    R.PaddingBytes += Packed.Bytes - M.Segments[size_t(T.buffer)].size();
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
