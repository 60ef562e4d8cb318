#include "integer_search.h"

#include "explore/model_with.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace rootline {

namespace {

using Wide = __int128;

// Evaluations of the whole query (not only its condition) one search makes at most.
constexpr size_t kMaxWholeQueries = 40;

bool isNumeral(const z3::expr &e) { return e.is_numeral(); }

// The input's value as the number its program reads: a signed token's bits sign-extended.
Wide numberOf(const IntegerInput &x, uint64_t value) {
  uint64_t mask = x.bits >= 64 ? ~0ull : (1ull << x.bits) - 1;
  value &= mask;
  if (x.isSigned && x.bits <= 64 && (value >> (x.bits - 1)) & 1)
    return static_cast<Wide>(value) - (static_cast<Wide>(1) << x.bits);
  return static_cast<Wide>(value);
}

uint64_t bitsOf(const IntegerInput &x, Wide n) {
  uint64_t mask = x.bits >= 64 ? ~0ull : (1ull << x.bits) - 1;
  return static_cast<uint64_t>(n) & mask;
}

Wide lowest(const IntegerInput &x) {
  return x.isSigned ? -(static_cast<Wide>(1) << (x.bits - 1)) : 0;
}
Wide highest(const IntegerInput &x) {
  return x.isSigned ? (static_cast<Wide>(1) << (x.bits - 1)) - 1
                    : (static_cast<Wide>(1) << x.bits) - 1;
}

// Distinct numerals of `e` that fit in 64 bits, at most `limit`.
std::vector<uint64_t> bvNumeralsOf(const z3::expr &e, size_t limit) {
  std::vector<uint64_t> out;
  std::set<unsigned> seen;
  std::vector<z3::expr> work = {e};
  size_t visited = 0;
  while (!work.empty() && out.size() < limit && ++visited < 20000) {
    z3::expr t = work.back();
    work.pop_back();
    if (!seen.insert(t.id()).second || !t.is_app())
      continue;
    if (t.is_bv() && isNumeral(t)) {
      uint64_t v = 0;
      if (t.get_sort().bv_size() <= 64 && t.is_numeral_u64(v) &&
          std::find(out.begin(), out.end(), v) == out.end())
        out.push_back(v);
      continue;
    }
    for (unsigned i = 0; i < t.num_args(); ++i)
      work.push_back(t.arg(i));
  }
  return out;
}

// Candidate numbers for a token, nearest the seed first: small steps, doubling steps,
// the query's constants and their neighbours, and the numbers people type.
std::vector<Wide> numberCandidates(const IntegerInput &x, const std::vector<uint64_t> &constants) {
  Wide seed = numberOf(x, x.seed);
  std::vector<Wide> c = {0, 1, 2, 10, 100};
  if (x.isSigned)
    c.push_back(-1);
  for (Wide d = 1; d <= 8; ++d)
    c.insert(c.end(), {seed + d, seed - d});
  for (unsigned k = 4; k < x.bits && k < 64; ++k) {
    Wide step = static_cast<Wide>(1) << k;
    c.insert(c.end(), {seed + step, seed - step});
  }
  for (uint64_t k : constants)
    for (Wide n : {static_cast<Wide>(k), numberOf(x, k)})
      c.insert(c.end(), {n, n + 1, n - 1});
  std::vector<Wide> out;
  for (Wide n : c)
    if (n != seed && n >= lowest(x) && n <= highest(x) &&
        std::find(out.begin(), out.end(), n) == out.end())
      out.push_back(n);
  auto distance = [&](Wide n) { return n > seed ? n - seed : seed - n; };
  std::stable_sort(out.begin(), out.end(),
                   [&](Wide a, Wide b) { return distance(a) < distance(b); });
  return out;
}

// The class a changed text byte keeps (as ClosestInput's guards do).
int byteClass(unsigned char c) {
  if (std::isdigit(c))
    return 0;
  if (std::islower(c))
    return 1;
  if (std::isupper(c))
    return 2;
  if (c == ' ' || c == '\t')
    return 3;
  if (c == '\n' || c == '\r')
    return 4;
  if (std::ispunct(c))
    return 5;
  return 6;
}

// Candidate bytes: those of the seed's class nearest first, then other printable ones.
std::vector<Wide> byteCandidates(const IntegerInput &x) {
  auto seed = static_cast<unsigned char>(x.seed);
  std::vector<Wide> same, other;
  for (int b = 0; b < 256; ++b) {
    auto c = static_cast<unsigned char>(b);
    if (c == seed)
      continue;
    if (byteClass(c) == byteClass(seed) && byteClass(seed) != 6)
      same.push_back(b);
    else if ((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t')
      other.push_back(b);
  }
  auto nearer = [&](Wide a, Wide b) {
    return (a > seed ? a - seed : seed - a) < (b > seed ? b - seed : seed - b);
  };
  std::stable_sort(same.begin(), same.end(), nearer);
  std::stable_sort(other.begin(), other.end(), nearer);
  same.insert(same.end(), other.begin(), other.end());
  return same;
}

class IntegerSearch {
public:
  IntegerSearch(const z3::model &base, const z3::expr &focus, const std::vector<z3::expr> &formulas,
                const Deadline &deadline, size_t maxEvaluations)
      : base_(base), focus_(focus), formulas_(formulas), deadline_(deadline),
        left_(maxEvaluations) {}

  bool exhausted() const { return left_ == 0 || deadline_.expired(); }

  z3::model with(const IntegerInput &x, Wide n) const {
    return modelWith(base_, x.var, bitsOf(x, n), x.bits);
  }

  bool holds(const IntegerInput &x, Wide n) {
    if (exhausted())
      return false;
    --left_;
    z3::model m = with(x, n);
    if (!m.eval(focus_, true).is_true())
      return false;
    // The whole query costs a millisecond or more (stores into symbolic arrays): where
    // the condition holds but the path does not, often, the solver settles it sooner.
    if (fullLeft_ == 0) {
      left_ = 0;
      return false;
    }
    --fullLeft_;
    return holdsAll(m, formulas_);
  }

private:
  const z3::model &base_;
  const z3::expr &focus_;
  const std::vector<z3::expr> &formulas_;
  const Deadline &deadline_;
  size_t left_, fullLeft_ = kMaxWholeQueries;
};

} // namespace

bool hasNonlinearArithmetic(const z3::expr &e) {
  std::set<unsigned> seen;
  std::vector<z3::expr> work = {e};
  size_t visited = 0;
  while (!work.empty() && ++visited < 200000) {
    z3::expr t = work.back();
    work.pop_back();
    if (!seen.insert(t.id()).second || !t.is_app())
      continue;
    switch (t.decl().decl_kind()) {
    case Z3_OP_BMUL: {
      unsigned unknown = 0;
      for (unsigned i = 0; i < t.num_args(); ++i)
        unknown += !isNumeral(t.arg(i));
      if (unknown >= 2)
        return true;
      break;
    }
    case Z3_OP_BSDIV:
    case Z3_OP_BUDIV:
    case Z3_OP_BSREM:
    case Z3_OP_BUREM:
    case Z3_OP_BSMOD:
    case Z3_OP_BSDIV_I:
    case Z3_OP_BUDIV_I:
    case Z3_OP_BSREM_I:
    case Z3_OP_BUREM_I:
    case Z3_OP_BSMOD_I:
      return true; // by a constant too: Z3 builds a divider for it when it cannot
                   // preprocess the query (an incremental solver under assumptions)
    default:
      break;
    }
    for (unsigned i = 0; i < t.num_args(); ++i)
      work.push_back(t.arg(i));
  }
  return false;
}

std::optional<z3::model> searchOneInteger(const z3::model &base, const z3::expr &focus,
                                          const std::vector<z3::expr> &formulas,
                                          const std::vector<IntegerInput> &free,
                                          const Deadline &deadline, size_t maxEvaluations) {
  IntegerSearch search(base, focus, formulas, deadline, maxEvaluations);
  std::vector<uint64_t> constants = bvNumeralsOf(focus, 16);
  // Every input's candidates in one order, nearest its own seed first: the input that
  // needs the smallest step moves (`mul 3` → `mul 1` rather than `add 50` → `add 32`).
  struct Candidate {
    Wide distance;
    size_t input;
    Wide value;
  };
  std::vector<Candidate> all;
  for (size_t i = 0; i < free.size(); ++i) {
    const IntegerInput &x = free[i];
    if (x.bits == 0 || x.bits > 64)
      continue;
    Wide seed = numberOf(x, x.seed);
    for (Wide n : x.isByte ? byteCandidates(x) : numberCandidates(x, constants))
      all.push_back({n > seed ? n - seed : seed - n, i, n});
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const Candidate &a, const Candidate &b) { return a.distance < b.distance; });
  // The nearest candidate tried on each side of each input's seed that failed.
  std::vector<Wide> failedBelow, failedAbove;
  for (const IntegerInput &x : free) {
    failedBelow.push_back(x.bits && x.bits <= 64 ? numberOf(x, x.seed) : 0);
    failedAbove.push_back(failedBelow.back());
  }
  for (const Candidate &c : all) {
    if (search.exhausted())
      return std::nullopt;
    const IntegerInput &x = free[c.input];
    Wide n = c.value, seed = numberOf(x, x.seed);
    Wide &failedSide = n < seed ? failedBelow[c.input] : failedAbove[c.input];
    if (!search.holds(x, n)) {
      failedSide = n;
      continue;
    }
    // Numbers between the last failure on this side and `n` were not tried: when the
    // condition is a bound, the nearest number that meets it is among them.
    Wide failed = failedSide;
    while (!x.isByte && (n > failed ? n - failed : failed - n) > 1 && !search.exhausted()) {
      Wide mid = failed + (n - failed) / 2;
      if (search.holds(x, mid))
        n = mid;
      else
        failed = mid;
    }
    return search.with(x, n);
  }
  return std::nullopt;
}

} // namespace rootline
