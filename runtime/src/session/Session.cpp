#include "session/Session.h"

#include <cstring>

namespace kiln::rt {

Status Session::create(std::shared_ptr<const LoadedModel> Model,
                       const SessionOptions &Opts,
                       std::unique_ptr<Session> &Out) {
  std::unique_ptr<Session> S(new Session());
  S->Model = std::move(Model);
  S->KeepIntermediates = Opts.KeepIntermediates;
  if (Status St = createExecutor(S->Model, Opts, S->Exec))
    return St;
  S->InputSet.assign(S->Model->Inputs.size(), 0);
  Out = std::move(S);
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

Status Session::run() {
  for (size_t I = 0; I < InputSet.size(); ++I)
    if (!InputSet[I])
      return invalidArgument("input ", I, " '",
                             Model->Tensors[size_t(Model->Inputs[I])].Name,
                             "' was not set");
  OpTimes.assign(Profiling ? numOperators() : 0, 0);
  return Exec->run(Profiling ? &OpTimes : nullptr);
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
