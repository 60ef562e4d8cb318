#include "float_search.h"

#include "explore/model_with.h"
#include "rootline/symbolic.h"
#include "symbolic/float_ops.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace rootline {

namespace {

// Distinct finite floating-point constants of the formulas, at most `limit`.
std::vector<double> constantsOf(const std::vector<z3::expr> &formulas, size_t limit) {
  std::vector<double> out;
  std::set<unsigned> seen;
  std::vector<z3::expr> work(formulas.begin(), formulas.end());
  size_t visited = 0;
  while (!work.empty() && out.size() < limit && ++visited < 20000) {
    z3::expr e = work.back();
    work.pop_back();
    if (!seen.insert(e.id()).second || !e.is_app())
      continue;
    if (auto v = floatNumeral(e)) {
      if (std::isfinite(*v) && std::find(out.begin(), out.end(), *v) == out.end())
        out.push_back(*v);
      continue;
    }
    for (unsigned i = 0; i < e.num_args(); ++i)
      work.push_back(e.arg(i));
  }
  return out;
}

// A float's bits as a number that orders like the values, and back.
__int128 orderedKey(uint64_t bits, unsigned width) {
  uint64_t sign = 1ull << (width - 1);
  auto magnitude = static_cast<__int128>(bits & (sign - 1));
  return bits & sign ? -magnitude : magnitude;
}
uint64_t bitsOfKey(__int128 key, unsigned width) {
  uint64_t sign = 1ull << (width - 1);
  return key < 0 ? static_cast<uint64_t>(-key) | sign : static_cast<uint64_t>(key);
}

// Values worth trying first: the query's constants and what they make together (a
// threshold over a scaled input: 25.0 * 2.89), numbers people type, and the seed moved.
std::vector<double> candidatesNear(double seed, const std::vector<double> &constants) {
  std::vector<double> c = {0, 1, -1, 10, -10, 100, 1000, 1e6, -1e6};
  if (std::isfinite(seed))
    c.insert(c.end(), {seed * 2, seed / 2, -seed, seed + 1, seed - 1, seed * 10, seed / 10});
  size_t pairs = std::min<size_t>(constants.size(), 8);
  for (double k : constants) {
    c.push_back(k);
    c.push_back(std::nextafter(k, HUGE_VAL)); // past a strict comparison's bound
    c.push_back(std::nextafter(k, -HUGE_VAL));
  }
  for (size_t i = 0; i < pairs; ++i)
    for (size_t j = 0; j < pairs; ++j) {
      double a = constants[i], b = constants[j];
      c.insert(c.end(), {a * b, a + b, a - b});
      if (b != 0)
        c.push_back(a / b);
    }
  std::vector<double> out;
  for (double v : c)
    if (std::isfinite(v) && std::find(out.begin(), out.end(), v) == out.end())
      out.push_back(v);
  std::stable_sort(out.begin(), out.end(),
                   [&](double a, double b) { return std::fabs(a - seed) < std::fabs(b - seed); });
  return out;
}

class Search {
public:
  Search(const z3::model &base, const std::vector<z3::expr> &formulas, const Deadline &deadline,
         size_t maxEvaluations)
      : base_(base), formulas_(formulas), deadline_(deadline), left_(maxEvaluations) {}

  bool exhausted() const { return left_ == 0 || deadline_.expired(); }

  // `base` with `x` set to `bits`.
  z3::model with(const FloatInput &x, uint64_t bits) const {
    return modelWith(base_, x.var, bits, x.bits);
  }

  bool holds(const FloatInput &x, double v) { return holdsBits(x, inputBitsOfFloat(v, x.bits)); }
  bool holdsBits(const FloatInput &x, uint64_t bits) {
    if (exhausted())
      return false;
    --left_;
    return holdsAll(with(x, bits), formulas_);
  }

private:
  const z3::model &base_;
  const std::vector<z3::expr> &formulas_;
  const Deadline &deadline_;
  size_t left_;
};

// The satisfying value nearest the seed on the way to `found`, by bisection over the
// floats between them (a threshold's boundary when the condition is monotone there),
// then the shortest decimal not much farther from the seed.
double refine(Search &search, const FloatInput &x, double seed, double found) {
  __int128 lo = orderedKey(inputBitsOfFloat(seed, x.bits), x.bits);
  __int128 hi = orderedKey(inputBitsOfFloat(found, x.bits), x.bits);
  while ((hi > lo ? hi - lo : lo - hi) > 1 && !search.exhausted()) {
    __int128 mid = lo + (hi - lo) / 2;
    if (search.holdsBits(x, bitsOfKey(mid, x.bits)))
      hi = mid;
    else
      lo = mid;
  }
  double best = floatOfInputBits(bitsOfKey(hi, x.bits), x.bits);
  double distance = std::fabs(best - seed);
  if (best == 0 || !std::isfinite(best))
    return best;
  for (int digits = 1; digits <= 16 && !search.exhausted(); ++digits) {
    double scale =
        std::pow(10.0, digits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(best)))));
    double r = (best > seed ? std::ceil(best * scale) : std::floor(best * scale)) / scale;
    if (r == best)
      break;
    if (std::fabs(r - seed) <= 1.5 * distance && search.holds(x, r))
      return r;
  }
  return best;
}

} // namespace

std::optional<z3::model> searchOneFloat(const z3::model &base,
                                        const std::vector<z3::expr> &formulas,
                                        const std::vector<FloatInput> &free,
                                        const Deadline &deadline, size_t maxEvaluations) {
  Search search(base, formulas, deadline, maxEvaluations);
  std::vector<double> constants = constantsOf(formulas, 16);
  // The other inputs' values: `fabs(a - b) < 0.5` wants a near b.
  for (const FloatInput &x : free)
    if (double v = floatOfInputBits(x.seed, x.bits);
        std::isfinite(v) && std::find(constants.begin(), constants.end(), v) == constants.end())
      constants.insert(constants.begin(), v);
  for (const FloatInput &x : free) {
    double seed = floatOfInputBits(x.seed, x.bits);
    for (double c : candidatesNear(seed, constants)) {
      if (search.exhausted())
        return std::nullopt;
      if (!search.holds(x, c))
        continue;
      double best = std::isfinite(seed) ? refine(search, x, seed, c) : c;
      return search.with(x, inputBitsOfFloat(best, x.bits));
    }
  }
  return std::nullopt;
}

} // namespace rootline
