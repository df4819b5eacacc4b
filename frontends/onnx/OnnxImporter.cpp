// The ONNX import driver. In order:
//   1. parse the ModelProto with size and nesting limits;
//   2. check structure kiln relies on, with kiln's own messages: an opset it
//      knows, every node input produced somewhere (all missing ones listed),
//      no cycles (an acyclic graph out of order is sorted), external-data
//      paths inside the model folder, and every op supported (all the
//      unsupported nodes listed at once);
//   3. run ONNX's checker and shape inference (they throw: this file is the
//      only place where exceptions are caught);
//   4. build the IR: inputs, initializers (aliased, not copied), one
//      converter per node from the op tables, outputs; then verify it.
#include "frontends/onnx/OnnxImporter.h"
#include "frontends/onnx/OnnxAttrChecks.h"
#include "frontends/onnx/OnnxGuardedInference.h"

#include "frontends/onnx/OnnxNodeImporter.h"
#include "frontends/onnx/OnnxRawData.h"
#include "frontends/onnx/OnnxTensors.h"

#include "IR/Verifier.h"
#include "Support/Error.h"
#include "Support/FileSystem.h"
#include "Support/Limits.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <exception>
#include <set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln {

using namespace onnx_import;

namespace {

/// At most this many lines for lists of problems (missing inputs...).
constexpr size_t MaxListed = 50;

/// The nesting depth of the second parse that tells a model nested too deep
/// from a corrupt one: bounded, so the parser's recursion stays within a
/// thread's stack.
constexpr int MaxNestingProbed = 256;

template <typename MessageT>
llvm::Error parseLimited(MessageT &M, llvm::StringRef Bytes,
                         llvm::StringRef File, llvm::StringRef What) {
  if (Bytes.empty())
    return inputError("{0}: file is empty, expected {1}", File, What);
  if (Bytes.size() > size_t(INT_MAX))
    return inputError("{0}: {1} bytes is above protobuf's 2 GiB limit; store "
                      "the weights as external data",
                      File, Bytes.size());
  google::protobuf::io::CodedInputStream In(
      reinterpret_cast<const uint8_t *>(Bytes.data()), int(Bytes.size()));
  In.SetRecursionLimit(limits::MaxNesting);
  if (M.ParseFromCodedStream(&In) && In.ConsumedEntireMessage())
    return llvm::Error::success();
  // Protobuf says only that the parse failed. Parsed again with a deeper
  // (still bounded) limit, a model that is merely nested too deep (If and
  // Loop bodies within bodies: three message levels each) parses.
  M.Clear();
  google::protobuf::io::CodedInputStream Deeper(
      reinterpret_cast<const uint8_t *>(Bytes.data()), int(Bytes.size()));
  Deeper.SetRecursionLimit(MaxNestingProbed);
  if (M.ParseFromCodedStream(&Deeper) && Deeper.ConsumedEntireMessage()) {
    M.Clear();
    return inputError("{0}: the {1} nests its messages more than {2} levels "
                      "deep (each If or Loop body within another adds 3); "
                      "kiln reads at most {2}",
                      File, What, limits::MaxNesting);
  }
  return inputError("{0}: not a valid {1}: the protobuf data is truncated "
                    "or corrupt",
                    File, What);
}

/// The large initializers' raw_data, left in the mapped file by the parse.
struct MappedRawData {
  std::shared_ptr<llvm::MemoryBuffer> File; // keeps the bytes mapped
  /// Per graph.initializer (OnnxRawData.h); empty when nothing was left out.
  std::vector<llvm::Optional<llvm::ArrayRef<uint8_t>>> Ranges;
};

/// Raw data smaller than this stays in the message.
constexpr uint64_t MinAliasedRawBytes = 64 * 1024;

/// Parses a model file from a read-only mapping. The large float
/// initializers' raw_data stays in the mapping (OnnxRawData.h): the
/// constants alias the file's page cache, and protobuf parses only the rest.
/// Smaller raw_data is copied into the message, and the constants alias it.
/// (Parsing through read() in chunks grew every weight string piecewise,
/// zero-filling then copying: a fifth of a ResNet-50 conversion.)
llvm::Error parseFileLimited(onnx::ModelProto &M, llvm::StringRef Path,
                             MappedRawData &Raw) {
  int FD = ::open(Path.str().c_str(), O_RDONLY | O_CLOEXEC);
  if (FD < 0)
    return inputError("{0}: cannot open: {1}", Path, std::strerror(errno));
  struct stat St;
  if (::fstat(FD, &St) != 0 || !S_ISREG(St.st_mode)) {
    ::close(FD);
    return inputError("{0}: not a regular file", Path);
  }
  llvm::Error E = llvm::Error::success();
  if (St.st_size == 0) {
    E = inputError("{0}: file is empty, expected ONNX model", Path);
  } else if (uint64_t(St.st_size) > uint64_t(INT_MAX)) {
    E = inputError("{0}: {1} bytes is above protobuf's 2 GiB limit; store the "
                   "weights as external data",
                   Path, uint64_t(St.st_size));
  } else {
    auto Buf = mapFile(Path);
    if (!Buf) {
      E = Buf.takeError();
    } else if (auto Stripped = stripLargeRawData((*Buf)->getBuffer(),
                                                 MinAliasedRawBytes)) {
      E = parseLimited(M, Stripped->Bytes, Path, "ONNX model");
      Raw.File = *Buf;
      Raw.Ranges = std::move(Stripped->RawData);
    } else {
      E = parseLimited(M, (*Buf)->getBuffer(), Path, "ONNX model");
    }
  }
  ::close(FD);
  return E;
}

std::string nodeName(const onnx::NodeProto &N, int Index) {
  if (!N.name().empty())
    return N.name();
  return N.op_type() + "_" + std::to_string(Index);
}

std::string describe(const onnx::NodeProto &N, int Index) {
  return "node '" + nodeName(N, Index) + "' (" + N.op_type() + ")";
}

std::string sanitizeGraphName(const std::string &Name) {
  std::string Out;
  for (char C : Name)
    Out += (std::isalnum(static_cast<unsigned char>(C)) || C == '_') ? C : '_';
  return Out.empty() ? "main" : Out;
}

class ModelImporter {
public:
  ModelImporter(std::shared_ptr<onnx::ModelProto> M, std::string File,
                std::string Dir, const OnnxImportOptions &Opts,
                MappedRawData Raw = {})
      : M(std::move(M)), File(std::move(File)), Dir(Dir),
        Resolver(std::move(Dir)), Opts(Opts), Raw(std::move(Raw)) {}

  llvm::Expected<std::unique_ptr<Graph>> run();

private:
  llvm::Error checkHeader();
  llvm::Error checkStructure();
  llvm::Error checkSupported();
  llvm::Error checkInitializers();
  llvm::Error checkRanges();
  llvm::Error runOnnxChecks();
  llvm::Error buildInputs(ImportState &S);
  llvm::Error buildInitializers(ImportState &S);
  llvm::Error buildNodes(ImportState &S);

  std::shared_ptr<onnx::ModelProto> M;
  std::string File;
  std::string Dir; // the model's folder; empty for in-memory models
  ExternalDataResolver Resolver;
  const OnnxImportOptions &Opts;
  int64_t Opset = 0;
  llvm::StringSet<> InitializerNames;
  llvm::StringMap<std::vector<int64_t>> KnownShapeValues;
  MappedRawData Raw;
};

llvm::Error ModelImporter::checkHeader() {
  if (M->ir_version() <= 0)
    return inputError("{0}: no ir_version: this is not an ONNX model", File);
  if (!M->has_graph())
    return inputError("{0}: the model has no graph", File);
  bool Found = false;
  for (const auto &O : M->opset_import())
    if (O.domain().empty() || O.domain() == "ai.onnx") {
      Opset = O.version();
      Found = true;
    }
  if (!Found) {
    if (M->opset_import_size() != 0 || M->ir_version() >= 3)
      return inputError("{0}: the model imports no opset of the default ONNX "
                        "domain",
                        File);
    Opset = 1; // IR version < 3: opset 1 is implied
  }
  if (Opset < 1 || Opset > MaxKnownOpset)
    return inputError("{0}: opset {1} is not supported; kiln knows ONNX "
                      "opsets 1 to {2} (re-export with opset_version <= {2})",
                      File, Opset, MaxKnownOpset);
  return llvm::Error::success();
}

/// Every node input must come from a graph input, an initializer or another
/// node; node outputs are unique; the graph is acyclic. An acyclic graph out
/// of topological order is sorted in place (ONNX requires the order, and the
/// checker would reject it otherwise).
llvm::Error ModelImporter::checkStructure() {
  onnx::GraphProto &G = *M->mutable_graph();
  llvm::StringMap<int> Producer; // tensor -> node index, -1 for inputs
  for (const auto &I : G.input())
    Producer[I.name()] = -1;
  for (const auto &T : G.initializer()) {
    Producer[T.name()] = -1;
    InitializerNames.insert(T.name());
  }
  std::vector<std::string> Problems;
  for (int I = 0; I < G.node_size(); ++I)
    for (const std::string &Out : G.node(I).output()) {
      if (Out.empty())
        continue;
      auto [It, New] = Producer.try_emplace(Out, I);
      if (!New)
        Problems.push_back(describe(G.node(I), I) + ": output '" + Out +
                           "' is already produced elsewhere");
    }
  for (int I = 0; I < G.node_size(); ++I)
    for (const std::string &In : G.node(I).input())
      if (!In.empty() && !Producer.count(In))
        Problems.push_back(describe(G.node(I), I) + ": input '" + In +
                           "' is not produced by any node, initializer or "
                           "graph input");
  for (const auto &O : G.output())
    if (!Producer.count(O.name()))
      Problems.push_back("graph output '" + O.name() +
                         "' is not produced by any node, initializer or "
                         "graph input");
  if (!Problems.empty()) {
    std::string Msg;
    for (size_t I = 0; I < Problems.size() && I < MaxListed; ++I)
      Msg += (I ? "\n" : "") + File + ": " + Problems[I];
    if (Problems.size() > MaxListed)
      Msg += "\n" + File + ": ... and " +
             std::to_string(Problems.size() - MaxListed) + " more";
    return inputError("{0}", Msg);
  }

  // Kahn's algorithm, stable: among ready nodes the earliest goes first.
  int NN = G.node_size();
  std::vector<int> Pending(static_cast<size_t>(NN), 0);
  std::vector<std::vector<int>> Users(static_cast<size_t>(NN));
  for (int I = 0; I < NN; ++I)
    for (const std::string &In : G.node(I).input())
      if (!In.empty())
        if (int P = Producer.lookup(In); P >= 0) {
          ++Pending[size_t(I)];
          Users[size_t(P)].push_back(I);
        }
  std::vector<int> Order;
  std::set<int> Ready;
  for (int I = 0; I < NN; ++I)
    if (Pending[size_t(I)] == 0)
      Ready.insert(I);
  while (!Ready.empty()) {
    int I = *Ready.begin();
    Ready.erase(Ready.begin());
    Order.push_back(I);
    for (int U : Users[size_t(I)])
      if (--Pending[size_t(U)] == 0)
        Ready.insert(U);
  }
  if (int(Order.size()) != NN) {
    std::string Nodes;
    size_t Listed = 0;
    for (int I = 0; I < NN && Listed < 10; ++I)
      if (Pending[size_t(I)] > 0) {
        Nodes += (Listed++ ? ", " : "") + describe(G.node(I), I);
      }
    return inputError("{0}: the graph has a cycle; these nodes can never run: "
                      "{1}",
                      File, Nodes);
  }
  bool Sorted = true;
  for (int I = 0; I < NN; ++I)
    Sorted &= Order[size_t(I)] == I;
  if (!Sorted) {
    std::vector<onnx::NodeProto *> Released(static_cast<size_t>(NN));
    for (int I = NN - 1; I >= 0; --I)
      Released[size_t(I)] = G.mutable_node()->ReleaseLast();
    for (int I : Order)
      G.mutable_node()->AddAllocated(Released[size_t(I)]);
  }
  return llvm::Error::success();
}

llvm::Error ModelImporter::checkSupported() {
  const onnx::GraphProto &G = M->graph();
  std::vector<std::string> Lines;
  for (int I = 0; I < G.node_size(); ++I) {
    const onnx::NodeProto &N = G.node(I);
    std::string Domain = N.domain().empty() ? "ai.onnx" : N.domain();
    const OpConverter *C = findConverter(N.domain(), N.op_type());
    if (!C)
      Lines.push_back(File + ": node '" + nodeName(N, I) + "': op " +
                      N.op_type() + " (domain " + Domain +
                      ") is not supported");
    else if (Opset < C->MinOpset)
      Lines.push_back(File + ": node '" + nodeName(N, I) + "': op " +
                      N.op_type() + " at opset " + std::to_string(Opset) +
                      " is not supported (kiln reads it from opset " +
                      std::to_string(C->MinOpset) + ")");
  }
  if (Lines.empty())
    return llvm::Error::success();
  std::string Msg = File + ": " + std::to_string(Lines.size()) +
                    " node(s) use ops kiln does not support:";
  for (const std::string &L : Lines)
    Msg += "\n" + L;
  return unsupportedError("{0}", Msg);
}

/// Initializer dims and external-data paths, before anything reads them.
llvm::Error ModelImporter::checkInitializers() {
  for (const auto &T : M->graph().initializer()) {
    if (auto S = tensorShape(T); !S)
      return addContext(S.takeError(), File);
    if (T.data_location() != onnx::TensorProto::EXTERNAL)
      continue;
    std::string Location;
    for (const auto &KV : T.external_data())
      if (KV.key() == "location")
        Location = KV.value();
    auto P = Resolver.resolve(Location);
    if (!P)
      return addContext(P.takeError(),
                        File + ": initializer '" + T.name() + "'");
  }
  return llvm::Error::success();
}

/// Graph input types and node attributes that libonnx's shape inference
/// would divide by, allocate from or loop over: it trusts them and crashes
/// (SIGFPE on strides=0) or runs out of memory instead of throwing.
llvm::Error ModelImporter::checkRanges() {
  for (const auto &I : M->graph().input()) {
    if (InitializerNames.count(I.name()))
      continue;
    if (auto T = typeFromOnnx(I.type()); !T)
      return addContext(T.takeError(), File + ": graph input '" + I.name() +
                                           "'");
  }
  const onnx::GraphProto &G = M->graph();
  for (int I = 0; I < G.node_size(); ++I)
    if (llvm::Error E = checkNodeAttributes(G.node(I),
                                            File + ": " + describe(G.node(I), I)))
      return E;
  return llvm::Error::success();
}

/// An exception message on one line: ONNX adds blank lines and context.
std::string oneLine(const char *What) {
  llvm::SmallVector<llvm::StringRef, 4> Lines;
  llvm::StringRef(What).split(Lines, '\n', -1, false);
  std::string Out;
  for (llvm::StringRef L : Lines)
    if (!L.trim().empty())
      Out += (Out.empty() ? "" : "; ") + L.trim().str();
  return Out;
}

/// onnx::checker::check_model, with the model's folder set so external data
/// is found, and ONNX shape inference. Both report problems by throwing.
llvm::Error ModelImporter::runOnnxChecks() {
  try {
    onnx::checker::CheckerContext Ctx;
    Ctx.set_ir_version(int(M->ir_version()));
    std::unordered_map<std::string, int> Imports;
    for (const auto &O : M->opset_import())
      Imports[O.domain()] = int(O.version());
    Ctx.set_opset_imports(Imports);
    if (!Dir.empty())
      Ctx.set_model_dir(Dir + "/");
    onnx::checker::LexicalScopeContext Lex;
    onnx::checker::check_graph(M->graph(), Ctx, Lex);
  } catch (const std::exception &E) {
    return inputError("{0}: the ONNX checker rejects the model: {1}", File,
                      oneLine(E.what()));
  }
  try {
    std::unordered_map<std::string, onnx::TensorShapeProto> Data;
    onnx::ShapeInferenceOptions SIO(/*check_type=*/false, /*error_mode=*/0,
                                    /*data_prop=*/true);
    onnx::shape_inference::InferShapes(*M, onnx_import::guardedSchemaRegistry(),
                                       SIO, &Data);
    for (const auto &[Name, Shape] : Data) {
      std::vector<int64_t> Vals;
      bool Static = Shape.dim_size() <= limits::MaxRank;
      for (const auto &D : Shape.dim())
        if (D.has_dim_value())
          Vals.push_back(D.dim_value());
        else
          Static = false;
      if (Static)
        KnownShapeValues[Name] = std::move(Vals);
    }
  } catch (const std::exception &E) {
    return inputError("{0}: ONNX shape inference failed: {1}", File,
                      oneLine(E.what()));
  }
  return llvm::Error::success();
}

llvm::Error ModelImporter::buildInputs(ImportState &S) {
  llvm::StringSet<> Used;
  std::vector<const onnx::ValueInfoProto *> Real;
  for (const auto &I : M->graph().input())
    if (!InitializerNames.count(I.name())) // else an old exporter's constant
      Real.push_back(&I);
  bool Bare = Opts.InputShapes.count("") != 0;
  if (Bare && Real.size() != 1)
    return inputError("{0}: --input-shape without a name needs a model with "
                      "one input, this one has {1}; use NAME=DIMS",
                      File, Real.size());
  for (const onnx::ValueInfoProto *IP : Real) {
    const onnx::ValueInfoProto &I = *IP;
    auto T = typeFromOnnx(I.type());
    if (!T)
      return addContext(T.takeError(), File + ": graph input '" + I.name() + "'");
    auto Fixed = Opts.InputShapes.find(Bare ? "" : I.name());
    if (Fixed != Opts.InputShapes.end()) {
      Used.insert(Fixed->getKey());
      const std::vector<int64_t> &Dims = Fixed->second;
      if (int64_t(Dims.size()) != T->rank())
        return inputError("{0}: --input-shape {1} has rank {2}, the input is "
                          "{3}",
                          File, I.name(), Dims.size(), toString(*T));
      for (size_t D = 0; D < Dims.size(); ++D) {
        if (Dims[D] < 0 || Dims[D] > limits::MaxDim)
          return inputError("{0}: --input-shape {1}: dim {2} is out of range",
                            File, I.name(), Dims[D]);
        if (T->Dims[D].isStatic() && T->Dims[D].size() != Dims[D])
          return inputError("{0}: --input-shape {1}: dim {2} is {3} in the "
                            "model, not {4}",
                            File, I.name(), D, T->Dims[D].size(), Dims[D]);
        T->Dims[D] = Dim(Dims[D]);
      }
    }
    Value *V = S.G.addInput(*T, I.name());
    S.Values[I.name()] = V;
  }
  for (const auto &Entry : Opts.InputShapes)
    if (!Used.count(Entry.getKey())) {
      std::string Names;
      for (Value *V : S.G.inputs())
        Names += (Names.empty() ? "" : ", ") + V->name();
      return inputError("{0}: --input-shape names '{1}', which is not a graph "
                        "input (inputs: {2})",
                        File, Entry.getKey(), Names);
    }
  return llvm::Error::success();
}

llvm::Error ModelImporter::buildInitializers(ImportState &S) {
  for (int I = 0; I < M->graph().initializer_size(); ++I) {
    const onnx::TensorProto &T = M->graph().initializer(I);
    bool Aliased = size_t(I) < Raw.Ranges.size() && Raw.Ranges[size_t(I)];
    auto Data = Aliased ? decodeTensor(T, Raw.File, &Resolver,
                                       Raw.Ranges[size_t(I)])
                        : decodeTensor(T, S.Owner, &Resolver);
    if (!Data)
      return addContext(Data.takeError(), File);
    Value *V = S.G.createConstant(std::move(*Data), T.name());
    V->producer()->setSources({T.name()});
    S.Values[T.name()] = V;
  }
  return llvm::Error::success();
}

llvm::Error ModelImporter::buildNodes(ImportState &S) {
  const onnx::GraphProto &G = M->graph();
  for (const auto &VI : G.value_info())
    S.Inferred[VI.name()] = &VI;
  for (const auto &VI : G.output())
    S.Inferred[VI.name()] = &VI;
  for (int I = 0; I < G.node_size(); ++I) {
    const onnx::NodeProto &P = G.node(I);
    const OpConverter *C = findConverter(P.domain(), P.op_type());
    NodeImporter N(S, P, nodeName(P, I));
    if (llvm::Error E = C->Convert(N))
      return E;
    if (llvm::Error E = N.takeError())
      return E;
    for (unsigned O = 0; O < N.numOutputs(); ++O)
      if (N.hasOutput(O) && !S.Values.count(P.output(int(O))))
        return N.fail("output {0} ('{1}') is not supported", O, P.output(int(O)));
  }
  for (const auto &O : G.output())
    S.G.addOutput(S.Values.lookup(O.name()));
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<Graph>> ModelImporter::run() {
  if (llvm::Error E = checkHeader())
    return E;
  if (llvm::Error E = checkStructure())
    return E;
  if (llvm::Error E = checkSupported())
    return E;
  if (llvm::Error E = checkInitializers())
    return E;
  if (llvm::Error E = checkRanges())
    return E;
  if (llvm::Error E = runOnnxChecks())
    return E;

  auto G = std::make_unique<Graph>(sanitizeGraphName(M->graph().name()));
  ImportState S(*G, File);
  S.Opset = Opset;
  S.Owner = M;
  S.Resolver = &Resolver;
  S.KnownShapeValues = std::move(KnownShapeValues);
  if (llvm::Error E = buildInputs(S))
    return E;
  if (llvm::Error E = buildInitializers(S))
    return E;
  if (llvm::Error E = buildNodes(S))
    return E;
  if (llvm::Error E = verifyGraph(*G))
    return addContext(std::move(E), File + ": the imported graph does not "
                                           "verify");
  return G;
}

llvm::Expected<std::unique_ptr<Graph>>
importModel(llvm::StringRef Bytes, llvm::StringRef File, std::string Dir,
            const OnnxImportOptions &Opts) {
  auto M = std::make_shared<onnx::ModelProto>();
  if (llvm::Error E = parseLimited(*M, Bytes, File, "ONNX model"))
    return E;
  return ModelImporter(std::move(M), File.str(), std::move(Dir), Opts).run();
}

} // namespace

llvm::Expected<std::unique_ptr<Graph>>
importOnnxFile(llvm::StringRef Path, const OnnxImportOptions &Opts) {
  if (llvm::sys::fs::is_directory(Path))
    return inputError("{0}: is a directory, expected a file", Path);
  auto M = std::make_shared<onnx::ModelProto>();
  MappedRawData Raw;
  if (llvm::Error E = parseFileLimited(*M, Path, Raw))
    return E;
  llvm::SmallString<256> Dir(llvm::sys::path::parent_path(Path));
  if (Dir.empty())
    Dir = ".";
  return ModelImporter(std::move(M), Path.str(), std::string(Dir), Opts,
                       std::move(Raw))
      .run();
}

llvm::Expected<std::unique_ptr<Graph>>
importOnnxBuffer(llvm::StringRef Bytes, llvm::StringRef DisplayName,
                 const OnnxImportOptions &Opts) {
  return importModel(Bytes, DisplayName, "", Opts);
}

llvm::Expected<Tensor> readTensorProtoFile(llvm::StringRef Path) {
  auto Buf = mapFile(Path);
  if (!Buf)
    return Buf.takeError();
  onnx::TensorProto T;
  if (llvm::Error E =
          parseLimited(T, (*Buf)->getBuffer(), Path, "ONNX TensorProto"))
    return E;
  auto R = decodeTensor(T, nullptr, nullptr);
  if (!R)
    return addContext(R.takeError(), Path);
  return R;
}

} // namespace kiln
