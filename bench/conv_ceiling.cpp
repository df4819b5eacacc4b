// The fp32 kernel ceiling: one 3x3, 64 -> 64 channel convolution at 56x56
// (batch 1, stride 1, padding 1, 1 thread), timed in Debian's XNNPACK (what
// the kiln runtime runs) and in oneDNN (libdnnl-dev, AVX-512/AMX kernels), a
// candidate x86 path for the runtime. Outside the test suite.
//
//   g++ -O2 -std=c++17 bench/conv_ceiling.cpp -o /tmp/conv_ceiling \
//       -lXNNPACK -lpthreadpool -ldnnl
//   OMP_NUM_THREADS=1 /tmp/conv_ceiling [RUNS]
//
// Prints the median time and GFLOP/s of each, and their outputs' largest
// difference (both compute the same convolution on the same data).
#include <oneapi/dnnl/dnnl.hpp>
#include <xnnpack.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <random>
#include <vector>

namespace {

constexpr int H = 56, W = 56, C = 64, K = 64, R = 3;
constexpr double Flops = 2.0 * H * W * C * K * R * R;

double medianMs(int Runs, const std::function<void()> &F) {
  F(); // warm up
  std::vector<double> T;
  for (int I = 0; I < Runs; ++I) {
    auto S = std::chrono::steady_clock::now();
    F();
    T.push_back(std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - S)
                    .count());
  }
  std::sort(T.begin(), T.end());
  return T[T.size() / 2];
}

} // namespace

int main(int Argc, char **Argv) {
  int Runs = Argc > 1 ? std::atoi(Argv[1]) : 50;
  std::mt19937 Rng(7);
  std::uniform_real_distribution<float> U(-1, 1);
  // NHWC input, OHWI weights (XNNPACK's layouts); oneDNN gets the same
  // numbers through its own memory descriptors.
  std::vector<float> X(H * W * C), Wt(K * R * R * C), B(K);
  for (float &V : X) V = U(Rng);
  for (float &V : Wt) V = U(Rng) * 0.1f;
  for (float &V : B) V = U(Rng);
  const float Inf = std::numeric_limits<float>::infinity();

  // XNNPACK.
  if (xnn_initialize(nullptr) != xnn_status_success)
    return 1;
  std::vector<float> YX(H * W * K + 16);
  xnn_operator_t Op = nullptr;
  if (xnn_create_convolution2d_nhwc_f32(1, 1, 1, 1, R, R, 1, 1, 1, 1, 1, C, K,
                                        C, K, Wt.data(), B.data(), -Inf, Inf,
                                        0, &Op) != xnn_status_success ||
      xnn_setup_convolution2d_nhwc_f32(Op, 1, H, W, X.data(), YX.data(),
                                       nullptr) != xnn_status_success)
    return 1;
  double XnnMs = medianMs(Runs, [&] { xnn_run_operator(Op, nullptr); });

  // oneDNN: NHWC activations (as kiln's), weights in the layout oneDNN
  // picks (reordered once, as a compiler would pre-pack them).
  using namespace dnnl;
  engine Eng(engine::kind::cpu, 0);
  stream Str(Eng);
  memory::dims Src = {1, C, H, W}, Wei = {K, C, R, R}, Bia = {K},
               Dst = {1, K, H, W};
  auto SrcMd = memory::desc(Src, memory::data_type::f32, memory::format_tag::nhwc);
  auto DstMd = memory::desc(Dst, memory::data_type::f32, memory::format_tag::nhwc);
  auto WeiAny = memory::desc(Wei, memory::data_type::f32, memory::format_tag::any);
  auto BiaMd = memory::desc(Bia, memory::data_type::f32, memory::format_tag::x);
  auto Desc = convolution_forward::desc(
      prop_kind::forward_inference, algorithm::convolution_direct, SrcMd,
      WeiAny, BiaMd, DstMd, {1, 1}, {1, 1}, {1, 1});
  auto Prim = convolution_forward::primitive_desc(Desc, Eng);
  // OHWI user weights -> oneDNN's layout.
  memory UserW({Wei, memory::data_type::f32, memory::format_tag::ohwi}, Eng,
               Wt.data());
  memory PackedW(Prim.weights_desc(), Eng);
  reorder(UserW, PackedW).execute(Str, UserW, PackedW);
  std::vector<float> YD(H * W * K);
  memory SrcM(SrcMd, Eng, X.data()), DstM(DstMd, Eng, YD.data()),
      BiaM(BiaMd, Eng, B.data());
  convolution_forward Conv(Prim);
  double DnnlMs = medianMs(Runs, [&] {
    Conv.execute(Str, {{DNNL_ARG_SRC, SrcM},
                       {DNNL_ARG_WEIGHTS, PackedW},
                       {DNNL_ARG_BIAS, BiaM},
                       {DNNL_ARG_DST, DstM}});
    Str.wait();
  });

  double MaxDiff = 0;
  for (int I = 0; I < H * W * K; ++I)
    MaxDiff = std::max(MaxDiff, double(std::fabs(YX[I] - YD[I])));
  std::printf("3x3 conv 64->64 at 56x56, 1 thread, median of %d runs\n", Runs);
  std::printf("  XNNPACK (Debian 2022-02): %6.3f ms  %5.1f GFLOP/s\n", XnnMs,
              Flops / XnnMs / 1e6);
  std::printf("  oneDNN %d.%d (%s):      %6.3f ms  %5.1f GFLOP/s\n",
              dnnl_version()->major, dnnl_version()->minor,
              Prim.impl_info_str(), DnnlMs, Flops / DnnlMs / 1e6);
  std::printf("  oneDNN / XNNPACK time: %.2f; largest output difference %.2e\n",
              DnnlMs / XnnMs, MaxDiff);
  xnn_delete_operator(Op);
  return 0;
}
