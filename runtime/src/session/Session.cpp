#include "session/Session.h"

#include "target/RuntimeTargets.h"

#include <algorithm>
#include <cstring>

namespace kiln::rt {

Status Session::create(std::shared_ptr<const LoadedModel> Model,
                       const SessionOptions &Opts,
                       std::unique_ptr<Session> &Out) {
  std::unique_ptr<Session> S(new Session());
  S->Generic = Model;
  S->Model = std::move(Model);
  S->Options = Opts;
  S->Options.InputShapes.clear(); // held as the model's shapes
  S->KeepIntermediates = Opts.KeepIntermediates;
  if (!Opts.InputShapes.empty() && S->Model->isPolymorphic()) {
    std::vector<int64_t> Sizes;
    if (Status St = S->symbolSizes(Opts.InputShapes, Sizes))
      return St;
    if (Sizes != S->Model->SymbolSizes)
      if (Status St = specializeModel(*S->Generic, Sizes, S->Model))
        return St;
  }
  if (Status St = createExecutor(S->Model, S->Options, S->Exec))
    return St;
  S->InputSet.assign(S->Model->Inputs.size(), 0);
  if (!Opts.InputShapes.empty() && !S->Model->isPolymorphic())
    if (Status St = S->resizeInputs(Opts.InputShapes)) // checks them
      return St;
  Out = std::move(S);
  return Status::ok();
}

Status Session::symbolSizes(const std::vector<std::vector<int64_t>> &Shapes,
                            std::vector<int64_t> &Sizes) const {
  const LoadedModel &G = *Generic;
  if (Shapes.size() != G.Inputs.size())
    return invalidArgument(Shapes.size(), " input shapes for a model with ",
                           G.Inputs.size(), " inputs");
  Sizes.assign(G.Symbols.size(), 0);
  // Each symbol's size from the first dim that names it, then every dim
  // checked against the sizes.
  for (int Pass = 0; Pass < 2; ++Pass)
    for (size_t I = 0; I < Shapes.size(); ++I) {
      if (Shapes[I].empty())
        continue;
      size_t T = size_t(G.Inputs[I]);
      const TensorDesc &D = G.Tensors[T];
      if (Shapes[I].size() != D.Shape.size())
        return invalidArgument("input ", I, " '", D.Name, "' has rank ",
                               D.rank(), ", got ", Shapes[I].size(), " dims");
      std::vector<SymbolicDimDesc> None;
      const auto &Symbolic = G.isPolymorphic() ? G.TensorSymbols[T] : None;
      for (size_t Axis = 0; Axis < Shapes[I].size(); ++Axis) {
        int64_t Want = Shapes[I][Axis];
        auto It = std::find_if(Symbolic.begin(), Symbolic.end(),
                               [&](const SymbolicDimDesc &S) {
                                 return size_t(S.Axis) == Axis;
                               });
        if (It == Symbolic.end()) {
          if (Want != D.Shape[Axis])
            return invalidArgument(
                "input ", I, " '", D.Name, "' has the static dim ", Axis, " = ",
                D.Shape[Axis], ", got ", Want,
                G.isPolymorphic() ? "" : " (the model is not batch-polymorphic)");
          continue;
        }
        const std::string &Name = G.Symbols[size_t(It->Symbol)];
        if (Want < It->Factor || Want % It->Factor != 0)
          return invalidArgument("input ", I, " '", D.Name, "' dim ", Axis,
                                 " is ", Want, "; it is ", It->Factor, " x '",
                                 Name, "' (at least 1)");
        int64_t &Size = Sizes[size_t(It->Symbol)];
        if (Pass == 0 && Size == 0)
          Size = Want / It->Factor;
        else if (Size != Want / It->Factor)
          return invalidArgument("input ", I, " '", D.Name, "' dim ", Axis,
                                 " is ", Want, ", so '", Name, "' = ",
                                 Want / It->Factor, ", but an earlier dim "
                                 "gives ", Size);
      }
    }
  for (size_t K = 0; K < Sizes.size(); ++K)
    if (Sizes[K] == 0)
      Sizes[K] = Model->SymbolSizes[K]; // no shape given names it: kept
  return Status::ok();
}

Status Session::resizeInputs(const std::vector<std::vector<int64_t>> &Shapes) {
  std::vector<int64_t> Sizes;
  if (Status S = symbolSizes(Shapes, Sizes))
    return S;
  if (Sizes == Model->SymbolSizes)
    return Status::ok();
  std::shared_ptr<const LoadedModel> Next;
  if (Status S = specializeModel(*Generic, Sizes, Next))
    return S;
  std::unique_ptr<Executor> NextExec;
  if (Status S = createExecutor(Next, Options, NextExec, Exec.get()))
    return S;
  Model = std::move(Next);
  Exec = std::move(NextExec);
  InputSet.assign(Model->Inputs.size(), 0);
  return Status::ok();
}

Status Session::setInput(size_t Index, const void *Data, size_t Bytes) {
  if (Index >= Model->Inputs.size())
    return invalidArgument("input index ", Index, " out of range (the model has ",
                           Model->Inputs.size(), " inputs)");
  size_t T = size_t(Model->Inputs[Index]);
  const TensorDesc &D = Model->Tensors[T];
  if (Bytes != D.Bytes)
    return invalidArgument("input ", Index, " '", D.Name, "' (",
                           dtypeName(D.DType), shapeString(D.Shape), ") takes ",
                           D.Bytes, " bytes, got ", Bytes);
  if (!Data && Bytes)
    return invalidArgument("input ", Index, ": null data");
  if (Bytes)
    std::memcpy(Exec->hostTensor(T), Data, Bytes);
  InputSet[Index] = 1;
  return Status::ok();
}

Status Session::inputBuffer(size_t Index, uint8_t **Data, size_t *Bytes) {
  if (Index >= Model->Inputs.size())
    return invalidArgument("input index ", Index, " out of range (the model has ",
                           Model->Inputs.size(), " inputs)");
  size_t T = size_t(Model->Inputs[Index]);
  *Data = Exec->hostTensor(T);
  *Bytes = Model->Tensors[T].Bytes;
  InputSet[Index] = 1;
  return Status::ok();
}

Status Session::run() {
  for (size_t I = 0; I < InputSet.size(); ++I)
    if (!InputSet[I])
      return invalidArgument("input ", I, " '",
                             Model->Tensors[size_t(Model->Inputs[I])].Name,
                             "' was not set");
  OpTimes.assign(Profiling ? numOperators() : 0, 0);
  return Exec->run(Profiling ? &OpTimes : nullptr);
}

Status Session::runOperators(size_t First, size_t Count) {
  if (!KeepIntermediates)
    return invalidArgument("running operators one at a time needs a session "
                           "created with keep_intermediates (else "
                           "activations share their bytes)");
  size_t N = numOperators();
  if (First > N || Count > N - First)
    return invalidArgument("operators ", First, " to ", First + Count,
                           " are out of range (the model has ", N,
                           " operators)");
  for (size_t I = 0; I < InputSet.size(); ++I)
    if (!InputSet[I])
      return invalidArgument("input ", I, " '",
                             Model->Tensors[size_t(Model->Inputs[I])].Name,
                             "' was not set");
  return Exec->runOperators(First, First + Count);
}

Status Session::setTensor(size_t T, const void *Data, size_t Bytes) {
  if (T >= Model->Tensors.size())
    return invalidArgument("tensor index ", T, " out of range (the model has ",
                           Model->Tensors.size(), " tensors)");
  for (size_t I = 0; I < Model->Inputs.size(); ++I)
    if (size_t(Model->Inputs[I]) == T)
      return setInput(I, Data, Bytes);
  const TensorDesc &D = Model->Tensors[T];
  if (D.isConstant())
    return invalidArgument("tensor ", T, " '", D.Name,
                           "' is a constant: the model's bytes are read-only");
  if (!KeepIntermediates)
    return invalidArgument("tensor ", T, " '", D.Name,
                           "' is an activation: setting one needs a session "
                           "created with keep_intermediates");
  if (Model->Target != fb::Target::CPU)
    return {KILN_ERROR_UNSUPPORTED,
            concat("tensor ", T, " '", D.Name, "' is an activation of a ",
                   targetName(Model->Target),
                   " file: only the CPU target's activations can be set")};
  if (Bytes != D.Bytes)
    return invalidArgument("tensor ", T, " '", D.Name, "' (", dtypeName(D.DType),
                           shapeString(D.Shape), ") takes ", D.Bytes,
                           " bytes, got ", Bytes);
  if (!Data && Bytes)
    return invalidArgument("tensor ", T, ": null data");
  if (Bytes)
    std::memcpy(Exec->hostTensor(T), Data, Bytes);
  return Status::ok();
}

Status Session::output(size_t Index, const void **Data, size_t *Bytes) const {
  if (Index >= Model->Outputs.size())
    return invalidArgument("output index ", Index,
                           " out of range (the model has ",
                           Model->Outputs.size(), " outputs)");
  if (!Data || !Bytes)
    return invalidArgument("kiln_session_get_output: null argument");
  size_t T = size_t(Model->Outputs[Index]);
  *Data = Exec->hostTensor(T);
  *Bytes = size_t(Model->Tensors[T].Bytes);
  return Status::ok();
}

} // namespace kiln::rt
