// BLOCKED convolution weights (schema 1.3, BlockedLayout.h): a weight laid
// out by hand in oneDNN's Oihw4o order computes exactly what its OHWI
// original does on every kernel set; unpackBlocked inverts oneDNN's own
// reorders; and the loader rejects every inconsistent layout.
#include "loader/BlockedLayout.h"
#include "RuntimeTestModels.h"
#include "TestSession.h"

#include <catch2/catch.hpp>

#ifdef KILN_WITH_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#endif

using namespace kiln;
using namespace kiln::testmodels;
using kiln::testing::Kernels;

namespace {

// convModule's weight: O=3, KH=KW=3, I=2 (OHWI).
constexpr int64_t O = 3, KH = 3, KW = 3, I = 2;

/// oneDNN's Oihw4o for that weight, by its definition: dims (O, I, KH, KW),
/// O padded to 4 and split into an inner block of 4; outer strides in
/// elements: O 2*3*3*4, I 3*3*4, KH 3*4, KW 4.
std::vector<float> oihw4o(const std::vector<float> &Ohwi) {
  std::vector<float> Out(72, 0.f);
  for (int64_t Oc = 0; Oc < O; ++Oc)
    for (int64_t Y = 0; Y < KH; ++Y)
      for (int64_t X = 0; X < KW; ++X)
        for (int64_t Ic = 0; Ic < I; ++Ic)
          Out[size_t((Oc / 4) * 72 + Ic * 36 + Y * 12 + X * 4 + Oc % 4)] =
              Ohwi[size_t(((Oc * KH + Y) * KW + X) * I + Ic)];
  return Out;
}

std::unique_ptr<fb::BlockedLayoutT> oihw4oLayout() {
  auto L = std::make_unique<fb::BlockedLayoutT>();
  L->library = "onednn";
  L->isa = "test";
  L->order = {0, 3, 1, 2};
  L->padded_dims = {4, 2, 3, 3};
  L->strides = {72, 36, 12, 4};
  L->inner_blocks = {4};
  L->inner_dims = {0};
  return L;
}

/// convModule with its weight stored as oihw4o.
KilnModule blockedConvModule() {
  KilnModule M = convModule();
  fb::TensorT &W = *M.Model.tensors[1];
  REQUIRE(W.name == "w");
  const Buffer &Plain = M.Segments[size_t(W.buffer)].bytes();
  std::vector<float> Ohwi(size_t(O * KH * KW * I));
  std::memcpy(Ohwi.data(), Plain.data(), Ohwi.size() * sizeof(float));
  std::vector<float> Blocked = oihw4o(Ohwi);
  M.Segments[size_t(W.buffer)] = Buffer::copy(
      {reinterpret_cast<const uint8_t *>(Blocked.data()),
       Blocked.size() * sizeof(float)});
  W.layout = fb::Layout::BLOCKED;
  W.blocked = oihw4oLayout();
  return M;
}

std::vector<float> convInput() {
  std::vector<float> X(1 * 4 * 4 * 2);
  for (size_t K = 0; K < X.size(); ++K)
    X[K] = float(int(K % 5) - 2) * 0.5f;
  return X;
}

std::vector<float> runConv(const KilnModule &M, Kernels K, std::string &Engine) {
  TestSession S(bytesOf(M), K);
  std::vector<float> X = convInput();
  S.run(X.data(), X.size() * sizeof(float));
  Engine = S.engines().at(0);
  return S.output<float>();
}

} // namespace

TEST_CASE("a BLOCKED weight computes what its OHWI original does",
          "[blocked]") {
  for (Kernels K : {Kernels::Default, Kernels::XnnpackOnly,
                    Kernels::ReferenceOnly}) {
    INFO(kiln::testing::kernelsName(K));
    std::string PlainEngine, BlockedEngine;
    std::vector<float> Plain = runConv(convModule(), K, PlainEngine);
    std::vector<float> Blocked = runConv(blockedConvModule(), K, BlockedEngine);
    REQUIRE(BlockedEngine == PlainEngine);
    REQUIRE(Blocked == Plain); // the same kernel on the same weights
  }
}

TEST_CASE("unpackBlocked reads the hand-laid Oihw4o order", "[blocked]") {
  KilnModule M = blockedConvModule();
  std::string Bytes = bytesOf(M);
  const fb::Tensor &T = *fb::GetModel(Bytes.data())->tensors()->Get(1);
  rt::TensorDesc D;
  D.DType = fb::DType::F32;
  D.Layout = fb::Layout::BLOCKED;
  D.Shape = {O, KH, KW, I};
  D.Elements = uint64_t(O * KH * KW * I);
  D.Bytes = D.Elements * 4;
  REQUIRE(!rt::describeBlocked(T, D));
  REQUIRE(D.StoredBytes == 72 * 4);
  // Element (o=2, kh=1, kw=2, i=1) sits at 0*72 + 1*36 + 1*12 + 2*4 + 2.
  const int64_t Index[] = {2, 1, 2, 1};
  REQUIRE(rt::blockedOffset(*D.Blocked, Index) == 58);
  std::vector<float> Ohwi(size_t(D.Elements));
  for (size_t K = 0; K < Ohwi.size(); ++K)
    Ohwi[K] = float(K) + 1;
  std::vector<float> Blocked = oihw4o(Ohwi);
  std::vector<uint8_t> Back = rt::unpackBlocked(
      D, reinterpret_cast<const uint8_t *>(Blocked.data()), 16);
  REQUIRE(Back.size() == D.Bytes + 16);
  std::vector<float> Values(Ohwi.size());
  std::memcpy(Values.data(), Back.data(), D.Bytes);
  REQUIRE(Values == Ohwi);
}

#ifdef KILN_WITH_ONEDNN
TEST_CASE("unpackBlocked inverts oneDNN's reorders", "[blocked]") {
  using dnnl::memory;
  using Tag = memory::format_tag;
  dnnl::engine E(dnnl::engine::kind::cpu, 0);
  dnnl::stream S(E);
  const int64_t Oc = 20, Ic = 24, H = 3, W = 3; // not multiples of 16
  memory::desc Plain({Oc, Ic, H, W}, memory::data_type::f32, Tag::ohwi);
  std::vector<float> Ohwi(size_t(Oc * Ic * H * W));
  for (size_t K = 0; K < Ohwi.size(); ++K)
    Ohwi[K] = float(K % 1009) - 500.f;
  for (Tag T : {Tag::OIhw16i16o, Tag::Ohwi16o, Tag::OIhw4i16o4i, Tag::Oihw4o,
                Tag::oihw}) {
    INFO("format tag " << int(T));
    memory Src(Plain, E, Ohwi.data());
    memory Dst(memory::desc({Oc, Ic, H, W}, memory::data_type::f32, T), E);
    dnnl::reorder(Src, Dst).execute(S, Src, Dst);
    S.wait();
    const dnnl_memory_desc_t &C = Dst.get_desc().data;
    rt::TensorDesc D;
    D.DType = fb::DType::F32;
    D.Shape = {Oc, H, W, Ic};
    D.Elements = Ohwi.size();
    D.Bytes = D.Elements * 4;
    rt::BlockedDesc L;
    L.Library = "onednn";
    L.Order = {0, 3, 1, 2};
    for (int K = 0; K < 4; ++K) {
      L.Padded.push_back(C.padded_dims[K]);
      L.Strides.push_back(C.format_desc.blocking.strides[K]);
    }
    for (int B = 0; B < C.format_desc.blocking.inner_nblks; ++B) {
      L.InnerBlocks.push_back(C.format_desc.blocking.inner_blks[B]);
      L.InnerDims.push_back(int32_t(C.format_desc.blocking.inner_idxs[B]));
    }
    D.Blocked = L;
    std::vector<uint8_t> Back = rt::unpackBlocked(
        D, static_cast<const uint8_t *>(Dst.get_data_handle()), 0);
    std::vector<float> Values(Ohwi.size());
    std::memcpy(Values.data(), Back.data(), D.Bytes);
    REQUIRE(Values == Ohwi);
  }
}
#endif

TEST_CASE("the loader rejects inconsistent BLOCKED weights", "[blocked][loader]") {
  auto Mutated = [](auto Edit) {
    KilnModule M = blockedConvModule();
    Edit(M);
    return bytesOf(std::move(M));
  };
  auto Weight = [](KilnModule &M) -> fb::TensorT & { return *M.Model.tensors[1]; };
  std::string Error;
  REQUIRE(tryLoad(bytesOf(blockedConvModule()), Error) == KILN_OK);

  requireRejected(Mutated([&](KilnModule &M) { Weight(M).blocked.reset(); }),
                  KILN_ERROR_INVALID_MODEL,
                  "tensor 1 'w': layout BLOCKED without Tensor.blocked");
  requireRejected(
      Mutated([&](KilnModule &M) { Weight(M).layout = fb::Layout::OHWI; }),
      KILN_ERROR_INVALID_MODEL, "Tensor.blocked on a tensor whose layout is not BLOCKED");
  requireRejected(
      Mutated([&](KilnModule &M) { Weight(M).blocked->library = "mlas"; }),
      KILN_ERROR_UNSUPPORTED, "weights blocked for kernel library 'mlas'");
  requireRejected(
      Mutated([&](KilnModule &M) { Weight(M).blocked->order = {0, 3, 3, 2}; }),
      KILN_ERROR_INVALID_MODEL, "order is not a permutation of the 4 axes");
  requireRejected(
      Mutated([&](KilnModule &M) { Weight(M).blocked->padded_dims[0] = 2; }),
      KILN_ERROR_INVALID_MODEL, "dim 0: padded to 2 for a dim of 3");
  requireRejected(
      Mutated([&](KilnModule &M) { Weight(M).blocked->padded_dims[0] = 6; }),
      KILN_ERROR_INVALID_MODEL, "blocks of 4");
  requireRejected(
      Mutated([&](KilnModule &M) { Weight(M).blocked->inner_dims = {7}; }),
      KILN_ERROR_INVALID_MODEL, "inner block 0 (4 on dim 7) is invalid");
  requireRejected(
      Mutated([&](KilnModule &M) { Weight(M).blocked->inner_dims.clear(); }),
      KILN_ERROR_INVALID_MODEL, "1 inner blocks and 0 inner dims");
  // Strides that overlap the blocks: element offsets past the end.
  requireRejected(
      Mutated([&](KilnModule &M) { Weight(M).blocked->strides = {72, 36, 12, 8}; }),
      KILN_ERROR_INVALID_MODEL, "outside its 72 elements");
  // A larger stride makes the stored size larger than the segment.
  requireRejected(
      Mutated([&](KilnModule &M) { Weight(M).blocked->strides[0] = 144; }),
      KILN_ERROR_INVALID_MODEL, "(576 bytes, blocked) but buffer");
  requireRejected(
      Mutated([&](KilnModule &M) { Weight(M).blocked->strides[0] = INT64_MAX / 2; }),
      KILN_ERROR_INVALID_MODEL, "blocked layout dim 0 is too large");
  // Only a dense f32 conv's weight may be BLOCKED.
  requireRejected(Mutated([&](KilnModule &M) {
                    fb::TensorT &B = *M.Model.tensors[2];
                    B.layout = fb::Layout::BLOCKED;
                    B.blocked = oihw4oLayout();
                    B.blocked->order = {0};
                    B.blocked->padded_dims = {3};
                    B.blocked->strides = {1};
                    B.blocked->inner_blocks.clear();
                    B.blocked->inner_dims.clear();
                  }),
                  KILN_ERROR_INVALID_MODEL,
                  "input 2 'b' is BLOCKED, which only the weight of a dense "
                  "f32 CONV_2D or FULLY_CONNECTED may be");
  requireRejected(Mutated([&](KilnModule &M) {
                    M.Model.operators[0]->options.AsConv2DOptions()->groups = 3;
                  }),
                  KILN_ERROR_INVALID_MODEL, "input 1 'w' is BLOCKED");
  requireRejected(
      Mutated([&](KilnModule &M) { M.Model.outputs.push_back(1); }),
      KILN_ERROR_INVALID_MODEL, "graph output tensor 1 'w' is BLOCKED");
  // With its input absent (-1), the check must not read it (a mutant of
  // the corpus crashed here).
  requireRejected(
      Mutated([&](KilnModule &M) { M.Model.operators[0]->inputs[0] = -1; }),
      KILN_ERROR_INVALID_MODEL, "input 1 'w' is BLOCKED");
}
