// Equivalence checks for passes: the reference interpreter runs a graph
// before and after a pass on seeded random inputs, and the outputs must agree
// within an explicit tolerance. Graphs are written as .kir text; random
// weights are generated into that text from a seed.
#pragma once

#include "IR/Graph.h"

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace passtest {

struct Tolerance {
  double Rel = 1e-5;
  double Abs = 1e-6;
};

/// "dense[...]" with Count seeded values uniform in [Lo, Hi].
std::string randomDense(std::mt19937 &Rng, int64_t Count, double Lo = -1.0,
                        double Hi = 1.0);

/// Parses Kir; fails the test on a parse error.
std::unique_ptr<kiln::Graph> parse(const std::string &Kir);

/// How many nodes of op Name the graph has.
int64_t countOps(const kiln::Graph &G, const std::string &Name);

/// Runs Passes (verifying after each) on a copy of Kir, runs the interpreter
/// on both graphs with Runs sets of inputs drawn from Seed, and checks every
/// output. Returns the optimized graph for structural checks.
std::unique_ptr<kiln::Graph> checkEquivalent(const std::string &Kir,
                                             const std::vector<std::string> &Passes,
                                             Tolerance Tol = {},
                                             unsigned Seed = 1, int Runs = 3);

} // namespace passtest
