// A model of a query over integer inputs found by evaluation, without the solver
// (docs/symbolic.md, "Nonlinear arithmetic"). Z3 bit-blasts a product or a remainder of
// two unknowns into a multiplier circuit: a 64-bit `b * b % m` takes it seconds, and it
// overruns a one-second timeout by seconds more while it builds the circuit. The
// conditions such code branches on (a remainder is zero, a power passes a bound, two
// ways of computing a value agree) mostly hold a small step away from the failing
// input's values, which a few hundred evaluations of the query find.
#pragma once

#include "rootline/budget.h"

#include <z3++.h>

#include <optional>
#include <vector>

namespace rootline {

struct IntegerInput {
  z3::expr var;          // the input's bit-vector constant
  unsigned bits = 8;     // its width
  uint64_t seed = 0;     // its value in the seed input
  bool isSigned = false; // distances and bounds as a signed number (a %d token)
  bool isByte = false;   // a text byte: keeps its character class, else stays printable
};

// Whether `e` multiplies two non-constant terms, or divides or takes a remainder: the
// operations Z3 needs a multiplier or divider circuit for (a division by a constant too,
// when it cannot preprocess the query: an incremental solver under assumptions).
bool hasNonlinearArithmetic(const z3::expr &e);

// `base` (every input at its seed value, assumption literals set) with one of `free`
// moved so that `focus` and every formula evaluate to true: the candidate values of all
// inputs in one order, nearest their own seed first (±1, ±2, …, then doubling steps, the
// query's constants and their neighbours; for a byte, the bytes of its class, then
// printable ones), and for a number found past an untried gap, a bisection towards the
// seed. At most `maxEvaluations` evaluations of `focus`; the formulas are evaluated
// only where `focus` holds, at most 40 times.
std::optional<z3::model> searchOneInteger(const z3::model &base, const z3::expr &focus,
                                          const std::vector<z3::expr> &formulas,
                                          const std::vector<IntegerInput> &free,
                                          const Deadline &deadline, size_t maxEvaluations = 400);

} // namespace rootline
