// TorchScript -> canonical IR.
//
//  1. The zip archive is checked before libtorch opens it (ZipCheck).
//  2. libtorch loads the module; it is put in eval mode and frozen (weights
//     and attributes become constants), then inlined, and libtorch's own
//     constant propagation and dead-code elimination run, so one flat graph
//     remains. BatchNorm, dropout and activations are kept as they are: the
//     kiln pass pipeline folds them, visibly.
//  3. The graph is walked as an abstract interpreter (TsConverter.h): list,
//     tuple and dict plumbing, size() arithmetic and If/Loop on constants are
//     evaluated at compile time, by libtorch's kernels where every input is
//     known; tensor ops go through the converter tables.
//  4. Every node that cannot be converted is reported at once, each with the
//     Python source line TorchScript recorded.
#include "frontends/torchscript/TorchScriptPlugin.h"

#include "frontends/torchscript/TsConverter.h"

#include "IR/ShapeInference.h"
#include "Support/ZipCheck.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/freeze_module.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/passes/lower_tuples.h>
#include <torch/csrc/jit/serialization/import.h>

#include <cstdlib>
#include <dlfcn.h>
#include <unordered_map>

namespace kiln {

using namespace ts_import;
namespace jit = torch::jit;

namespace {

/// The first line of a libtorch exception: its messages carry C++ stack
/// traces and source excerpts after that.
std::string firstLine(const std::exception &E) {
  llvm::StringRef M(E.what());
  if (const auto *CE = dynamic_cast<const c10::Error *>(&E))
    M = CE->what_without_backtrace();
  M = M.trim();
  return M.split('\n').first.trim().str();
}

constexpr int64_t MaxLoopIterations = 100000;

/// Dict keys in TorchScript are strings, ints, floats or bools.
bool sameKey(const c10::IValue &A, const c10::IValue &B) {
  if (A.isString() && B.isString())
    return A.toStringRef() == B.toStringRef();
  if (A.isInt() && B.isInt())
    return A.toInt() == B.toInt();
  if (A.isDouble() && B.isDouble())
    return A.toDouble() == B.toDouble();
  if (A.isBool() && B.isBool())
    return A.toBool() == B.toBool();
  return false;
}

class GraphImporter {
public:
  GraphImporter(Graph &G, std::string File, const TorchScriptImportOptions &O)
      : S(G, std::move(File)), Opts(O) {}

  llvm::Error run(jit::Module &M);

private:
  llvm::Error addInputs(const jit::Method &Forward, const jit::Graph &TG);
  llvm::Error addOutputs(const TsValue &Ret);
  void walk(const jit::Block *B);
  void visit(const jit::Node *N);
  bool visitControlFlow(const jit::Node *N, std::vector<TsValue> &In);
  bool visitContainerOp(const jit::Node *N, std::vector<TsValue> &In);
  bool visitTensorQuery(const jit::Node *N, std::vector<TsValue> &In);
  bool tryRunOnConstants(const jit::Node *N, std::vector<TsValue> &In);
  void convert(const jit::Node *N, std::vector<TsValue> In);

  /// The compile-time value of V as an IValue, when every leaf is known.
  std::optional<c10::IValue> materialize(const TsValue &V,
                                         const c10::TypePtr &Type);
  void bind(const jit::Value *V, TsValue A) { Values[V] = std::move(A); }
  const TsValue &lookup(const jit::Value *V) { return Values[V]; }
  void poison(const jit::Node *N) {
    for (const jit::Value *O : N->outputs())
      bind(O, TsValue());
  }
  void report(const jit::Node *N, std::string Msg);
  void report(llvm::Error E) { Problems.push_back(llvm::toString(std::move(E))); }

  ImportState S;
  const TorchScriptImportOptions &Opts;
  std::unordered_map<const jit::Value *, TsValue> Values;
  std::vector<std::string> Problems;
  std::vector<std::string> Unsupported;
};

void GraphImporter::report(const jit::Node *N, std::string Msg) {
  NodeConverter C(S, N, {});
  Problems.push_back(C.context() + ": " + Msg);
}

std::optional<c10::IValue> GraphImporter::materialize(const TsValue &V,
                                                      const c10::TypePtr &Type) {
  switch (V.K) {
  case TsValue::Kind::Const:
    return V.C;
  case TsValue::Kind::Unknown:
  case TsValue::Kind::Tensor:
    return std::nullopt;
  case TsValue::Kind::List: {
    auto LT = Type ? Type->cast<c10::ListType>() : nullptr;
    if (!LT)
      return std::nullopt;
    c10::impl::GenericList L(LT->getElementType());
    for (const TsValue &E : *V.Items) {
      auto X = materialize(E, LT->getElementType());
      if (!X)
        return std::nullopt;
      L.push_back(std::move(*X));
    }
    return c10::IValue(L);
  }
  case TsValue::Kind::Tuple: {
    auto TT = Type ? Type->cast<c10::TupleType>() : nullptr;
    if (!TT || TT->elements().size() != V.Items->size())
      return std::nullopt;
    std::vector<c10::IValue> Elems;
    for (size_t I = 0; I < V.Items->size(); ++I) {
      auto X = materialize((*V.Items)[I], TT->elements()[I]);
      if (!X)
        return std::nullopt;
      Elems.push_back(std::move(*X));
    }
    return c10::IValue(c10::ivalue::Tuple::create(std::move(Elems)));
  }
  case TsValue::Kind::Dict: {
    auto DT = Type ? Type->cast<c10::DictType>() : nullptr;
    if (!DT)
      return std::nullopt;
    c10::impl::GenericDict D(DT->getKeyType(), DT->getValueType());
    for (size_t I = 0; I < V.Items->size(); ++I) {
      auto X = materialize((*V.Items)[I], DT->getValueType());
      if (!X)
        return std::nullopt;
      D.insert_or_assign((*V.Keys)[I], std::move(*X));
    }
    return c10::IValue(D);
  }
  }
  return std::nullopt;
}

/// TorchScript files record no input dtypes. An input that an embedding reads
/// as its ids holds int64 token ids (BERT-style models); every other input is
/// taken as float32.
static ElementType inputElementType(const jit::Value *In) {
  for (const jit::Use &U : In->uses())
    if (U.user->kind() == c10::Symbol::fromQualString("aten::embedding") &&
        U.offset == 1)
      return ElementType::I64;
  return ElementType::F32;
}

llvm::Error GraphImporter::addInputs(const jit::Method &Forward,
                                     const jit::Graph &TG) {
  const auto &Args = Forward.function().getSchema().arguments();
  std::vector<std::string> Names;
  for (size_t I = 1; I < Args.size(); ++I)
    Names.push_back(Args[I].name());
  // A missing or misnamed shape is a command-line problem (exit 2).
  auto Missing = [&](llvm::StringRef Why) {
    return usageError(
        "{0}: {1}; give each input its shape with --input-shape "
        "NAME=1x3x224x224 (the model's inputs: {2})",
        S.FileName, Why, llvm::join(Names, ", "));
  };
  for (const auto &KV : Opts.InputShapes)
    if (!KV.getKey().empty() && !llvm::is_contained(Names, KV.getKey().str()))
      return Missing(("there is no input named '" + KV.getKey() + "'").str());
  // Input 0 of forward() is the module itself.
  bind(TG.inputs()[0], TsValue::constant(c10::IValue()));
  for (size_t I = 1; I < TG.inputs().size(); ++I) {
    const jit::Value *In = TG.inputs()[I];
    const std::string &Name = Names[I - 1];
    if (!In->type()->cast<c10::TensorType>())
      return inputError("{0}: input '{1}' has type {2}; kiln imports models "
                        "whose forward() takes tensors",
                        S.FileName, Name, In->type()->str());
    auto It = Opts.InputShapes.find(Name);
    if (It == Opts.InputShapes.end() && Names.size() == 1)
      It = Opts.InputShapes.find("");
    if (It == Opts.InputShapes.end())
      return Missing("input '" + Name +
                     "' has no shape (TorchScript files record none)");
    Shape Dims;
    for (int64_t D : It->second)
      Dims.push_back(Dim(D));
    bind(In, TsValue::tensor(
                 S.G.addInput(TensorType(inputElementType(In), Dims), Name)));
  }
  return llvm::Error::success();
}

llvm::Error GraphImporter::addOutputs(const TsValue &Ret) {
  std::vector<std::pair<std::string, const TsValue *>> Flat;
  std::function<void(const TsValue &, std::string)> Flatten =
      [&](const TsValue &V, std::string Name) {
        if (V.K == TsValue::Kind::List || V.K == TsValue::Kind::Tuple) {
          for (size_t I = 0; I < V.Items->size(); ++I)
            Flatten((*V.Items)[I], Name + std::to_string(I));
          return;
        }
        if (V.K == TsValue::Kind::Dict) {
          for (size_t I = 0; I < V.Items->size(); ++I)
            Flatten((*V.Items)[I], (*V.Keys)[I].isString()
                                       ? (*V.Keys)[I].toStringRef()
                                       : Name + std::to_string(I));
          return;
        }
        Flat.push_back({Name, &V});
      };
  Flatten(Ret, "output");
  // A single container output keeps plain names: output0, output1 or keys.
  for (auto &[Name, V] : Flat) {
    Value *Out = nullptr;
    if (V->isTensor())
      Out = V->T;
    else if (V->isConst() && V->C.isTensor()) {
      auto T = toKilnTensor(V->C.toTensor());
      if (!T)
        return addContext(T.takeError(), S.FileName + ": output '" + Name + "'");
      Out = S.G.createConstant(std::move(*T));
    } else
      return inputError("{0}: output '{1}' is not a tensor; kiln imports "
                        "models that return tensors, or tuples, lists or "
                        "dicts of them",
                        S.FileName, Name);
    if (S.G.isOutput(Out) || !Out->producer()) {
      // Graph inputs and repeated outputs get their own identity node.
      auto Id = createInferred(S.G, "identity", {Out});
      if (!Id)
        return Id.takeError();
      Out = (*Id)->result(0);
    }
    Out->setName(Name);
    S.G.addOutput(Out);
  }
  return llvm::Error::success();
}

void GraphImporter::walk(const jit::Block *B) {
  for (const jit::Node *N : B->nodes())
    visit(N);
}

bool GraphImporter::visitControlFlow(const jit::Node *N,
                                     std::vector<TsValue> &In) {
  if (N->kind() == c10::prim::If) {
    if (!In[0].isConst() || !In[0].C.isBool()) {
      report(N, "the condition of this `if` depends on data; kiln needs it "
                "known at compile time");
      poison(N);
      return true;
    }
    const jit::Block *B = N->blocks()[In[0].C.toBool() ? 0 : 1];
    walk(B);
    for (size_t I = 0; I < N->outputs().size(); ++I)
      bind(N->output(I), lookup(B->outputs()[I]));
    return true;
  }
  if (N->kind() == c10::prim::Loop) {
    // Inputs: max trip count, initial condition, carried values. Block
    // inputs: iteration, carried; block outputs: condition, carried.
    const jit::Block *B = N->blocks()[0];
    auto Known = [](const TsValue &V) { return V.isConst() && (V.C.isInt() || V.C.isBool()); };
    if (!Known(In[0]) || !Known(In[1])) {
      report(N, "the trip count or condition of this loop depends on data; "
                "kiln needs them known at compile time");
      poison(N);
      return true;
    }
    int64_t Trips = In[0].C.isInt() ? In[0].C.toInt() : MaxLoopIterations;
    bool Cond = In[1].C.isBool() ? In[1].C.toBool() : In[1].C.toInt() != 0;
    std::vector<TsValue> Carried(In.begin() + 2, In.end());
    for (int64_t It = 0; Cond && It < Trips; ++It) {
      if (It >= MaxLoopIterations) {
        report(N, "this loop runs more than " +
                      std::to_string(MaxLoopIterations) +
                      " iterations; kiln unrolls loops at compile time");
        poison(N);
        return true;
      }
      bind(B->inputs()[0], TsValue::constant(It));
      for (size_t I = 0; I < Carried.size(); ++I)
        bind(B->inputs()[I + 1], Carried[I]);
      walk(B);
      const TsValue &C = lookup(B->outputs()[0]);
      if (!C.isConst() || !C.C.isBool()) {
        report(N, "the condition of this loop depends on data; kiln needs "
                  "it known at compile time");
        poison(N);
        return true;
      }
      Cond = C.C.toBool();
      for (size_t I = 0; I < Carried.size(); ++I)
        Carried[I] = lookup(B->outputs()[I + 1]);
    }
    for (size_t I = 0; I < N->outputs().size(); ++I)
      bind(N->output(I), Carried[I]);
    return true;
  }
  return false;
}

bool GraphImporter::visitContainerOp(const jit::Node *N,
                                     std::vector<TsValue> &In) {
  using K = TsValue::Kind;
  auto Kind = N->kind();
  auto IsContainer = [](const TsValue &V) {
    return V.K == K::List || V.K == K::Tuple || V.K == K::Dict;
  };
  if (Kind == c10::prim::ListConstruct) {
    bind(N->output(), TsValue::container(K::List, In));
    return true;
  }
  if (Kind == c10::prim::TupleConstruct) {
    bind(N->output(), TsValue::container(K::Tuple, In));
    return true;
  }
  if (Kind == c10::prim::DictConstruct || Kind == c10::aten::dict) {
    if (Kind == c10::aten::dict && !In.empty())
      return false;
    TsValue D = TsValue::container(K::Dict, {});
    for (size_t I = 0; I + 1 < In.size(); I += 2) {
      if (!In[I].isConst()) {
        report(N, "a dict key is not known at compile time");
        poison(N);
        return true;
      }
      D.Keys->push_back(In[I].C);
      D.Items->push_back(In[I + 1]);
    }
    bind(N->output(), D);
    return true;
  }
  if (Kind == c10::prim::Uninitialized) {
    bind(N->output(), TsValue::constant(c10::IValue()));
    return true;
  }
  if (In.empty())
    return false;
  // Unpacking has no libtorch operator to run: spread a known list or tuple
  // (x.size(), a constant tuple) into its elements here.
  bool Unpack = Kind == c10::prim::ListUnpack || Kind == c10::prim::TupleUnpack ||
                Kind == c10::prim::TupleIndex;
  if (Unpack && In[0].isConst() && (In[0].C.isList() || In[0].C.isTuple())) {
    std::vector<TsValue> Elems;
    if (In[0].C.isList())
      for (const c10::IValue &E : In[0].C.toListRef())
        Elems.push_back(TsValue::constant(E));
    else
      for (const c10::IValue &E : In[0].C.toTupleRef().elements())
        Elems.push_back(TsValue::constant(E));
    In[0] = TsValue::container(In[0].C.isList() ? K::List : K::Tuple,
                               std::move(Elems));
  }
  if (!IsContainer(In[0]))
    return false;
  const TsValue &C = In[0];
  auto KeyIndex = [&](const c10::IValue &Key) -> std::optional<size_t> {
    for (size_t I = 0; I < C.Keys->size(); ++I)
      if (sameKey((*C.Keys)[I], Key))
        return I;
    return std::nullopt;
  };
  auto Index = [&](const TsValue &I) -> std::optional<size_t> {
    if (C.K == K::Dict)
      return I.isConst() ? KeyIndex(I.C) : std::nullopt;
    if (!I.isConst() || !I.C.isInt())
      return std::nullopt;
    int64_t X = I.C.toInt(), Size = int64_t(C.Items->size());
    if (X < 0)
      X += Size;
    if (X < 0 || X >= Size)
      return std::nullopt;
    return size_t(X);
  };
  if (Kind == c10::prim::ListUnpack || Kind == c10::prim::TupleUnpack) {
    if (C.Items->size() != N->outputs().size()) {
      report(N, "unpacks " + std::to_string(N->outputs().size()) +
                    " values from a container of " +
                    std::to_string(C.Items->size()));
      poison(N);
      return true;
    }
    for (size_t I = 0; I < N->outputs().size(); ++I)
      bind(N->output(I), (*C.Items)[I]);
    return true;
  }
  if (Kind == c10::aten::len) {
    bind(N->output(), TsValue::constant(int64_t(C.Items->size())));
    return true;
  }
  if (Kind == c10::aten::__getitem__ || Kind == c10::prim::TupleIndex) {
    auto I = Index(In[1]);
    if (!I) {
      report(N, "the index is out of range or not known at compile time");
      poison(N);
      return true;
    }
    bind(N->output(), (*C.Items)[*I]);
    return true;
  }
  if (Kind == c10::aten::append && C.K == K::List) {
    C.Items->push_back(In[1]);
    if (N->outputs().size() == 1)
      bind(N->output(), C);
    return true;
  }
  if (Kind == c10::aten::_set_item) {
    auto I = Index(In[1]);
    if (!I && C.K == K::Dict && In[1].isConst()) {
      C.Keys->push_back(In[1].C);
      C.Items->push_back(In[2]);
      return true;
    }
    if (!I) {
      report(N, "the index is out of range or not known at compile time");
      poison(N);
      return true;
    }
    (*C.Items)[*I] = In[2];
    return true;
  }
  return false;
}

bool GraphImporter::visitTensorQuery(const jit::Node *N,
                                     std::vector<TsValue> &In) {
  if (In.empty() || !In[0].isTensor())
    return false;
  const TensorType &T = In[0].T->type();
  auto Kind = N->kind();
  auto DimsOrFail = [&]() -> std::optional<std::vector<int64_t>> {
    std::vector<int64_t> D;
    for (const Dim &X : T.Dims) {
      if (!X.isStatic()) {
        report(N, "reads the size of a tensor whose shape is not static (" +
                      toString(T) + "); fix the input shapes with --input-shape");
        poison(N);
        return std::nullopt;
      }
      D.push_back(X.size());
    }
    return D;
  };
  if (Kind == c10::aten::dim) {
    bind(N->output(), TsValue::constant(T.rank()));
    return true;
  }
  static const auto Numel = c10::Symbol::fromQualString("aten::numel");
  if (Kind == c10::aten::size || Kind == Numel) {
    auto D = DimsOrFail();
    if (!D)
      return true;
    if (Kind == Numel) {
      int64_t P = 1;
      for (int64_t X : *D)
        P *= X;
      bind(N->output(), TsValue::constant(P));
    } else if (In.size() == 1) {
      bind(N->output(), TsValue::constant(c10::IValue(*D)));
    } else {
      if (!In[1].isConst() || !In[1].C.isInt()) {
        report(N, "the dim is not known at compile time");
        poison(N);
        return true;
      }
      int64_t Axis = In[1].C.toInt();
      if (Axis < 0)
        Axis += T.rank();
      if (Axis < 0 || Axis >= T.rank()) {
        report(N, "dim out of range for " + toString(T));
        poison(N);
        return true;
      }
      bind(N->output(), TsValue::constant((*D)[size_t(Axis)]));
    }
    return true;
  }
  if (Kind == c10::prim::dtype) {
    bind(N->output(),
         TsValue::constant(int64_t(toScalarType(T.Elem))));
    return true;
  }
  if (Kind == c10::prim::device) {
    bind(N->output(), TsValue::constant(c10::Device(c10::kCPU)));
    return true;
  }
  if (Kind == c10::prim::is_cuda) {
    bind(N->output(), TsValue::constant(false));
    return true;
  }
  return false;
}

bool GraphImporter::tryRunOnConstants(const jit::Node *N,
                                      std::vector<TsValue> &In) {
  if (!N->maybeOperator() || N->isNondeterministic())
    return false;
  jit::Stack Stack;
  for (size_t I = 0; I < In.size(); ++I) {
    auto V = materialize(In[I], N->input(I)->type());
    if (!V)
      return false;
    Stack.push_back(std::move(*V));
  }
  try {
    N->getOperation()(Stack);
  } catch (const std::exception &E) {
    report(N, "failed while evaluating it at compile time: " + firstLine(E));
    poison(N);
    return true;
  }
  if (Stack.size() != N->outputs().size()) {
    report(N, "evaluating it at compile time gave " +
                  std::to_string(Stack.size()) + " values, expected " +
                  std::to_string(N->outputs().size()));
    poison(N);
    return true;
  }
  for (size_t I = 0; I < Stack.size(); ++I)
    bind(N->output(I), TsValue::constant(std::move(Stack[I])));
  return true;
}

void GraphImporter::convert(const jit::Node *N, std::vector<TsValue> In) {
  std::string Kind = N->kind().toQualString();
  const OpConverter *C = findConverter(Kind);
  // In-place forms (aten::relu_, aten::add_) convert like the functional op;
  // afterwards the mutated operand names the new value.
  bool InPlace = false;
  if (!C && Kind.size() > 1 && Kind.back() == '_' && Kind[Kind.size() - 2] != '_') {
    C = findConverter(llvm::StringRef(Kind).drop_back());
    InPlace = C != nullptr;
  }
  if (!C) {
    NodeConverter NC(S, N, {});
    Unsupported.push_back(NC.context());
    poison(N);
    return;
  }
  NodeConverter NC(S, N, std::move(In));
  // A float op on quantized tensors (relu, pooling, flatten... as PyTorch
  // runs them on quint8) converts on their dequantized values and quantizes
  // its results again.
  const Value *QuantizedIn = nullptr;
  if (!isQuantizedOpKind(Kind)) {
    auto Q = dequantizeOperands(NC);
    if (!Q) {
      report(Q.takeError());
      poison(N);
      return;
    }
    QuantizedIn = *Q;
  }
  llvm::Error Converted = C->Convert(NC);
  if (!Converted && QuantizedIn)
    Converted = requantizeOutputs(NC, QuantizedIn);
  if (Converted) {
    report(std::move(Converted));
    poison(N);
    return;
  }
  if (llvm::Error E = NC.takeError()) {
    report(std::move(E));
    poison(N);
    return;
  }
  std::vector<TsValue> Outs = NC.takeOutputs();
  for (size_t I = 0; I < N->outputs().size(); ++I) {
    if (Outs[I].isUnknown()) {
      report(N, "internal: the converter left output " + std::to_string(I) +
                    " unset");
      poison(N);
      return;
    }
    bind(N->output(I), Outs[I]);
  }
  if (InPlace && !Outs.empty())
    bind(N->input(0), Outs[0]);
}

void GraphImporter::visit(const jit::Node *N) {
  if (N->kind() == c10::prim::Constant) {
    bind(N->output(), TsValue::constant(*jit::toIValue(N->output())));
    return;
  }
  std::vector<TsValue> In;
  for (const jit::Value *V : N->inputs()) {
    In.push_back(lookup(V));
    if (In.back().isUnknown()) {
      // Downstream of a problem already reported: convert nothing, but still
      // list this node if its op is unsupported too, so one run shows all.
      std::string Kind = N->kind().toQualString();
      bool MakesTensor = llvm::any_of(N->outputs(), [](const jit::Value *O) {
        return O->type()->cast<c10::TensorType>() != nullptr;
      });
      if (MakesTensor && N->kind().is_aten() && !findConverter(Kind) &&
          !(Kind.back() == '_' && findConverter(llvm::StringRef(Kind).drop_back())))
        Unsupported.push_back(NodeConverter(S, N, {}).context());
      poison(N);
      return;
    }
  }
  if (N->kind() == c10::prim::RaiseException) {
    report(N, "the model raises an exception here for these input shapes");
    return;
  }
  if (visitControlFlow(N, In) || visitContainerOp(N, In) ||
      visitTensorQuery(N, In))
    return;
  if (N->kind() == c10::aten::warn)
    return;
  if (tryRunOnConstants(N, In))
    return;
  convert(N, std::move(In));
}

llvm::Error GraphImporter::run(jit::Module &M) {
  std::shared_ptr<jit::Graph> TG;
  jit::Method Forward = M.get_method("forward");
  try {
    TG = Forward.graph();
    jit::Inline(*TG);
    jit::LowerSimpleTuples(TG);
    jit::ConstantPropagation(TG);
    jit::EliminateDeadCode(TG);
  } catch (const std::exception &E) {
    return inputError("{0}: libtorch could not simplify forward(): {1}",
                      S.FileName, firstLine(E));
  }
  if (llvm::Error E = addInputs(Forward, *TG))
    return E;
  walk(TG->block());
  if (!Unsupported.empty()) {
    std::string Msg = S.FileName + ": " + std::to_string(Unsupported.size()) +
                      " node(s) use ops kiln does not support:";
    for (const std::string &L : Unsupported)
      Msg += "\n" + L;
    for (const std::string &P : Problems)
      Msg += "\n" + P;
    return unsupportedError("{0}", Msg);
  }
  if (!Problems.empty())
    return inputError("{0}", llvm::join(Problems, "\n"));
  return addOutputs(lookup(TG->outputs()[0]));
}

} // namespace

namespace {

/// torchvision's operators (torchvision::nms, roi_align, ...) live in its
/// own C++ library, which registers them with libtorch when it is loaded;
/// libtorch alone does not know them, so a detection model scripted or
/// traced with torchvision.ops fails to load ("Unknown builtin op:
/// torchvision::nms"). That library links libtorch only, not Python, so
/// the importer loads it on the first such failure (once per process):
/// $KILN_TORCHVISION_OPS ("off": never), else the one CMake found beside
/// Debian's python3-torchvision. Returns "" once loaded, else why not.
const std::string &loadTorchvisionOps() {
  static const std::string Why = []() -> std::string {
    std::string Path;
    if (const char *Env = std::getenv("KILN_TORCHVISION_OPS"); Env && *Env)
      Path = Env;
#ifdef KILN_TORCHVISION_OPS_PATH
    else
      Path = KILN_TORCHVISION_OPS_PATH;
#endif
    if (Path.empty() || Path == "off")
      return "no torchvision operator library is configured (point "
             "KILN_TORCHVISION_OPS at torchvision's _C library, from "
             "python3-torchvision)";
    if (!dlopen(Path.c_str(), RTLD_NOW | RTLD_GLOBAL))
      return "torchvision's operator library did not load: " +
             std::string(dlerror());
    return "";
  }();
  return Why;
}

/// Loads, sets to eval and freezes the module at Path; "" or why not.
std::string loadModule(const std::string &Path, jit::Module &M) {
  try {
    M = jit::load(Path);
    M.eval();
    M = jit::freeze_module(M);
    return "";
  } catch (const std::exception &E) {
    return firstLine(E);
  }
}

} // namespace

llvm::Expected<std::unique_ptr<Graph>>
importTorchScriptModule(llvm::StringRef Path,
                        const TorchScriptImportOptions &Opts) {
  if (llvm::Error E = checkZipArchive(Path))
    return E;
  jit::Module M;
  std::string Failed = loadModule(Path.str(), M);
  if (llvm::StringRef(Failed).contains("torchvision::")) {
    if (const std::string &Why = loadTorchvisionOps(); !Why.empty())
      return inputError("{0}: libtorch could not load this TorchScript "
                        "module: {1} ({2})",
                        Path, Failed, Why);
    Failed = loadModule(Path.str(), M);
  }
  if (!Failed.empty())
    return inputError("{0}: libtorch could not load this TorchScript module: "
                      "{1}",
                      Path, Failed);
  if (!M.find_method("forward"))
    return inputError("{0}: the module has no forward() method", Path);
  auto G = std::make_unique<Graph>(llvm::sys::path::stem(Path).str());
  GraphImporter I(*G, Path.str(), Opts);
  if (llvm::Error E = I.run(M))
    return E;
  return G;
}

} // namespace kiln
