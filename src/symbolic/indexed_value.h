// A value computed from one integer by table lookup: ctype's class and case tables and
// the ctype functions. It is kept as runs of consecutive indices that share a constant
// or add one constant to the index, so an operation with a constant folds into the
// runs: `isdigit(c)`, a 384-entry table masked and compared with 0, ends as
// `c >= 48 && c <= 57` instead of a table the solver and the reader must unfold.
#pragma once

#include <z3++.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rootline {

struct IndexRun {
  int64_t last;   // covers (previous run's last, last]; the first run extends down
                  // and the last one up, so every index has a value
  uint64_t value; // the constant's bits, or what is added to the index
  bool addsIndex = false;
};

struct IndexedValue {
  z3::expr index;             // compared as signed
  std::vector<IndexRun> runs; // ascending `last`
  unsigned bits;              // width of the value (1: a condition)
  uint32_t indexNodes = 1;    // the index expression's node count
};

// The runs of values[i] = f(first + i), each as long as a constant or an
// index-plus-constant run can make it.
std::vector<IndexRun> runsOfTable(int64_t first, const std::vector<uint64_t> &values);

// The runs with every constant mapped by `f` and adjacent equal ones merged; nullopt when
// a run adds the index (its values are not one constant).
std::optional<std::vector<IndexRun>> mapRunValues(const std::vector<IndexRun> &runs,
                                                  const std::function<uint64_t(uint64_t)> &f);

// Equality of the value with `k` (`equal` false: inequality) as 0/1 runs, also through
// runs that add the index (toupper(c) == 'Q' holds at 'Q' and 'q').
std::vector<IndexRun> equalityRuns(const std::vector<IndexRun> &runs, uint64_t k, unsigned bits,
                                   bool equal);

// The value as an expression: a condition (bits 1) as the ranges where it holds, any
// other value as nested if-then-elses on `index <= last`.
z3::expr indexedExpr(const IndexedValue &v);
// What the expression costs: its runs plus the index once per run.
uint32_t indexedNodes(const IndexedValue &v);

// glibc's tables as the ctype macros index them (-128..255), for the locale this
// process runs in (programs that never call setlocale use "C", as rootline does).
enum class CtypeTable { Class, ToUpper, ToLower };
const std::vector<IndexRun> &ctypeTableRuns(CtypeTable table);
// The ctype function `name` (isdigit, toupper, ...) on -128..255 as runs; nullptr when
// `name` is not one.
const std::vector<IndexRun> *ctypeFunctionRuns(const std::string &name);

} // namespace rootline
