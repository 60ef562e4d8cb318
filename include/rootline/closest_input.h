// Alternative inputs a person believes (docs/debug.md, "Alternative inputs"): among the
// inputs that satisfy a query, one that differs from the failing input as little as
// the solver can show within a deadline.
#pragma once

#include "rootline/budget.h"
#include "rootline/explore.h"

#include <z3++.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rootline {

// The value input variable `v` has in `input`: a stdin, file or argv byte, or the
// integer a scanf token's text reads as. Nullopt when `input` does not reach it.
std::optional<uint64_t> valueIn(const ProgramInput &input, const InputVar &v);

// Whether `e` mentions a float or double input: Z3 needs seconds for such a query,
// and rarely proves one unsatisfiable within any timeout, so callers cap its time at
// kFloatQueryMs after nearSeedFloats found nothing.
bool mentionsFloatInput(const z3::expr &e, const std::vector<InputVar> &vars);
inline constexpr unsigned kFloatQueryMs = 500;

// Searches, on one solver, for models close to a seed input. Guard literals for "this
// input keeps its seed value" and "this byte keeps its character class" are made once
// per variable and reused by every query on the same solver.
class ClosestInput {
public:
  ClosestInput(z3::solver &solver, const ProgramInput &seed, const std::vector<InputVar> &vars);
  // Seeds given per variable (nullopt: the variable is left out), e.g. another model's
  // values: the input nearest a boundary on its other side.
  ClosestInput(z3::solver &solver, const std::vector<InputVar> &vars,
               const std::function<std::optional<uint64_t>(const InputVar &)> &seedOf);

  // A model of the solver's assertions under `assumptions`, of which `first` is one,
  // that changes the seed as little as it can find before `deadline`:
  //   1. inputs the query does not constrain keep their seed values (as in `first`);
  //   2. as few inputs as possible change: the seed values are put back in groups,
  //      halving a group the solver refuses (greedy, not a minimum);
  //   3. each changed byte keeps its character class (digit, letter of the same case,
  //      blank, punctuation), else stays printable when the seed byte was;
  //   4. each changed value moves as little as possible from its seed (the smallest
  //      distance, by doubling then bisection).
  // A step the solver cannot settle in time is skipped; `first` is the fallback.
  // `focus`: the query's own condition (a negated branch). Inputs it does not mention are
  // put back first, as one group: the rest of a Darwin query is the failing run's path,
  // which the failing input already satisfies, so one check usually settles them.
  z3::model closest(const z3::expr_vector &assumptions, const z3::model &first,
                    const Deadline &deadline, const std::optional<z3::expr> &focus = {});

  // Floating-point queries take Z3 seconds to minutes (each double operation
  // bit-blasts to thousands of gates). Before the caller's full check: a search by
  // evaluation that moves one of `focus`'s float inputs from its seed value
  // (float_search.h); then the query under `assumptions` with every float input `focus`
  // does not mention fixed at its seed, then with all float inputs but one of
  // `focus`'s fixed, each check at most kAnchorMs. Nullopt when the query mentions no float input
  // or no attempt found a model (the caller then asks the solver the whole query).
  std::optional<z3::model> nearSeedFloats(const z3::expr_vector &assumptions, const z3::expr &focus,
                                          const Deadline &deadline);

  // Queries with a product or a remainder of two unknowns (in `focus` or in the
  // solver's assertions) take Z3 seconds, and it overruns its timeout while it
  // bit-blasts them. Before the solver: the seed with one of `focus`'s integer inputs
  // moved, found by evaluation (integer_search.h). The model changes one input, to the
  // value nearest its seed the search met: it needs no closest(). Nullopt when the query
  // is linear or the search found nothing (the caller then asks the solver).
  std::optional<z3::model> nearSeedIntegers(const z3::expr_vector &assumptions,
                                            const z3::expr &focus, const Deadline &deadline);

  unsigned checks() const { return checks_; } // solver checks made, in all

  // Sets the solver's timeout, unless it already has that one: Z3 re-reads every
  // parameter of every inner solver on each set, which costs more than a quick check.
  // Everything that sets this solver's timeout goes through here.
  void setTimeout(unsigned ms);

private:
  // The seed's values for every input `mentioned` does not name and `first`'s for the
  // others, when that satisfies the solver's assertions under `assumptions` (checked by
  // evaluation, not by the solver).
  std::optional<z3::model> seedOutside(const z3::expr_vector &assumptions, const z3::model &first,
                                       const std::set<std::string> &mentioned);
  // Every input at its seed value, the assumption literals as assumed.
  std::optional<z3::model> seedModel(const z3::expr_vector &assumptions) const;
  struct Var {
    InputVar input;
    z3::expr expr;
    uint64_t seed = 0;
    std::optional<z3::expr> keep, sameClass, printable; // guard literals, made lazily
  };
  std::optional<z3::model> check(const z3::expr_vector &assumptions,
                                 const std::vector<z3::expr> &kept,
                                 const std::vector<z3::expr> &trying, const Deadline &deadline,
                                 unsigned timeoutMs = 400); // a step that needs more is skipped
  // Adds each guard of `group` the solver accepts to `kept` (divide and conquer);
  // `model` becomes the last model found.
  void keepWhatFits(const z3::expr_vector &assumptions, std::vector<z3::expr> &kept,
                    std::vector<z3::expr> group, std::optional<z3::model> &model,
                    std::vector<bool> *accepted, const Deadline &deadline);
  z3::expr guard(const z3::expr &meaning);
  bool changed(const z3::model &m, const Var &v) const;

  z3::solver &solver_;
  std::vector<Var> vars_;
  unsigned checks_ = 0, guards_ = 0;
  std::optional<unsigned> timeoutMs_; // the timeout last set on solver_
  // Whether the solver's first `nonlinearScanned_` assertions hold a nonlinear operation
  // (scanned once each, as the solver grows).
  unsigned nonlinearScanned_ = 0;
  bool nonlinearAsserted_ = false;
  bool tooManyToSearch_ = false;      // past kMaxSearchedFormulas assertions
  double fruitlessSearchSeconds_ = 0; // nearSeedIntegers' since it last found a model
};

// `model`'s values for the inputs `focus` mentions and the seed's for all others, when
// that satisfies every formula (checked by evaluation, no solver); nullopt otherwise. A
// DART child made this way changes only what its negated branch needs, as DART keeps
// the parent's input elsewhere; a raw model would change every byte the path mentions.
std::optional<z3::model> keepSeedOutside(const z3::model &model, const z3::expr &focus,
                                         const std::vector<z3::expr> &formulas,
                                         const ProgramInput &seed,
                                         const std::vector<InputVar> &vars);

// What `model` changes against `seed`, one phrase per input variable whose value
// differs, in input order: "token 2: 10 → 11", "line 3, byte 5: 'a' → 'b'", "argv[1],
// byte 1: 'x' → 'y'", "input.txt, token 1: 3 → 4". Bytes are C character literals;
// tokens count the white-space separated words of their source from 1.
std::vector<std::string> describeInputChanges(const ProgramInput &seed,
                                              const std::vector<InputVar> &vars,
                                              const z3::model &model);

// A random input of the seed's shape, for telling what the program does with input it
// does not care about: each number read by scanf becomes a random number of the same
// sign within twice its size plus 10; each visible byte a random visible byte; blanks,
// line ends and the rest of the input stay. The same `rngSeed` gives the same input.
ProgramInput randomLike(const ProgramInput &seed, const std::vector<InputVar> &vars,
                        uint64_t rngSeed);

} // namespace rootline
