// The fp32 kernel ceiling: 3x3 convolutions (64 -> 64 at 56x56, then
// ResNet-18's deeper stages; batch 1, stride 1, padding 1, 1 thread), timed
// in Debian's XNNPACK (what the kiln runtime runs) and in oneDNN
// (libdnnl-dev, AVX-512/AMX kernels), a candidate x86 path for the runtime.
// Outside the test suite. Build and run:
//
//   g++ -O2 -std=c++17 bench/conv_ceiling.cpp -o /tmp/conv_ceiling
//       -lXNNPACK -lpthreadpool -ldnnl
//   OMP_NUM_THREADS=1 /tmp/conv_ceiling [RUNS]
//
// Prints, per shape, the median time and GFLOP/s of each, their ratio, and
// their outputs' largest difference (both compute the same convolution on
// the same data).
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

constexpr int R = 3;

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

/// One 3x3 stride-1 pad-1 C->K conv at HxW in both libraries; prints a row.
int compareOne(int Runs, int H, int W, int C, int K) {
  const double Flops = 2.0 * H * W * C * K * R * R;
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
  std::printf("%4d->%-4d at %2dx%-2d  XNNPACK %7.3f ms %5.1f GFLOP/s   "
              "oneDNN %7.3f ms %5.1f GFLOP/s (%s)   ratio %.2f   max diff %.1e\n",
              C, K, H, W, XnnMs, Flops / XnnMs / 1e6, DnnlMs,
              Flops / DnnlMs / 1e6, Prim.impl_info_str(), DnnlMs / XnnMs,
              MaxDiff);
  xnn_delete_operator(Op);
  return 0;
}

int main(int Argc, char **Argv) {
  int Runs = Argc > 1 ? std::atoi(Argv[1]) : 50;
  if (xnn_initialize(nullptr) != xnn_status_success)
    return 1;
  std::printf("3x3 convolutions, stride 1, padding 1, batch 1, 1 thread, "
              "median of %d runs; XNNPACK Debian 2022-02, oneDNN %d.%d\n",
              Runs, dnnl_version()->major, dnnl_version()->minor);
  // The ceiling layer first, then ResNet-18's other 3x3 stages: the deeper
  // the stage, the larger the weights against the pixels.
  const int Shapes[][4] = {{56, 56, 64, 64}, {28, 28, 128, 128},
                           {14, 14, 256, 256}, {7, 7, 512, 512}};
  for (const auto &S : Shapes)
    if (compareOne(Runs, S[0], S[1], S[2], S[3]) != 0)
      return 1;
  return 0;
}
