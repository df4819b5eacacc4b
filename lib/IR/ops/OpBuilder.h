// A small fluent builder for OpDefs, used only by the op-family files here.
#pragma once

#include "IR/OpRegistry.h"
#include "IR/ops/FusedActivation.h"

namespace kiln {

class OpBuilder {
public:
  OpBuilder(std::string Name, std::string Category, std::string Summary) {
    D.Name = std::move(Name);
    D.Category = std::move(Category);
    D.Summary = std::move(Summary);
  }
  OpBuilder &operand(std::string Name) {
    D.Operands.push_back({std::move(Name), false, false});
    return *this;
  }
  OpBuilder &optional(std::string Name) {
    D.Operands.push_back({std::move(Name), true, false});
    return *this;
  }
  OpBuilder &variadic(std::string Name) {
    D.Operands.push_back({std::move(Name), false, true});
    return *this;
  }
  OpBuilder &results(unsigned Min, unsigned Max) {
    D.MinResults = Min;
    D.MaxResults = Max;
    return *this;
  }
  OpBuilder &attr(std::string Name, AttrKind Kind, AttrValue Default,
                  std::string Doc = "") {
    D.Attrs.push_back({std::move(Name), Kind, std::move(Default), std::move(Doc)});
    return *this;
  }
  OpBuilder &required(std::string Name, AttrKind Kind, std::string Doc = "") {
    D.Attrs.push_back({std::move(Name), Kind, llvm::None, std::move(Doc)});
    return *this;
  }
  /// The fused-activation attributes (FusedActivation.h); the op's verifier
  /// must call verifyFusedActivation.
  OpBuilder &fusedActivation() { return addFusedActivationAttrs(*this); }
  OpBuilder &infer(InferFn F) {
    D.Infer = F;
    return *this;
  }
  OpBuilder &verify(VerifyFn F) {
    D.Verify = F;
    return *this;
  }
  void into(OpRegistry &R) { R.add(std::move(D)); }

private:
  OpDef D;
};

using Ints = std::vector<int64_t>;
using Floats = std::vector<double>;

} // namespace kiln
