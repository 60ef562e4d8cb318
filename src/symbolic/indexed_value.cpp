#include "indexed_value.h"

#include <cctype>
#include <map>

namespace rootline {

namespace {

constexpr int64_t kFirstIndex = -128; // the ctype tables cover signed and unsigned chars
constexpr int64_t kLastIndex = 255;

uint64_t addTo(int64_t index, uint64_t delta) { return static_cast<uint64_t>(index) + delta; }

// Appends a run, merging it into the previous one when they share their value.
void append(std::vector<IndexRun> &runs, IndexRun r) {
  if (!runs.empty() && runs.back().value == r.value && runs.back().addsIndex == r.addsIndex)
    runs.back().last = r.last;
  else
    runs.push_back(r);
}

} // namespace

std::vector<IndexRun> runsOfTable(int64_t first, const std::vector<uint64_t> &values) {
  std::vector<IndexRun> runs;
  size_t i = 0;
  while (i < values.size()) {
    size_t same = i + 1, shifted = i + 1;
    uint64_t delta = values[i] - static_cast<uint64_t>(first + static_cast<int64_t>(i));
    while (same < values.size() && values[same] == values[i])
      ++same;
    while (shifted < values.size() &&
           values[shifted] == addTo(first + static_cast<int64_t>(shifted), delta))
      ++shifted;
    bool constant = same >= shifted;
    size_t end = constant ? same : shifted;
    append(runs, {first + static_cast<int64_t>(end) - 1, constant ? values[i] : delta, !constant});
    i = end;
  }
  return runs;
}

std::optional<std::vector<IndexRun>> mapRunValues(const std::vector<IndexRun> &runs,
                                                  const std::function<uint64_t(uint64_t)> &f) {
  std::vector<IndexRun> out;
  for (const IndexRun &r : runs) {
    if (r.addsIndex)
      return std::nullopt;
    append(out, {r.last, f(r.value), false});
  }
  return out;
}

std::vector<IndexRun> equalityRuns(const std::vector<IndexRun> &runs, uint64_t k, unsigned bits,
                                   bool equal) {
  uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  std::vector<IndexRun> out;
  int64_t lo = INT64_MIN;
  for (size_t i = 0; i < runs.size(); ++i) {
    const IndexRun &r = runs[i];
    int64_t hi = i + 1 == runs.size() ? INT64_MAX : r.last;
    if (!r.addsIndex) {
      append(out, {hi, ((r.value & mask) == (k & mask)) == equal ? 1u : 0u, false});
    } else {
      // index + delta == k at one index, if it lies in this run.
      int64_t at = static_cast<int64_t>((k - r.value) & mask);
      if (bits < 64 && at >= static_cast<int64_t>(1ull << (bits - 1)))
        at -= static_cast<int64_t>(1ull << bits);
      bool inside = at >= lo && at <= hi;
      uint64_t hit = equal ? 1 : 0, miss = equal ? 0 : 1;
      if (inside && at > lo)
        append(out, {at - 1, miss, false});
      if (inside)
        append(out, {at, hit, false});
      append(out, {hi, miss, false});
    }
    lo = hi == INT64_MAX ? hi : hi + 1;
  }
  return out;
}

z3::expr indexedExpr(const IndexedValue &v) {
  z3::context &ctx = v.index.ctx();
  unsigned w = v.index.get_sort().bv_size();
  auto at = [&](int64_t x) { return ctx.bv_val(static_cast<uint64_t>(x), w); };
  auto fitIndex = [&](unsigned bits) {
    if (w == bits)
      return v.index;
    return w > bits ? v.index.extract(bits - 1, 0) : z3::sext(v.index, bits - w);
  };
  if (v.bits == 1) { // a condition: the ranges where it holds
    z3::expr holds = ctx.bool_val(false);
    for (size_t i = 0; i < v.runs.size(); ++i) {
      if (v.runs[i].value == 0)
        continue;
      bool first = i == 0, last = i + 1 == v.runs.size();
      int64_t lo = first ? 0 : v.runs[i - 1].last + 1, hi = v.runs[i].last;
      z3::expr range = ctx.bool_val(true);
      if (!first && !last && lo == hi)
        range = v.index == at(lo);
      else {
        if (!first)
          range = range && v.index >= at(lo);
        if (!last)
          range = range && v.index <= at(hi);
      }
      holds = holds || range;
    }
    return z3::ite(holds.simplify(), ctx.bv_val(1, 1), ctx.bv_val(0, 1));
  }
  auto leaf = [&](const IndexRun &r) {
    z3::expr c = ctx.bv_val(r.value, v.bits);
    return r.addsIndex ? fitIndex(v.bits) + c : c;
  };
  z3::expr out = leaf(v.runs.back());
  for (size_t i = v.runs.size() - 1; i-- > 0;)
    out = z3::ite(v.index <= at(v.runs[i].last), leaf(v.runs[i]), out);
  return out;
}

uint32_t indexedNodes(const IndexedValue &v) {
  uint64_t n = 1 + v.runs.size() * (3ull + v.indexNodes);
  return n > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(n);
}

namespace {

std::vector<IndexRun> tableRuns(const std::function<uint64_t(int)> &at) {
  std::vector<uint64_t> values;
  for (int64_t i = kFirstIndex; i <= kLastIndex; ++i)
    values.push_back(at(static_cast<int>(i)));
  return runsOfTable(kFirstIndex, values);
}

} // namespace

const std::vector<IndexRun> &ctypeTableRuns(CtypeTable table) {
  // The entries' bit patterns as the program loads them: 16-bit class masks, 32-bit cases.
  static const std::vector<IndexRun> classes =
      tableRuns([](int i) { return static_cast<uint64_t>((*__ctype_b_loc())[i]); });
  static const std::vector<IndexRun> upper = tableRuns([](int i) {
    return static_cast<uint64_t>(static_cast<uint32_t>((*__ctype_toupper_loc())[i]));
  });
  static const std::vector<IndexRun> lower = tableRuns([](int i) {
    return static_cast<uint64_t>(static_cast<uint32_t>((*__ctype_tolower_loc())[i]));
  });
  switch (table) {
  case CtypeTable::Class:
    return classes;
  case CtypeTable::ToUpper:
    return upper;
  default:
    return lower;
  }
}

const std::vector<IndexRun> *ctypeFunctionRuns(const std::string &name) {
  using Fn = int (*)(int);
  static const std::map<std::string, Fn> functions = {
      {"isalnum", ::isalnum}, {"isalpha", ::isalpha}, {"isblank", ::isblank},
      {"iscntrl", ::iscntrl}, {"isdigit", ::isdigit}, {"isgraph", ::isgraph},
      {"islower", ::islower}, {"isprint", ::isprint}, {"ispunct", ::ispunct},
      {"isspace", ::isspace}, {"isupper", ::isupper}, {"isxdigit", ::isxdigit},
      {"toupper", ::toupper}, {"tolower", ::tolower}};
  // Built once, before any replay thread can ask (static initialisation is thread-safe).
  static const std::map<std::string, std::vector<IndexRun>> runs = [] {
    std::map<std::string, std::vector<IndexRun>> out;
    for (const auto &[n, fn] : functions) // 32-bit results, as the program receives them
      out[n] = tableRuns(
          [fn = fn](int i) { return static_cast<uint64_t>(static_cast<uint32_t>(fn(i))); });
    return out;
  }();
  auto it = runs.find(name);
  return it == runs.end() ? nullptr : &it->second;
}

} // namespace rootline
