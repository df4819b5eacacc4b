// MATMUL, LAYER_NORM, GELU, SOFTMAX, LSTM and GRU on Eigen (EigenKernels.h). The
// arithmetic is the reference kernels' (cpu/reference), organized for GEMM:
// a recurrent layer projects every step's input at once (x W^T + b, one
// GEMM over T x B rows), then per step multiplies the B states by R^T and
// applies the gates as array expressions.
#define EIGEN_DONT_PARALLELIZE
#include "cpu/eigen/EigenKernels.h"
#include "cpu/reference/ReferenceKernels.h"

#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>

#include <algorithm>
#include <limits>

namespace kiln::rt {

namespace {

using RowMatrix =
    Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowArray =
    Eigen::Array<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;
using MatrixMap = Eigen::Map<RowMatrix>;
using ConstRowVector = Eigen::Map<const Eigen::RowVectorXf>;

class EigenKernel : public FunctionKernel {
public:
  using FunctionKernel::FunctionKernel;
  const char *engine() const override { return "eigen"; }
};

bool allF32(const KernelArgs &A) {
  for (const auto *List : {&A.In, &A.Out})
    for (const KernelTensor &T : *List)
      if (T.present() && T.Desc->DType != fb::DType::F32)
        return false;
  return true;
}

template <typename Expr> auto sigmoid(const Expr &X) {
  return (1.0f + (-X).exp()).inverse();
}

ref::RunFn matMul(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_MatMulOptions();
  ref::MatMulBatches B(A.In[0], A.In[1], A.Out[0]);
  const float *Pa = A.In[0].as<const float>(), *Pb = A.In[1].as<const float>();
  float *Py = A.Out[0].as<float>();
  const float Min = O.output_min(), Max = O.output_max();
  const bool Clamped = Min > -std::numeric_limits<float>::max() ||
                       Max < std::numeric_limits<float>::max();
  return [=]() {
    B.forEach([&](int64_t OffA, int64_t OffB, int64_t OffY) {
      MatrixMap Y(Py + OffY, B.M, B.N);
      Y.noalias() = ConstMatrixMap(Pa + OffA, B.M, B.K) *
                    ConstMatrixMap(Pb + OffB, B.K, B.N);
      if (Clamped)
        Y = Y.cwiseMax(Min).cwiseMin(Max);
    });
    return Status::ok();
  };
}

/// Rows of the dims from `axis` on, normalized with the mean and the biased
/// variance accumulated in double (as the reference kernel and the IR
/// interpreter do), then scaled and shifted.
ref::RunFn layerNorm(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_LayerNormOptions();
  int64_t Rows = 1, Cols = 1;
  for (int64_t D = 0; D < A.In[0].rank(); ++D)
    (D < O.axis() ? Rows : Cols) *= A.In[0].dim(D);
  const float *X = A.In[0].as<const float>(), *Scale = A.In[1].as<const float>();
  const bool HasBias = A.In.size() > 2 && A.In[2].present();
  const float *Bias = HasBias ? A.In[2].as<const float>() : nullptr;
  const bool ScaleOne = A.In[1].elements() == 1,
             BiasOne = HasBias && A.In[2].elements() == 1;
  const double Eps = O.epsilon();
  float *Y = A.Out[0].as<float>();
  return [=]() {
    if (!Cols)
      return Status::ok();
    Eigen::ArrayXf Gain =
        ScaleOne ? Eigen::ArrayXf::Constant(Cols, Scale[0])
                 : Eigen::ArrayXf(Eigen::Map<const Eigen::ArrayXf>(Scale, Cols));
    Eigen::ArrayXf Shift =
        !Bias ? Eigen::ArrayXf::Zero(Cols)
        : BiasOne ? Eigen::ArrayXf::Constant(Cols, Bias[0])
                  : Eigen::ArrayXf(Eigen::Map<const Eigen::ArrayXf>(Bias, Cols));
    for (int64_t R = 0; R < Rows; ++R) {
      Eigen::Map<const Eigen::ArrayXf> In(X + R * Cols, Cols);
      Eigen::ArrayXd Centered = In.cast<double>();
      Centered -= Centered.mean();
      const double InvStd =
          1.0 / std::sqrt(Centered.square().sum() / double(Cols) + Eps);
      Eigen::Map<Eigen::ArrayXf>(Y + R * Cols, Cols) =
          (Centered * InvStd).cast<float>() * Gain + Shift;
    }
    return Status::ok();
  };
}

/// GELU, with erf or (GELU_TANH) its tanh form, as the reference kernel.
ref::RunFn gelu(const KernelArgs &A, bool Tanh) {
  const float *X = A.In[0].as<const float>();
  float *Y = A.Out[0].as<float>();
  const Eigen::Index Count = Eigen::Index(A.In[0].elements());
  return [=]() {
    Eigen::Map<const Eigen::ArrayXf> In(X, Count);
    Eigen::Map<Eigen::ArrayXf> Out(Y, Count);
    if (Tanh)
      Out = 0.5f * In *
            (1.0f + (0.7978845608028654f * (In + 0.044715f * In.cube())).tanh());
    else
      Out = 0.5f * In * (1.0f + (In * 0.7071067811865476f).erf());
    return Status::ok();
  };
}

/// (log_)softmax over any axis: x as [outer, len, inner], each outer block a
/// len x inner array normalized down its columns, in double as the
/// reference kernel.
ref::RunFn softmax(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_SoftmaxOptions();
  const std::vector<int64_t> &Shape = A.In[0].shape();
  const size_t Axis = size_t(O.axis());
  int64_t Outer = 1, Len = Shape[Axis], Inner = 1;
  for (size_t I = 0; I < Axis; ++I)
    Outer *= Shape[I];
  for (size_t I = Axis + 1; I < Shape.size(); ++I)
    Inner *= Shape[I];
  const bool Log = O.log();
  const float *X = A.In[0].as<const float>();
  float *Y = A.Out[0].as<float>();
  using RowArrayD =
      Eigen::Array<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  return [=]() {
    for (int64_t P = 0; P < Outer; ++P) {
      Eigen::Map<const RowArray> In(X + P * Len * Inner, Len, Inner);
      Eigen::Map<RowArray> Out(Y + P * Len * Inner, Len, Inner);
      Eigen::RowVectorXf Max = In.colwise().maxCoeff().matrix();
      RowArray Shifted = In.rowwise() - Max.array();
      RowArrayD Exp = Shifted.cast<double>().exp();
      Eigen::RowVectorXd Sum = Exp.colwise().sum().matrix();
      if (Log)
        Out = (Shifted.cast<double>().rowwise() - Sum.array().log())
                  .cast<float>();
      else
        Out = (Exp.rowwise() / Sum.array()).cast<float>();
    }
    return Status::ok();
  };
}

/// What an LSTM and a GRU share: x [T, B, I] or [B, T, I], w [GH, I],
/// r [GH, H], the bias's first GH values added to the input projection.
struct Recurrence {
  bool TimeMajor;
  int64_t T, B, I, H, GH;
  const float *X, *W, *R, *Bias, *H0;
  float *Y, *Yh;

  Recurrence(const KernelArgs &A, bool TimeMajorIn, int64_t Hidden,
             int64_t Gates)
      : TimeMajor(TimeMajorIn), H(Hidden), GH(Gates * Hidden) {
    const KernelTensor &Xt = A.In[0];
    T = Xt.dim(TimeMajor ? 0 : 1);
    B = Xt.dim(TimeMajor ? 1 : 0);
    I = Xt.dim(2);
    auto Optional = [&](size_t K) -> const float * {
      return K < A.In.size() && A.In[K].present() ? A.In[K].as<const float>()
                                                  : nullptr;
    };
    X = Xt.as<const float>();
    W = A.In[1].as<const float>();
    R = A.In[2].as<const float>();
    Bias = Optional(3);
    H0 = Optional(4);
    Y = A.Out[0].as<float>();
    Yh = A.Out.size() > 1 ? A.Out[1].as<float>() : nullptr;
  }

  /// The row of x and y that holds step S of batch item N.
  int64_t row(int64_t S, int64_t N) const {
    return TimeMajor ? S * B + N : N * T + S;
  }

  /// x W^T + b[0:GH] for every row of x, in x's row order.
  RowMatrix projectInputs() const {
    RowMatrix P(T * B, GH);
    P.noalias() =
        ConstMatrixMap(X, T * B, I) * ConstMatrixMap(W, GH, I).transpose();
    if (Bias)
      P.rowwise() += ConstRowVector(Bias, GH);
    return P;
  }

  /// The initial state [B, H] (zeros without one).
  RowMatrix initialState(const float *State) const {
    if (!State)
      return RowMatrix::Zero(B, H);
    return ConstMatrixMap(State, B, H);
  }

  /// Writes step S's states into y (and y_h after the last step).
  void store(int64_t S, const RowMatrix &State) const {
    for (int64_t N = 0; N < B; ++N)
      std::copy_n(State.row(N).data(), H, Y + row(S, N) * H);
    if (Yh && S == T - 1)
      std::copy_n(State.data(), B * H, Yh);
  }
};

/// Gate rows i, o, f, c (ONNX's order).
ref::RunFn lstm(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_LstmOptions();
  Recurrence L(A, O.time_major(), O.hidden_size(), 4);
  const float *C0 = A.In.size() > 5 && A.In[5].present()
                        ? A.In[5].as<const float>()
                        : nullptr;
  return [=]() {
    const int64_t B = L.B, H = L.H;
    RowMatrix Projected = L.projectInputs();
    RowMatrix State = L.initialState(L.H0), Cell = L.initialState(C0);
    RowMatrix Gates(B, L.GH);
    ConstMatrixMap Rm(L.R, L.GH, H);
    for (int64_t S = 0; S < L.T; ++S) {
      for (int64_t N = 0; N < B; ++N)
        Gates.row(N) = Projected.row(L.row(S, N));
      Gates.noalias() += State * Rm.transpose();
      auto G = Gates.array();
      RowArray In = sigmoid(G.middleCols(0, H));
      RowArray Out = sigmoid(G.middleCols(H, H));
      RowArray Forget = sigmoid(G.middleCols(2 * H, H));
      RowArray Candidate = G.middleCols(3 * H, H).tanh();
      Cell.array() = Forget * Cell.array() + In * Candidate;
      State.array() = Out * Cell.array().tanh();
      L.store(S, State);
    }
    return Status::ok();
  };
}

/// Gate rows z, r, h (ONNX's order); b [3H] (Wb + Rb), or with
/// linear_before_reset [4H]: the candidate's recurrent bias last.
ref::RunFn gru(const KernelArgs &A) {
  const auto &O = *A.Op.options_as_GruOptions();
  Recurrence L(A, O.time_major(), O.hidden_size(), 3);
  const bool Lbr = O.linear_before_reset();
  return [=]() {
    const int64_t B = L.B, H = L.H;
    RowMatrix Projected = L.projectInputs();
    RowMatrix State = L.initialState(L.H0);
    ConstMatrixMap Rm(L.R, L.GH, H);
    Eigen::RowVectorXf CandidateBias =
        Lbr && L.Bias ? Eigen::RowVectorXf(ConstRowVector(L.Bias + 3 * H, H))
                      : Eigen::RowVectorXf::Zero(H);
    RowMatrix Gates(B, 2 * H), Recurrent(B, Lbr ? 3 * H : 2 * H),
        Candidate(B, H);
    for (int64_t S = 0; S < L.T; ++S) {
      for (int64_t N = 0; N < B; ++N) {
        Gates.row(N) = Projected.row(L.row(S, N)).head(2 * H);
        Candidate.row(N) = Projected.row(L.row(S, N)).tail(H);
      }
      Recurrent.noalias() =
          State * Rm.topRows(Lbr ? 3 * H : 2 * H).transpose();
      RowArray Zr = sigmoid(Gates.array() + Recurrent.leftCols(2 * H).array());
      auto Z = Zr.leftCols(H), Reset = Zr.rightCols(H);
      if (Lbr) {
        RowMatrix Part = Recurrent.rightCols(H);
        Part.rowwise() += CandidateBias;
        Candidate.array() += Reset * Part.array();
      } else {
        RowMatrix ResetState = (Reset * State.array()).matrix();
        Candidate.noalias() += ResetState * Rm.bottomRows(H).transpose();
      }
      RowArray New = Candidate.array().tanh();
      State.array() = (1.0f - Z) * New + Z * State.array();
      L.store(S, State);
    }
    return Status::ok();
  };
}

} // namespace

std::unique_ptr<Kernel> createEigenKernel(const KernelArgs &A) {
  if (!allF32(A))
    return nullptr;
  switch (A.Op.kind()) {
  case fb::OpKind::MATMUL:
    return std::make_unique<EigenKernel>(matMul(A));
  case fb::OpKind::LAYER_NORM:
    return std::make_unique<EigenKernel>(layerNorm(A));
  case fb::OpKind::SOFTMAX:
    return std::make_unique<EigenKernel>(softmax(A));
  case fb::OpKind::UNARY:
    if (A.Op.options_as_UnaryOptions()->op() == fb::UnaryOp::GELU)
      return std::make_unique<EigenKernel>(gelu(A, false));
    if (A.Op.options_as_UnaryOptions()->op() == fb::UnaryOp::GELU_TANH)
      return std::make_unique<EigenKernel>(gelu(A, true));
    return nullptr;
  case fb::OpKind::LSTM:
    return std::make_unique<EigenKernel>(lstm(A));
  case fb::OpKind::GRU:
    return std::make_unique<EigenKernel>(gru(A));
  default:
    return nullptr;
  }
}

} // namespace kiln::rt
