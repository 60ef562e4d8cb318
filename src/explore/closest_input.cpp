// Closest models: the solver's first model of a query changes inputs it need not and
// picks arbitrary bytes; a person believes an input that differs from the failing one
// where it must, and little there. Every step is a check under guard literals on the
// same solver, bounded by the caller's deadline.
#include "rootline/closest_input.h"

#include "explore/float_search.h"
#include "explore/integer_search.h"
#include "explore/model_with.h"
#include "rootline/expr_text.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <set>

namespace rootline {

namespace {

// A floating-point query with all inputs but one fixed (nearSeedFloats): short, as
// Z3 rarely settles an unsatisfiable one in time anyway.
constexpr unsigned kAnchorMs = 250;
// nearSeedFloats frees at most this many of the query's float inputs, one at a time.
constexpr size_t kAnchorTries = 2;
// The evaluation search over integer inputs gets at most this long per query, and
// stops for a solver once its searches have found nothing for this long since the last
// one that found a model: where one input's step does not satisfy a query, the solver
// settles it sooner (a query over stores into symbolic arrays costs a millisecond per
// evaluation).
constexpr double kIntegerSearchSeconds = 0.1, kFruitlessSearchSeconds = 0.5;
// Above this many assertions the evaluation search costs more than it saves.
constexpr size_t kMaxSearchedFormulas = 4000;

uint64_t maskOf(unsigned bits) { return bits >= 64 ? ~0ull : ((1ull << bits) - 1); }

bool signedToken(const InputVar &v) {
  return v.kind == InputVar::Kind::Token && (v.conv == 'd' || v.conv == 'i');
}

// The seed value as a signed number when the variable is read as one. A float's bits
// as a number that orders like the values (sign and magnitude to two's complement):
// neighbours in it are neighbouring floats.
__int128 numeric(const InputVar &v, uint64_t value) {
  value &= maskOf(v.bits);
  if (v.isFloat()) {
    uint64_t sign = 1ull << (v.bits - 1);
    __int128 magnitude = static_cast<__int128>(value & ~sign);
    return value & sign ? -magnitude : magnitude;
  }
  if (signedToken(v) && v.bits < 64 && (value >> (v.bits - 1)) & 1)
    return static_cast<__int128>(static_cast<int64_t>(value | ~maskOf(v.bits)));
  if (signedToken(v) && v.bits == 64)
    return static_cast<__int128>(static_cast<int64_t>(value));
  return static_cast<__int128>(value);
}

bool printableByte(unsigned char c) {
  return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t' || c == '\r';
}

// The character class a changed byte should keep: the set of bytes like `c`.
std::optional<z3::expr> classOf(const z3::expr &x, unsigned char c) {
  z3::context &ctx = x.ctx();
  auto range = [&](int lo, int hi) {
    return z3::uge(x, ctx.bv_val(lo, 8)) && z3::ule(x, ctx.bv_val(hi, 8));
  };
  if (std::isdigit(c))
    return range('0', '9');
  if (std::islower(c))
    return range('a', 'z');
  if (std::isupper(c))
    return range('A', 'Z');
  if (c == ' ' || c == '\t')
    return x == ctx.bv_val(' ', 8) || x == ctx.bv_val('\t', 8);
  if (c == '\n' || c == '\r')
    return x == ctx.bv_val(c, 8);
  if (std::ispunct(c))
    return range('!', '/') || range(':', '@') || range('[', '`') || range('{', '~');
  return std::nullopt;
}

std::string numberText(const InputVar &v, uint64_t value) {
  if (v.isFloat())
    return shortestDecimal(floatOfInputBits(value, v.bits), v.bits == 32);
  __int128 n = numeric(v, value);
  return n < 0 ? "-" + std::to_string(static_cast<uint64_t>(-n))
               : std::to_string(static_cast<uint64_t>(n));
}

// 1-based: which white-space separated word of `text` starts at or contains `offset`.
size_t wordNumber(const std::string &text, uint64_t offset) {
  size_t words = 0;
  bool in = false;
  for (uint64_t i = 0; i <= offset && i < text.size(); ++i) {
    bool space = std::isspace(static_cast<unsigned char>(text[i]));
    if (!space && !in)
      ++words;
    in = !space;
  }
  return std::max<size_t>(words, 1);
}

} // namespace

ClosestInput::ClosestInput(z3::solver &solver, const ProgramInput &seed,
                           const std::vector<InputVar> &vars)
    : ClosestInput(solver, vars, [&](const InputVar &v) { return valueIn(seed, v); }) {}

ClosestInput::ClosestInput(z3::solver &solver, const std::vector<InputVar> &vars,
                           const std::function<std::optional<uint64_t>(const InputVar &)> &seedOf)
    : solver_(solver) {
  z3::context &ctx = solver.ctx();
  for (const auto &v : vars) {
    auto seedValue = seedOf(v);
    if (!seedValue)
      continue;
    vars_.push_back({v, ctx.bv_const(v.name.c_str(), v.bits), *seedValue, {}, {}, {}});
  }
}

z3::expr ClosestInput::guard(const z3::expr &meaning) {
  z3::expr g = solver_.ctx().bool_const(("rl!close" + std::to_string(guards_++)).c_str());
  solver_.add(z3::implies(g, meaning));
  return g;
}

bool ClosestInput::changed(const z3::model &m, const Var &v) const {
  auto value = modelValue(m, v.expr);
  return value && (*value & maskOf(v.input.bits)) != (v.seed & maskOf(v.input.bits));
}

void ClosestInput::setTimeout(unsigned ms) {
  if (timeoutMs_ == ms)
    return;
  z3::params p(solver_.ctx());
  p.set("timeout", ms);
  solver_.set(p);
  timeoutMs_ = ms;
}

std::optional<z3::model> ClosestInput::check(const z3::expr_vector &assumptions,
                                             const std::vector<z3::expr> &kept,
                                             const std::vector<z3::expr> &trying,
                                             const Deadline &deadline, unsigned timeoutMs) {
  if (deadline.expired())
    return std::nullopt;
  z3::context &ctx = solver_.ctx();
  setTimeout(deadline.clampMs(timeoutMs));
  z3::expr_vector all(ctx);
  for (const auto &a : assumptions)
    all.push_back(a);
  for (const auto &k : kept)
    all.push_back(k);
  for (const auto &t : trying)
    all.push_back(t);
  ++checks_;
  if (solver_.check(all) != z3::sat)
    return std::nullopt;
  return solver_.get_model();
}

void ClosestInput::keepWhatFits(const z3::expr_vector &assumptions, std::vector<z3::expr> &kept,
                                std::vector<z3::expr> group, std::optional<z3::model> &model,
                                std::vector<bool> *accepted, const Deadline &deadline) {
  // Ranges of `group`: one the solver accepts whole joins `kept`, one it refuses is
  // halved, down to single guards.
  struct Part {
    size_t begin, end;
  };
  std::vector<z3::expr> all = std::move(group);
  std::vector<Part> work{{0, all.size()}};
  while (!work.empty() && !deadline.expired()) {
    Part part = work.back();
    work.pop_back();
    if (part.begin >= part.end)
      continue;
    std::vector<z3::expr> trying(all.begin() + static_cast<long>(part.begin),
                                 all.begin() + static_cast<long>(part.end));
    if (auto m = check(assumptions, kept, trying, deadline)) {
      kept.insert(kept.end(), trying.begin(), trying.end());
      model = *m;
      if (accepted)
        for (size_t i = part.begin; i < part.end; ++i)
          (*accepted)[i] = true;
      continue;
    }
    if (part.end - part.begin == 1)
      continue;
    size_t mid = part.begin + (part.end - part.begin) / 2;
    // The first half is tried first (input order): push it last.
    work.push_back({mid, part.end});
    work.push_back({part.begin, mid});
  }
}

namespace {

// The names of the input variables an expression mentions (a DAG walk).
std::set<std::string> variablesOf(const z3::expr &e) {
  std::set<std::string> names;
  std::set<unsigned> seen;
  std::vector<z3::expr> work{e};
  while (!work.empty()) {
    z3::expr x = work.back();
    work.pop_back();
    if (!seen.insert(x.id()).second || !x.is_app())
      continue;
    if (x.num_args() == 0 && x.decl().decl_kind() == Z3_OP_UNINTERPRETED)
      names.insert(x.decl().name().str());
    for (unsigned i = 0; i < x.num_args(); ++i)
      work.push_back(x.arg(i));
  }
  return names;
}

} // namespace

namespace {

// Into `candidate`: `model`'s value of `x` where the query mentions it, else the seed's
// (a side without one: the other's). True when that differs from `model`'s value.
bool mixValue(z3::model &candidate, const z3::model &model, bool mentioned, const z3::expr &x,
              std::optional<uint64_t> seed) {
  auto mine = modelValue(model, x);
  std::optional<uint64_t> value = mentioned ? mine : seed;
  if (!value)
    value = mine ? mine : seed;
  if (!value)
    return false;
  z3::func_decl d = x.decl();
  z3::expr e = x.ctx().bv_val(*value, x.get_sort().bv_size());
  candidate.add_const_interp(d, e);
  return mine && *mine != *value;
}

// Into `m`: the assumptions hold (activation literals true, negated ones false). False
// when one is not a literal.
bool assume(z3::model &m, const z3::expr_vector &assumptions) {
  for (const z3::expr &a : assumptions) {
    bool negated = a.is_app() && a.decl().decl_kind() == Z3_OP_NOT;
    z3::expr lit = negated ? a.arg(0) : a;
    if (!lit.is_const())
      return false;
    z3::func_decl d = lit.decl();
    z3::expr value = m.ctx().bool_val(!negated);
    m.add_const_interp(d, value);
  }
  return true;
}

} // namespace

std::optional<z3::model> ClosestInput::seedOutside(const z3::expr_vector &assumptions,
                                                   const z3::model &first,
                                                   const std::set<std::string> &mentioned) {
  z3::context &ctx = solver_.ctx();
  z3::model candidate(ctx);
  for (const Var &v : vars_)
    mixValue(candidate, first, mentioned.count(v.input.name) > 0, v.expr, v.seed);
  if (!assume(candidate, assumptions))
    return std::nullopt;
  if (!holdsAll(candidate, solver_.assertions()))
    return std::nullopt;
  return candidate;
}

std::optional<z3::model> keepSeedOutside(const z3::model &model, const z3::expr &focus,
                                         const std::vector<z3::expr> &formulas,
                                         const ProgramInput &seed,
                                         const std::vector<InputVar> &vars) {
  z3::context &ctx = focus.ctx();
  std::set<std::string> mentioned = variablesOf(focus);
  z3::model candidate(ctx);
  bool differs = false;
  for (const InputVar &v : vars)
    differs |= mixValue(candidate, model, mentioned.count(v.name) > 0,
                        ctx.bv_const(v.name.c_str(), v.bits), valueIn(seed, v));
  if (!differs)
    return std::nullopt; // the model already keeps the seed where it can
  if (!holdsAll(candidate, formulas))
    return std::nullopt;
  return candidate;
}

bool mentionsFloatInput(const z3::expr &e, const std::vector<InputVar> &vars) {
  std::set<std::string> mentioned = variablesOf(e);
  return std::any_of(vars.begin(), vars.end(),
                     [&](const InputVar &v) { return v.isFloat() && mentioned.count(v.name); });
}

std::optional<z3::model> ClosestInput::seedModel(const z3::expr_vector &assumptions) const {
  z3::context &ctx = solver_.ctx();
  z3::model m(ctx);
  for (const Var &v : vars_) {
    z3::func_decl d = v.expr.decl();
    z3::expr value = ctx.bv_val(v.seed, v.input.bits);
    m.add_const_interp(d, value);
  }
  if (!assume(m, assumptions))
    return std::nullopt;
  return m;
}

std::optional<z3::model> ClosestInput::nearSeedFloats(const z3::expr_vector &assumptions,
                                                      const z3::expr &focus,
                                                      const Deadline &deadline) {
  if (std::none_of(vars_.begin(), vars_.end(), [](const Var &v) { return v.input.isFloat(); }))
    return std::nullopt; // most programs: no walk over the query
  std::set<std::string> mentioned = variablesOf(focus);
  std::vector<size_t> inside, outside;
  for (size_t i = 0; i < vars_.size(); ++i)
    if (vars_[i].input.isFloat())
      (mentioned.count(vars_[i].input.name) ? inside : outside).push_back(i);
  if (inside.empty())
    return std::nullopt;
  // By evaluation first: the seed with one of the query's float inputs moved.
  if (auto base = seedModel(assumptions)) {
    std::vector<FloatInput> free;
    for (size_t i : inside)
      free.push_back({vars_[i].expr, vars_[i].input.bits, vars_[i].seed});
    z3::expr_vector all = solver_.assertions();
    std::vector<z3::expr> formulas;
    for (unsigned k = 0; k < all.size(); ++k)
      formulas.push_back(all[k]);
    if (formulas.size() <= kMaxSearchedFormulas)
      if (auto m = searchOneFloat(*base, formulas, free, deadline))
        return m;
  }
  auto pin = [&](size_t i) {
    Var &v = vars_[i];
    if (!v.keep)
      v.keep = guard(v.expr == solver_.ctx().bv_val(v.seed, v.input.bits));
    return *v.keep;
  };
  std::vector<z3::expr> pinned;
  for (size_t i : outside)
    pinned.push_back(pin(i));
  if (!pinned.empty())
    if (auto m = check(assumptions, {}, pinned, deadline, kAnchorMs))
      return m;
  if (inside.size() < 2)
    return std::nullopt; // nothing more to fix: the caller's check is the same query
  for (size_t k = 0; k < inside.size() && k < kAnchorTries && !deadline.expired(); ++k) {
    std::vector<z3::expr> allButOne = pinned;
    for (size_t j = 0; j < inside.size(); ++j)
      if (j != k)
        allButOne.push_back(pin(inside[j]));
    if (auto m = check(assumptions, {}, allButOne, deadline, kAnchorMs))
      return m;
  }
  return std::nullopt;
}

std::optional<z3::model> ClosestInput::nearSeedIntegers(const z3::expr_vector &assumptions,
                                                        const z3::expr &focus,
                                                        const Deadline &deadline) {
  if (fruitlessSearchSeconds_ >= kFruitlessSearchSeconds || tooManyToSearch_)
    return std::nullopt; // this solver's queries are not the kind one step settles
  z3::expr_vector all = solver_.assertions();
  if (all.size() > kMaxSearchedFormulas) {
    tooManyToSearch_ = true; // assertions only grow: no need to fetch them again
    return std::nullopt;
  }
  for (; nonlinearScanned_ < all.size() && !nonlinearAsserted_; ++nonlinearScanned_)
    nonlinearAsserted_ = hasNonlinearArithmetic(all[nonlinearScanned_]);
  if (!nonlinearAsserted_ && !hasNonlinearArithmetic(focus))
    return std::nullopt;
  std::set<std::string> mentioned = variablesOf(focus);
  std::vector<IntegerInput> free;
  for (const Var &v : vars_)
    if (!v.input.isFloat() && mentioned.count(v.input.name))
      free.push_back({v.expr, v.input.bits, v.seed, signedToken(v.input),
                      v.input.kind != InputVar::Kind::Token || v.input.conv == 'c'});
  if (free.empty())
    return std::nullopt;
  auto base = seedModel(assumptions);
  if (!base)
    return std::nullopt;
  std::vector<z3::expr> formulas;
  for (unsigned k = 0; k < all.size(); ++k)
    formulas.push_back(all[k]);
  // A short try: when one input's step does not do it, the solver's answer is cheaper.
  auto start = std::chrono::steady_clock::now();
  auto found =
      searchOneInteger(*base, focus, formulas, free, deadline.atMost(kIntegerSearchSeconds));
  fruitlessSearchSeconds_ =
      found ? 0
            : fruitlessSearchSeconds_ +
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return found;
}

z3::model ClosestInput::closest(const z3::expr_vector &assumptions, const z3::model &first,
                                const Deadline &deadline, const std::optional<z3::expr> &focus) {
  std::optional<z3::model> model = first;
  // 1. Inputs `first` leaves at their seed values stay there; the others are put back
  //    in groups.
  std::vector<z3::expr> kept, restore;
  std::vector<size_t> changedVars;
  for (size_t i = 0; i < vars_.size(); ++i) {
    Var &v = vars_[i];
    if (!modelValue(first, v.expr))
      continue; // not constrained: applying the model keeps its seed value anyway
    if (!v.keep)
      v.keep = guard(v.expr == solver_.ctx().bv_val(v.seed, v.input.bits));
    if (changed(first, v)) {
      restore.push_back(*v.keep);
      changedVars.push_back(i);
    } else {
      kept.push_back(*v.keep);
    }
  }
  if (changedVars.empty())
    return first;
  if (focus) {
    std::set<std::string> mentioned = variablesOf(*focus);
    std::vector<z3::expr> outside, inside;
    for (size_t k = 0; k < changedVars.size(); ++k)
      (mentioned.count(vars_[changedVars[k]].input.name) ? inside : outside).push_back(restore[k]);
    // Often the answer needs no solver: the failing input's values outside the focus
    // and the first model's inside it, checked by evaluation (a large query can take
    // all of the search's time for one check).
    if (auto m = seedOutside(assumptions, first, mentioned)) {
      model = *m;
      kept.insert(kept.end(), outside.begin(), outside.end());
    } else {
      keepWhatFits(assumptions, kept, outside, model, nullptr, deadline);
    }
    keepWhatFits(assumptions, kept, inside, model, nullptr, deadline);
  } else {
    keepWhatFits(assumptions, kept, restore, model, nullptr, deadline);
  }

  // 2. Bytes that must change keep their class, or at least stay printable.
  std::vector<size_t> still;
  for (size_t i : changedVars)
    if (changed(*model, vars_[i]))
      still.push_back(i);
  std::vector<z3::expr> classGuards;
  std::vector<size_t> classVars;
  for (size_t i : still) {
    Var &v = vars_[i];
    if (v.input.kind == InputVar::Kind::Token)
      continue;
    if (!v.sameClass)
      if (auto c = classOf(v.expr, static_cast<unsigned char>(v.seed)))
        v.sameClass = guard(*c);
    if (v.sameClass)
      classGuards.push_back(*v.sameClass), classVars.push_back(i);
  }
  std::vector<bool> accepted(classGuards.size(), false);
  keepWhatFits(assumptions, kept, classGuards, model, &accepted, deadline);
  std::vector<z3::expr> printableGuards;
  for (size_t k = 0; k < classVars.size(); ++k) {
    Var &v = vars_[classVars[k]];
    if (accepted[k] || !printableByte(static_cast<unsigned char>(v.seed)))
      continue;
    if (!v.printable) {
      z3::context &ctx = solver_.ctx();
      v.printable =
          guard((z3::uge(v.expr, ctx.bv_val(0x20, 8)) && z3::ule(v.expr, ctx.bv_val(0x7e, 8))) ||
                v.expr == ctx.bv_val('\n', 8) || v.expr == ctx.bv_val('\t', 8));
    }
    printableGuards.push_back(*v.printable);
  }
  keepWhatFits(assumptions, kept, printableGuards, model, nullptr, deadline);

  // 3. Each changed value as near its seed as the solver allows.
  z3::context &ctx = solver_.ctx();
  for (size_t i : still) {
    if (deadline.expired())
      break;
    Var &v = vars_[i];
    auto now = modelValue(*model, v.expr);
    if (!now)
      continue;
    __int128 seed = numeric(v.input, v.seed), cur = numeric(v.input, *now);
    __int128 dist = cur > seed ? cur - seed : seed - cur;
    if (dist <= 1)
      continue;
    bool isSigned = signedToken(v.input) || v.input.isFloat();
    unsigned bits = v.input.bits;
    __int128 lowest = isSigned ? -(static_cast<__int128>(1) << (bits - 1)) : 0;
    __int128 highest = isSigned ? (static_cast<__int128>(1) << (bits - 1)) - 1
                                : (static_cast<__int128>(1) << bits) - 1;
    // A float is compared by its ordered number (numeric), as a bit-vector expression.
    z3::expr ordered = v.expr;
    if (v.input.isFloat()) {
      z3::expr sign = v.expr.extract(bits - 1, bits - 1) == ctx.bv_val(1, 1);
      z3::expr magnitude = v.expr & ctx.bv_val(maskOf(bits - 1), bits);
      ordered = z3::ite(sign, -magnitude, magnitude);
    }
    auto within = [&](__int128 d) {
      __int128 lo = std::max(lowest, seed - d), hi = std::min(highest, seed + d);
      z3::expr l = ctx.bv_val(static_cast<uint64_t>(lo) & maskOf(bits), bits);
      z3::expr h = ctx.bv_val(static_cast<uint64_t>(hi) & maskOf(bits), bits);
      return isSigned ? z3::sge(ordered, l) && z3::sle(ordered, h)
                      : z3::uge(ordered, l) && z3::ule(ordered, h);
    };
    // Doubling finds a distance that fits; bisection narrows it. `fits` is the best
    // guard found so far (the current model's distance fits by construction).
    __int128 lo = 0, hi = dist;
    std::optional<z3::expr> fits;
    std::optional<z3::model> fitsModel;
    for (__int128 d = 1; d < hi && !deadline.expired(); d *= 2) {
      z3::expr g = guard(within(d));
      if (auto m = check(assumptions, kept, {g}, deadline)) {
        hi = d, fits = g, fitsModel = m;
        break;
      }
      lo = d;
    }
    while (hi - lo > 1 && !deadline.expired()) {
      __int128 mid = lo + (hi - lo) / 2;
      z3::expr g = guard(within(mid));
      if (auto m = check(assumptions, kept, {g}, deadline))
        hi = mid, fits = g, fitsModel = m;
      else
        lo = mid;
    }
    if (fits) {
      kept.push_back(*fits);
      model = *fitsModel;
    }
  }
  return *model;
}

std::vector<std::string> describeInputChanges(const ProgramInput &seed,
                                              const std::vector<InputVar> &vars,
                                              const z3::model &model) {
  struct Change {
    int source; // 0 stdin, 1 files, 2 argv
    std::string file;
    uint64_t argIndex, offset;
    std::string text;
  };
  // Bytes inside a scanf token belong to the token (applyModel re-prints it whole).
  auto insideToken = [&](const InputVar &byte) {
    return byte.kind != InputVar::Kind::Token &&
           std::any_of(vars.begin(), vars.end(), [&](const InputVar &t) {
             return t.kind == InputVar::Kind::Token && sameInputText(t, byte) &&
                    byte.offset >= t.offset && byte.offset < t.offset + t.length;
           });
  };
  std::vector<Change> changes;
  for (const auto &v : vars) {
    auto was = valueIn(seed, v);
    auto now = modelValue(model, v);
    if (!was || !now || (*was & maskOf(v.bits)) == (*now & maskOf(v.bits)) || insideToken(v))
      continue;
    Change c{v.argIndex > 0 ? 2 : v.file.empty() ? 0 : 1, v.file, v.argIndex, v.offset, ""};
    std::string where = v.file.empty() ? "" : v.file + ", ";
    if (v.kind == InputVar::Kind::Token && v.argIndex > 0) {
      c.text = "argv[" + std::to_string(v.argIndex) + "]: " + numberText(v, *was) + " → " +
               numberText(v, *now);
    } else if (v.kind == InputVar::Kind::ArgvByte) {
      c.text = "argv[" + std::to_string(v.argIndex) + "], byte " + std::to_string(v.offset + 1) +
               ": " + cCharLiteral(static_cast<unsigned char>(*was)) + " → " +
               cCharLiteral(static_cast<unsigned char>(*now));
    } else if (v.kind == InputVar::Kind::Token) {
      c.text = where + "token " + std::to_string(wordNumber(*inputText(seed, v), v.offset)) + ": " +
               numberText(v, *was) + " → " + numberText(v, *now);
    } else {
      const std::string &text = *inputText(seed, v);
      auto end = text.begin() + static_cast<long>(v.offset);
      size_t line = 1 + static_cast<size_t>(std::count(text.begin(), end, '\n'));
      size_t lineStart = v.offset == 0 ? std::string::npos : text.rfind('\n', v.offset - 1);
      size_t column = lineStart == std::string::npos ? v.offset + 1 : v.offset - lineStart;
      c.text = where + "line " + std::to_string(line) + ", byte " + std::to_string(column) + ": " +
               cCharLiteral(static_cast<unsigned char>(*was)) + " → " +
               cCharLiteral(static_cast<unsigned char>(*now));
    }
    changes.push_back(std::move(c));
  }
  std::stable_sort(changes.begin(), changes.end(), [](const Change &a, const Change &b) {
    return std::tie(a.source, a.file, a.argIndex, a.offset) <
           std::tie(b.source, b.file, b.argIndex, b.offset);
  });
  std::vector<std::string> out;
  for (auto &c : changes)
    out.push_back(std::move(c.text));
  return out;
}

ProgramInput randomLike(const ProgramInput &seed, const std::vector<InputVar> &vars,
                        uint64_t rngSeed) {
  std::mt19937_64 rng(rngSeed);
  return applyValues(seed, vars, [&](const InputVar &v) -> std::optional<uint64_t> {
    auto was = valueIn(seed, v);
    if (!was)
      return std::nullopt;
    if (v.isFloat()) { // within twice its magnitude plus 10, to two decimals
      double x = floatOfInputBits(*was, v.bits);
      double reach = (std::isfinite(x) ? std::fabs(x) : 0) * 2 + 10;
      double r = std::round(static_cast<double>(rng() % 2000001) / 1e6 * reach * 100) / 100;
      return inputBitsOfFloat(x < 0 ? -r : r, v.bits);
    }
    if (v.kind == InputVar::Kind::Token) {
      __int128 n = numeric(v, *was);
      __int128 reach = (n < 0 ? -n : n) * 2 + 10;
      __int128 r = static_cast<__int128>(rng() % static_cast<uint64_t>(reach + 1));
      __int128 value = n < 0 ? -r : r;
      return static_cast<uint64_t>(value) & maskOf(v.bits);
    }
    auto c = static_cast<unsigned char>(*was);
    if (c > 0x20 && c < 0x7f)
      return 0x21 + rng() % (0x7f - 0x21); // any visible character
    return c; // blanks, line ends, NUL and bytes that are not text stay
  });
}

} // namespace rootline
