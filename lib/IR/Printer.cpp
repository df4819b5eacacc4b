#include "IR/Printer.h"

#include "IR/FloatFormat.h"
#include "IR/OpRegistry.h"
#include "Support/Hash.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

namespace kiln {

uint64_t WeightsSidecar::add(llvm::StringRef Bytes, uint64_t Hash) {
  for (const auto &[H, Off] : Index)
    if (H == Hash && llvm::StringRef(Data).substr(Off, Bytes.size()) == Bytes)
      return Off;
  Data.resize((Data.size() + 63) / 64 * 64, '\0');
  uint64_t Off = Data.size();
  Data.append(Bytes.data(), Bytes.size());
  Index.push_back({Hash, Off});
  return Off;
}

static bool isPlainIdentifier(llvm::StringRef S) {
  if (S.empty())
    return false;
  for (char C : S)
    if (!(llvm::isAlnum(C) || C == '_' || C == '.'))
      return false;
  return true;
}

static std::string quoteString(llvm::StringRef S) {
  std::string Out = "\"";
  for (size_t I = 0; I < S.size(); ++I) {
    auto C = static_cast<unsigned char>(S[I]);
    // C0 controls, DEL and C1 controls (U+0080..U+009F, 0xC2 0x80..0x9F in
    // UTF-8) as byte escapes: the text never carries a terminal control.
    bool C1 = C == 0xC2 && I + 1 < S.size() &&
              static_cast<unsigned char>(S[I + 1]) >= 0x80 &&
              static_cast<unsigned char>(S[I + 1]) <= 0x9f;
    if (C == '"' || C == '\\') {
      Out += '\\';
      Out += char(C);
    } else if (C < 0x20 || C == 0x7f || C1) {
      char Buf[8];
      std::snprintf(Buf, sizeof(Buf), "\\%02x", C);
      Out += Buf;
      if (C1) {
        std::snprintf(Buf, sizeof(Buf), "\\%02x",
                      static_cast<unsigned char>(S[++I]));
        Out += Buf;
      }
    } else {
      Out += char(C);
    }
  }
  return Out + "\"";
}

std::string quoteNameIfNeeded(llvm::StringRef Name) {
  return isPlainIdentifier(Name) ? Name.str() : quoteString(Name);
}

std::string sidecarLine(llvm::StringRef SidecarName) {
  return "weights " + quoteString(SidecarName) + "\n";
}

namespace {

class Printer {
public:
  Printer(const Graph &G, llvm::raw_ostream &OS, const PrintOptions &Opts)
      : G(G), OS(OS), Opts(Opts) {}

  void print() {
    assignNames();
    OS << "graph @" << quoteNameIfNeeded(G.name()) << "(";
    for (unsigned I = 0; I < G.numInputs(); ++I) {
      if (I)
        OS << ", ";
      OS << ref(G.input(I)) << ": " << toString(G.input(I)->type());
    }
    OS << ") -> (";
    for (size_t I = 0; I < G.outputs().size(); ++I) {
      if (I)
        OS << ", ";
      OS << ref(G.outputs()[I]) << ": " << toString(G.outputs()[I]->type());
    }
    OS << ") {\n";
    for (const Node &N : G.nodes())
      printNode(N);
    OS << "  return";
    for (size_t I = 0; I < G.outputs().size(); ++I)
      OS << (I ? ", " : " ") << ref(G.outputs()[I]);
    OS << "\n}\n";
  }

private:
  // Named values keep their (first) name; the rest are numbered %0, %1, ...
  // skipping any number already taken by a name.
  void assignNames() {
    llvm::StringSet<> Taken;
    std::vector<const Value *> Order;
    for (const auto &V : G.inputPtrs())
      Order.push_back(V.get());
    for (const Node &N : G.nodes())
      for (unsigned I = 0; I < N.numResults(); ++I)
        Order.push_back(N.result(I));
    for (const Value *V : Order)
      if (!V->name().empty() && Taken.insert(V->name()).second)
        Names[V] = V->name();
    unsigned Next = 0;
    for (const Value *V : Order) {
      if (Names.count(V))
        continue;
      std::string N;
      do
        N = std::to_string(Next++);
      while (Taken.count(N));
      Taken.insert(N);
      Names[V] = N;
    }
  }

  std::string ref(const Value *V) {
    if (!V)
      return "none";
    auto It = Names.find(V);
    if (It == Names.end()) // dangling: the verifier reports it
      return "%<dangling>";
    return "%" + quoteNameIfNeeded(It->second);
  }

  void printNode(const Node &N) {
    OS << "  ";
    for (unsigned I = 0; I < N.numResults(); ++I)
      OS << (I ? ", " : "") << ref(N.result(I));
    OS << " = " << N.opName();
    if (N.isOp("const")) {
      OS << ' ';
      printTensor(N.getTensor("value"));
    } else {
      OS << '(';
      for (unsigned I = 0; I < N.numOperands(); ++I)
        OS << (I ? ", " : "") << ref(N.operand(I));
      OS << ')';
      printAttrs(N);
      OS << " : ";
      for (unsigned I = 0; I < N.numResults(); ++I)
        OS << (I ? ", " : "") << toString(N.result(I)->type());
    }
    if (Opts.PrintProvenance && !N.sources().empty()) {
      OS << " loc(";
      for (size_t I = 0; I < N.sources().size(); ++I)
        OS << (I ? ", " : "") << quoteString(N.sources()[I]);
      OS << ')';
    }
    OS << '\n';
  }

  // Attributes print in schema order; unknown names (rejected by the
  // verifier) after them, so a bad graph still prints.
  void printAttrs(const Node &N) {
    std::vector<const std::pair<const std::string, AttrValue> *> Ordered;
    for (const AttrSpec &Spec : N.def().Attrs) {
      auto It = N.attrs().find(Spec.Name);
      if (It != N.attrs().end())
        Ordered.push_back(&*It);
    }
    for (const auto &KV : N.attrs())
      if (!N.def().findAttr(KV.first))
        Ordered.push_back(&KV);
    if (Ordered.empty())
      return;
    OS << " {";
    for (size_t I = 0; I < Ordered.size(); ++I) {
      OS << (I ? ", " : "") << Ordered[I]->first << '=';
      printAttr(Ordered[I]->second);
    }
    OS << '}';
  }

  void printAttr(const AttrValue &V) {
    switch (kindOf(V)) {
    case AttrKind::Int: OS << std::get<int64_t>(V); break;
    case AttrKind::Float: OS << formatDouble(std::get<double>(V)); break;
    case AttrKind::String: OS << quoteString(std::get<std::string>(V)); break;
    case AttrKind::Ints: printList(std::get<std::vector<int64_t>>(V),
                                   [&](int64_t X) { OS << X; }); break;
    case AttrKind::Floats: printList(std::get<std::vector<double>>(V),
                                     [&](double X) { OS << formatDouble(X); }); break;
    case AttrKind::Strings: printList(std::get<std::vector<std::string>>(V),
                                      [&](const std::string &X) { OS << quoteString(X); }); break;
    case AttrKind::Tensor: printTensor(std::get<Tensor>(V)); break;
    }
  }

  template <typename T, typename F> void printList(const std::vector<T> &L, F Each) {
    OS << '[';
    for (size_t I = 0; I < L.size(); ++I) {
      if (I)
        OS << ", ";
      Each(L[I]);
    }
    OS << ']';
  }

  void printTensor(const Tensor &T) {
    OS << toString(T.type()) << ' ';
    int64_t Count = T.numElements();
    if (Opts.PrintAllWeights || Count <= Opts.InlineElementLimit) {
      OS << "dense[";
      for (int64_t I = 0; I < Count; ++I) {
        if (I)
          OS << ", ";
        printElement(T, I);
      }
      OS << ']';
      return;
    }
    uint64_t Hash = contentHash(T.buffer().str());
    if (Opts.Sidecar) {
      uint64_t Off = Opts.Sidecar->add(T.buffer().str(), Hash);
      OS << "blob(" << Off << ", " << T.buffer().size() << ", \""
         << hashToHex(Hash) << "\")";
    } else {
      OS << "elided(\"" << hashToHex(Hash) << "\")";
    }
    // Printing reads every weight once (a fingerprint prints the whole
    // graph): a mapped one need not stay resident after.
    T.buffer().releaseResident();
  }

  void printElement(const Tensor &T, int64_t I) {
    switch (T.type().Elem) {
    case ElementType::F32: OS << formatFloat(T.at<float>(I)); break;
    case ElementType::F16: OS << formatFloat(halfToFloat(T.at<uint16_t>(I))); break;
    case ElementType::BF16: OS << formatFloat(bf16ToFloat(T.at<uint16_t>(I))); break;
    case ElementType::F64: OS << formatDouble(T.at<double>(I)); break;
    case ElementType::U64: OS << T.at<uint64_t>(I); break;
    case ElementType::Bool: OS << (T.at<uint8_t>(I) ? "true" : "false"); break;
    default: OS << T.asInt(I); break;
    }
  }

  const Graph &G;
  llvm::raw_ostream &OS;
  const PrintOptions &Opts;
  llvm::DenseMap<const Value *, std::string> Names;
};

} // namespace

void printGraph(const Graph &G, llvm::raw_ostream &OS, const PrintOptions &Opts) {
  Printer(G, OS, Opts).print();
}

std::string printGraphToString(const Graph &G, const PrintOptions &Opts) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printGraph(G, OS, Opts);
  return OS.str();
}

} // namespace kiln
