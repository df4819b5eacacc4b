#include "Build/Manifest.h"

#include "Support/Error.h"
#include "backends/Target.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <toml++/toml.h>

#include <cmath>
#include <set>

namespace kiln {

namespace {

const char *const Precisions[] = {"fp32", "fp16", "int8", "int8-dynamic"};

/// Reads one table of the manifest, naming FILE:LINE:COL and the key in
/// every error, and refusing keys it was not asked for.
class TableReader {
public:
  TableReader(const std::string &File, const toml::table &T, std::string Where,
              std::set<std::string> Known)
      : File(File), T(T), Where(std::move(Where)), Known(std::move(Known)) {}

  llvm::Error error(const toml::node *N, const std::string &Key,
                    const std::string &What) const {
    return error(N ? N->source() : T.source(), Key, What);
  }
  llvm::Error error(const toml::source_region &R, const std::string &Key,
                    const std::string &What) const {
    return inputError("{0}:{1}:{2}: {3}{4}: {5}", File, R.begin.line,
                      R.begin.column, Where,
                      Key.empty() ? std::string() : " key '" + Key + "'", What);
  }

  /// A string, or an error; unset keys give "" unless Required.
  llvm::Error string(const std::string &Key, std::string &Out,
                     bool Required = false) {
    const toml::node *N = T.get(Key);
    if (!N)
      return Required ? error(nullptr, Key, "is required") : llvm::Error::success();
    if (!N->is_string())
      return error(N, Key, "must be a string");
    Out = **N->as_string();
    return llvm::Error::success();
  }

  /// A string or an array of strings.
  llvm::Error strings(const std::string &Key, std::vector<std::string> &Out,
                      bool Required = false) {
    const toml::node *N = T.get(Key);
    if (!N)
      return Required ? error(nullptr, Key, "is required") : llvm::Error::success();
    if (N->is_string()) {
      Out = {**N->as_string()};
      return llvm::Error::success();
    }
    const toml::array *A = N->as_array();
    if (!A)
      return error(N, Key, "must be a string or an array of strings");
    Out.clear();
    for (const toml::node &E : *A) {
      if (!E.is_string())
        return error(&E, Key, "must be a string or an array of strings");
      Out.push_back(**E.as_string());
    }
    if (Required && Out.empty())
      return error(N, Key, "must not be empty");
    return llvm::Error::success();
  }

  llvm::Error number(const std::string &Key, std::optional<double> &Out) {
    const toml::node *N = T.get(Key);
    if (!N)
      return llvm::Error::success();
    if (auto V = N->value<double>(); V && (N->is_floating_point() || N->is_integer()) &&
                                     std::isfinite(*V)) {
      Out = *V;
      return llvm::Error::success();
    }
    return error(N, Key, "must be a number");
  }

  llvm::Error count(const std::string &Key, unsigned &Out, unsigned Max) {
    const toml::node *N = T.get(Key);
    if (!N)
      return llvm::Error::success();
    if (!N->is_integer() || **N->as_integer() < 1 || **N->as_integer() > Max)
      return error(N, Key, "must be an integer from 1 to " + std::to_string(Max));
    Out = unsigned(**N->as_integer());
    return llvm::Error::success();
  }

  llvm::Error boolean(const std::string &Key, bool &Out) {
    const toml::node *N = T.get(Key);
    if (!N)
      return llvm::Error::success();
    if (!N->is_boolean())
      return error(N, Key, "must be true or false");
    Out = **N->as_boolean();
    return llvm::Error::success();
  }

  /// The first key that is not one of the table's, named with those that
  /// are (checked first: a misspelt key is the error to report, not the
  /// required key it leaves missing).
  llvm::Error unknownKeys() const {
    for (const auto &[Key, N] : T)
      if (!Known.count(std::string(Key.str())))
        return error(Key.source(), std::string(Key.str()),
                     "is not a manifest key (expected " +
                         llvm::join(Known.begin(), Known.end(), ", ") + ")");
    return llvm::Error::success();
  }

  unsigned line() const { return T.source().begin.line; }

private:
  const std::string &File;
  const toml::table &T;
  std::string Where;
  std::set<std::string> Known;
};

std::string resolve(const std::string &Dir, const std::string &P) {
  if (P.empty() || llvm::sys::path::is_absolute(P))
    return P;
  llvm::SmallString<256> S(Dir);
  llvm::sys::path::append(S, P);
  return std::string(S.str());
}

llvm::Error readModel(const std::string &File, const std::string &Dir,
                      const std::string &Name, const toml::node &N,
                      ManifestModel &M) {
  const toml::table *T = N.as_table();
  std::string Where = "[model." + Name + "]";
  if (!T)
    return inputError("{0}:{1}:{2}: {3} must be a table", File,
                      N.source().begin.line, N.source().begin.column, Where);
  TableReader R(File, *T, Where,
                {"source", "input_shape", "calib", "calib_options",
                 "calib_shards", "check_inputs", "check_samples"});
  if (llvm::Error E = R.unknownKeys())
    return E;
  M.Name = Name;
  M.Line = R.line();
  // The name is part of every artifact's file name.
  if (Name.empty() || !llvm::all_of(Name, [](char C) {
        return llvm::isAlnum(C) || C == '_' || C == '-';
      }))
    return R.error(nullptr, "", "the model's name must be letters, digits, "
                                "'_' and '-' (it names the artifacts' files)");
  std::string Calib, Check;
  if (llvm::Error E = R.string("source", M.Source, true))
    return E;
  if (llvm::Error E = R.strings("input_shape", M.InputShapes))
    return E;
  if (llvm::Error E = R.string("calib", Calib))
    return E;
  if (llvm::Error E = R.strings("calib_options", M.CalibOptions))
    return E;
  if (llvm::Error E = R.count("calib_shards", M.CalibShards, 1024))
    return E;
  if (llvm::Error E = R.string("check_inputs", Check))
    return E;
  if (llvm::Error E = R.count("check_samples", M.CheckSamples, 10000))
    return E;
  M.SourcePath = resolve(Dir, M.Source);
  M.CalibPath = resolve(Dir, Calib);
  M.CheckInputsPath = resolve(Dir, Check);
  llvm::StringRef Ext = llvm::sys::path::extension(M.Source);
  if (Ext != ".onnx" && Ext != ".pt" && Ext != ".kir")
    return R.error(T->get("source"), "source",
                   "'" + M.Source + "' is not a .onnx, .pt or .kir model");
  if (M.CalibShards > 1 && M.CalibPath.empty())
    return R.error(T->get("calib_shards"), "calib_shards",
                   "needs calib (the samples to shard)");
  return llvm::Error::success();
}

/// The files M names exist (checked once the whole manifest is read, so
/// that a mistake in its structure is reported first).
llvm::Error checkModelFiles(const std::string &File, const toml::table &T,
                            const ManifestModel &M) {
  TableReader R(File, T, "[model." + M.Name + "]", {});
  for (const auto &[Key, Path] :
       {std::pair<const char *, const std::string *>{"source", &M.SourcePath},
        {"calib", &M.CalibPath},
        {"check_inputs", &M.CheckInputsPath}}) {
    if (Path->empty() || llvm::sys::fs::exists(*Path))
      continue;
    const toml::node *N = T.get(Key);
    std::string As = N && N->is_string() ? **N->as_string() : *Path;
    return R.error(N, Key, "'" + As + "' does not exist (" + *Path + ")");
  }
  return llvm::Error::success();
}

llvm::Error readBuild(const std::string &File, const Manifest &Man,
                      unsigned Index, const toml::node &N, ManifestBuild &B) {
  const toml::table *T = N.as_table();
  std::string Where = "[[build]] #" + std::to_string(Index);
  if (!T)
    return inputError("{0}:{1}:{2}: {3} must be a table", File,
                      N.source().begin.line, N.source().begin.column, Where);
  TableReader R(File, *T, Where,
                {"model", "target", "precision", "min_sqnr", "max_size",
                 "options", "skip_unsupported"});
  if (llvm::Error E = R.unknownKeys())
    return E;
  B.Index = Index;
  B.Line = R.line();
  std::string MaxSize;
  if (llvm::Error E = R.string("model", B.Model, true))
    return E;
  if (llvm::Error E = R.strings("target", B.Targets, true))
    return E;
  if (llvm::Error E = R.strings("precision", B.Precisions))
    return E;
  if (llvm::Error E = R.number("min_sqnr", B.MinSqnr))
    return E;
  if (llvm::Error E = R.string("max_size", MaxSize))
    return E;
  if (llvm::Error E = R.strings("options", B.Options))
    return E;
  if (llvm::Error E = R.boolean("skip_unsupported", B.SkipUnsupported))
    return E;
  if (B.Precisions.empty())
    B.Precisions = {"fp32"};
  if (!Man.Models.count(B.Model)) {
    std::vector<std::string> Names;
    for (const auto &[Name, M] : Man.Models)
      Names.push_back(Name);
    return R.error(T->get("model"), "model",
                   "no [model." + B.Model + "] in the manifest (models: " +
                       (Names.empty() ? "none" : llvm::join(Names, ", ")) + ")");
  }
  for (const std::string &Name : B.Targets) {
    const Target *Tg = findTarget(Name);
    if (!Tg || !Tg->FileTarget) {
      std::vector<std::string> Known;
      for (const Target &K : allTargets())
        if (K.FileTarget)
          Known.push_back(K.Name);
      return R.error(T->get("target"), "target",
                     "unknown target '" + Name + "' (targets: " +
                         llvm::join(Known, ", ") + ")");
    }
  }
  for (const std::string &P : B.Precisions)
    if (std::find(std::begin(Precisions), std::end(Precisions), P) ==
        std::end(Precisions))
      return R.error(T->get("precision"), "precision",
                     "unknown precision '" + P +
                         "' (fp32, fp16, int8, int8-dynamic)");
  if (!MaxSize.empty()) {
    B.MaxSize = parseByteSize(MaxSize);
    if (!B.MaxSize)
      return R.error(T->get("max_size"), "max_size",
                     "'" + MaxSize + "' is not a size (4096, 300kB, 12MB, 1.5MiB)");
  }
  return llvm::Error::success();
}

} // namespace

std::optional<uint64_t> parseByteSize(llvm::StringRef Text) {
  Text = Text.trim();
  size_t Digits = 0;
  while (Digits < Text.size() &&
         (llvm::isDigit(Text[Digits]) || Text[Digits] == '.'))
    ++Digits;
  double Value;
  if (!Digits || Text.take_front(Digits).getAsDouble(Value) || Value < 0)
    return std::nullopt;
  std::string Unit = Text.drop_front(Digits).trim().lower();
  static const std::pair<const char *, double> Units[] = {
      {"", 1},         {"b", 1},           {"kb", 1e3},
      {"mb", 1e6},     {"gb", 1e9},        {"kib", 1024.0},
      {"mib", 1048576.0}, {"gib", 1073741824.0}};
  for (const auto &[Name, Scale] : Units)
    if (Unit == Name) {
      double Bytes = Value * Scale;
      if (Bytes > 1e18)
        return std::nullopt;
      return uint64_t(std::llround(Bytes));
    }
  return std::nullopt;
}

llvm::Expected<Manifest> loadManifest(const std::string &Path) {
  llvm::SmallString<256> Abs(Path);
  if (std::error_code EC = llvm::sys::fs::make_absolute(Abs))
    return inputError("{0}: {1}", Path, EC.message());
  if (!llvm::sys::fs::is_regular_file(Path))
    return inputError("{0}: no such manifest file", Path);
  auto Text = llvm::MemoryBuffer::getFile(Path);
  if (!Text)
    return inputError("{0}: cannot read: {1}", Path, Text.getError().message());
  return parseManifest((*Text)->getBuffer(), Path,
                       std::string(llvm::sys::path::parent_path(Abs)));
}

llvm::Expected<Manifest> parseManifest(llvm::StringRef Text,
                                       const std::string &Path,
                                       const std::string &Dir) {
  Manifest M;
  M.Path = Path;
  M.Dir = Dir;
  toml::table Root;
  try {
    Root = toml::parse(std::string_view(Text.data(), Text.size()), Path);
  } catch (const toml::parse_error &E) {
    return inputError("{0}:{1}:{2}: {3}", Path, E.source().begin.line,
                      E.source().begin.column, std::string(E.description()));
  }
  for (const auto &[Key, N] : Root) {
    llvm::StringRef K(Key.str().data(), Key.str().size());
    if (K != "model" && K != "build")
      return inputError("{0}:{1}:{2}: key '{3}' is not a manifest section "
                        "(expected [model.NAME] and [[build]])",
                        Path, N.source().begin.line, N.source().begin.column, K);
  }
  if (const toml::node *Models = Root.get("model")) {
    const toml::table *T = Models->as_table();
    if (!T)
      return inputError("{0}:{1}:{2}: 'model' must be tables [model.NAME]",
                        Path, Models->source().begin.line,
                        Models->source().begin.column);
    for (const auto &[Name, N] : *T) {
      ManifestModel Model;
      if (llvm::Error E = readModel(Path, M.Dir, std::string(Name.str()), N, Model))
        return E;
      M.Models[Model.Name] = std::move(Model);
    }
  }
  const toml::node *Builds = Root.get("build");
  if (!Builds || !Builds->is_array_of_tables() || !Builds->as_array()->size())
    return inputError("{0}: no [[build]] entries: nothing to build", Path);
  unsigned Index = 0;
  for (const toml::node &N : *Builds->as_array()) {
    ManifestBuild B;
    if (llvm::Error E = readBuild(Path, M, ++Index, N, B))
      return E;
    M.Builds.push_back(std::move(B));
  }
  if (const toml::node *Models = Root.get("model"))
    for (const auto &[Name, N] : *Models->as_table())
      if (llvm::Error E = checkModelFiles(Path, *N.as_table(),
                                          M.Models.at(std::string(Name.str()))))
        return E;
  return M;
}

} // namespace kiln
