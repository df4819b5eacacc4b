// Runs a graph node by node: checks the inputs against the graph's declared
// types, calls each node's kernel, checks every result against the node's
// declared type, reports results to the observer and frees each intermediate
// tensor right after its last use, so that calibration over thousands of
// images holds only the live activations, never the whole graph's.
#include "Interpreter/Interpreter.h"
#include "Interpreter/Kernel.h"

#include "Support/Error.h"

#include "llvm/ADT/DenseMap.h"

#include <map>

namespace kiln {

Interpreter::Interpreter(const Graph &G, InterpreterOptions Opts)
    : G(G), Opts(std::move(Opts)),
      Pool(std::make_unique<ThreadPoolRunner>(this->Opts.Threads)) {}

Interpreter::~Interpreter() = default;

static std::string inputName(const Value &V, unsigned I) {
  return V.name().empty() ? "#" + std::to_string(I) : "'%" + V.name() + "'";
}

/// Buffers of kernels' tensors are aligned; callers' tensors and constants
/// (mmapped weights) may not be: those are copied once.
static Tensor aligned(const Tensor &T) {
  if (T.buffer().isAligned(elementSize(T.type().Elem)))
    return T;
  return Tensor(T.type(), Buffer::copy(T.buffer().bytes()));
}

/// Checks a caller's input against the graph input's declared type. Symbols
/// (N, ...) must take one size across all inputs.
static llvm::Error checkInput(const Value &V, unsigned I, const Tensor &T,
                              std::map<std::string, int64_t> &Symbols) {
  const TensorType &Want = V.type(), &Got = T.type();
  auto Mismatch = [&](const std::string &Why) {
    return inputError("graph input {0} expects {1}, got {2}: {3}",
                      inputName(V, I), toString(Want), toString(Got), Why);
  };
  if (!Got.isStatic())
    return Mismatch("the tensor's shape must be static");
  if (Got.Elem != Want.Elem)
    return Mismatch("element type differs");
  if (Got.rank() != Want.rank())
    return Mismatch("rank differs");
  for (size_t D = 0; D < Want.Dims.size(); ++D) {
    int64_t Size = Got.Dims[D].size();
    const Dim &W = Want.Dims[D];
    if (W.isStatic() && W.size() != Size)
      return Mismatch("dim " + std::to_string(D) + " differs");
    if (W.isSymbolic()) {
      auto Ins = Symbols.emplace(W.symbol(), Size);
      if (Ins.first->second != Size)
        return Mismatch("symbol " + W.symbol() + " is already " +
                        std::to_string(Ins.first->second));
    }
  }
  uint64_t Bytes = uint64_t(T.numElements()) * elementSize(Got.Elem);
  if (T.buffer().size() != Bytes)
    return Mismatch("the buffer holds " + std::to_string(T.buffer().size()) +
                    " bytes, the shape needs " + std::to_string(Bytes));
  return llvm::Error::success();
}

/// Checks a kernel's result against the node's declared result type.
static llvm::Error checkResult(const Node &N, unsigned I, const Tensor &T) {
  const TensorType &Want = N.result(I)->type(), &Got = T.type();
  bool Ok = Got.Elem == Want.Elem && Got.rank() == Want.rank() &&
            Got.isStatic();
  for (size_t D = 0; Ok && D < Want.Dims.size(); ++D)
    Ok = !Want.Dims[D].isStatic() || Want.Dims[D].size() == Got.Dims[D].size();
  if (!Ok)
    return inputError("result {0} is {1}, but the node declares {2}", I,
                      toString(Got), toString(Want));
  uint64_t Bytes = uint64_t(T.numElements()) * elementSize(Got.Elem);
  if (T.buffer().size() != Bytes)
    return internalError("result {0} of type {1} has {2} bytes, expected {3}",
                         I, toString(Got), T.buffer().size(), Bytes);
  return llvm::Error::success();
}

static std::string nodeContext(const Node &N) {
  return "node '" + N.displayName() + "' (" + N.opName().str() + ")";
}

llvm::Expected<std::vector<Tensor>>
Interpreter::run(llvm::ArrayRef<Tensor> Inputs) {
  if (Inputs.size() != G.numInputs())
    return inputError("graph '{0}' takes {1} inputs, got {2}", G.name(),
                      G.numInputs(), Inputs.size());

  // Live tensors, and the index of the node after which each dies. Graph
  // outputs never die; a value nobody reads dies as soon as it is made.
  llvm::DenseMap<const Value *, Tensor> Env;
  llvm::DenseMap<const Value *, size_t> LastUse;
  constexpr size_t Forever = ~size_t(0);
  {
    size_t Index = 0;
    for (const Node &N : G.nodes()) {
      for (const Value *V : N.operands())
        if (V)
          LastUse[V] = Index;
      ++Index;
    }
    for (const Value *V : G.outputs())
      LastUse[V] = Forever;
  }

  std::map<std::string, int64_t> Symbols;
  for (unsigned I = 0; I < G.numInputs(); ++I) {
    // An input nothing reads only has to have the right element type: its
    // shape cannot matter (ONNX's expanded CastLike tests feed such inputs a
    // shape other than the declared one).
    const Value &In = *G.input(I);
    if (!In.hasUses() && !G.isOutput(&In)) {
      if (Inputs[I].type().Elem != In.type().Elem)
        return inputError("graph input {0} expects {1}, got {2}: element type "
                          "differs",
                          inputName(In, I), toString(In.type()),
                          toString(Inputs[I].type()));
      continue;
    }
    if (auto E = checkInput(In, I, Inputs[I], Symbols))
      return E;
    if (LastUse.count(G.input(I)))
      Env[G.input(I)] = aligned(Inputs[I]);
  }

  auto Release = [&](const Value *V, size_t Index) {
    auto It = LastUse.find(V);
    if (It == LastUse.end() || It->second == Index)
      Env.erase(V);
  };

  size_t Index = 0;
  std::vector<const Tensor *> Operands;
  for (const Node &N : G.nodes()) {
    if (N.isOp("const")) {
      if (LastUse.count(N.result()))
        Env[N.result()] = aligned(N.getTensor("value"));
      ++Index;
      continue;
    }
    KernelFn Kernel = findKernel(N.opName());
    if (!Kernel)
      return inputError("{0}: the interpreter has no kernel for op '{1}'",
                        nodeContext(N), N.opName());
    Operands.clear();
    for (const Value *V : N.operands()) {
      if (!V) {
        Operands.push_back(nullptr);
        continue;
      }
      auto It = Env.find(V);
      if (It == Env.end())
        return internalError("{0}: operand '%{1}' has no value (the graph is "
                             "not in topological order?)",
                             nodeContext(N), V->name());
      Operands.push_back(&It->second);
    }
    KernelContext Ctx{N, Operands, {}, *Pool};
    if (auto E = Kernel(Ctx))
      return addContext(std::move(E), nodeContext(N));
    if (Ctx.Outputs.size() != N.numResults())
      return internalError("{0}: the kernel made {1} results, the node has {2}",
                           nodeContext(N), Ctx.Outputs.size(), N.numResults());
    for (unsigned I = 0; I < N.numResults(); ++I)
      if (auto E = checkResult(N, I, Ctx.Outputs[I]))
        return addContext(std::move(E), nodeContext(N));
    if (Opts.Observer)
      Opts.Observer(N, Ctx.Outputs);
    for (const Value *V : N.operands())
      if (V)
        Release(V, Index);
    for (unsigned I = 0; I < N.numResults(); ++I)
      if (LastUse.count(N.result(I)))
        Env[N.result(I)] = std::move(Ctx.Outputs[I]);
    ++Index;
  }

  std::vector<Tensor> Results;
  for (const Value *V : G.outputs()) {
    auto It = Env.find(V);
    if (It == Env.end())
      return internalError("graph output '%{0}' was never computed", V->name());
    Results.push_back(It->second);
  }
  return Results;
}

} // namespace kiln
