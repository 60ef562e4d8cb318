// A model of a floating-point query found by evaluation, without the solver (docs/symbolic.md,
// "Floating point"). Z3 bit-blasts every double operation (a division by a constant takes
// it 1–6 s, two free inputs minutes); the branches programs take on doubles are mostly
// thresholds on monotone expressions, which a search over one input at a time settles
// in a few hundred evaluations: candidates built from the query's own constants, a
// bisection to the boundary nearest the seed, then the shortest decimal near it.
#pragma once

#include "rootline/budget.h"

#include <z3++.h>

#include <optional>
#include <vector>

namespace rootline {

struct FloatInput {
  z3::expr var; // the input's bit-vector constant
  unsigned bits = 64;
  uint64_t seed = 0; // its bits in the seed input
};

// `base` (every input at its seed value, assumption literals set) changed in one of
// `free` so that every formula evaluates to true; the first input, in order, for which
// the search finds a value. At most `maxEvaluations` evaluations of the formulas.
std::optional<z3::model> searchOneFloat(const z3::model &base,
                                        const std::vector<z3::expr> &formulas,
                                        const std::vector<FloatInput> &free,
                                        const Deadline &deadline, size_t maxEvaluations = 600);

} // namespace rootline
