// Symbolic replay: alongside replay's concrete values, a Z3 bit-vector expression over
// the program's inputs wherever an input flows (docs/symbolic.md). The result of one
// run is its input variables, its path condition, the bug checks met on the way and
// the symbolic values of its outputs.
#pragma once

#include "rootline/replay.h"

#include <z3++.h>

#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rootline {

// An input variable, named by where the input came from (stable across versions and
// runs of the same input): "stdin@17" (one stdin byte), "tok@17:i32" (the value of a
// scanf token starting at stdin offset 17), "argv[2]@0" (byte 0 of argv[2]).
struct InputVar {
  enum class Kind { StdinByte, Token, ArgvByte };
  Kind kind = Kind::StdinByte;
  std::string name;
  uint64_t offset = 0; // stdin offset (bytes, tokens) or byte index in argv[argIndex]
  uint64_t length = 1; // token text length in the input
  unsigned bits = 8;
  char conv = 0; // scanf conversion of a token
  unsigned argIndex = 0;
  uint64_t seedValue = 0; // value in the run that created it
  // Bytes and tokens of a file the program opened ("input.txt"), not of stdin: named
  // "file:input.txt@17" and "ftok:input.txt@17:i32"; offsets count bytes of the file.
  std::string file;
  // How reports show it (docs/symbolic.md, "Input variables"): the variable it was read
  // into (`qty`, `a[3]`, `s.len`, `line[4]`, `x#2` for a variable's second input), else
  // `stdin[17]`, `input.txt[17]`, `argv[1][0]` or `token#3`. Stable across runs: it
  // comes from the read order and the program's variables, not from byte offsets.
  std::string display;
  // A float or double token (%f, %lf, %g, ...): `bits` holds its IEEE-754 bits and its
  // text is a decimal number (conv is 'f' for all of them).
  bool isFloat() const { return kind == Kind::Token && conv == 'f'; }
};

// A float token's value: its bits as the double (or float, 32 bits) they encode, and back.
inline double floatOfInputBits(uint64_t bits, unsigned width) {
  if (width == 32) {
    float f;
    auto low = static_cast<uint32_t>(bits);
    std::memcpy(&f, &low, 4);
    return f;
  }
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}
inline uint64_t inputBitsOfFloat(double value, unsigned width) {
  if (width == 32) {
    auto f = static_cast<float>(value);
    uint32_t low;
    std::memcpy(&low, &f, 4);
    return low;
  }
  uint64_t bits;
  std::memcpy(&bits, &value, 8);
  return bits;
}

// One branch instance whose condition depends on the inputs.
struct PathConstraint {
  uint64_t instance = 0;
  const llvm::Instruction *inst = nullptr;
  uint32_t occurrence = 0; // how many instances of this instruction came before it on the path
  uint32_t successor = 0;  // the direction taken
  z3::expr taken;          // the condition that holds on this run
  uint32_t nodes = 1;      // size of `taken` (expression nodes, see SymbolicOptions)
};

// A place where some input could make the program fail.
struct BugCheck {
  std::string
      kind; // "div-by-zero", "int-overflow-div", "out-of-bounds", "null-deref", "bad-alloc-size"
  uint64_t instance = 0;
  const llvm::Instruction *inst = nullptr;
  z3::expr condition;    // holds exactly for inputs that fail here
  size_t pathPrefix = 0; // number of path constraints before this instance
};

// A failure that the concrete values of this very run show (checked by replay, so it
// holds even when the native run did not crash): an access outside the object its
// pointer was derived from, a negative allocation size.
struct Violation {
  std::string kind; // "out-of-bounds", "bad-alloc-size"
  uint64_t instance = 0;
  const llvm::Instruction *inst = nullptr;
  std::string detail;
};

// An output byte range whose value is symbolic.
struct SymbolicOutput {
  uint64_t instance = 0; // the output call
  uint64_t fd = 1, offset = 0, length = 0;
  uint64_t arg = 0;
  z3::expr value;
};

// A place where a value's expression outgrew the node cap and was made concrete.
struct CappedValues {
  std::string file, function; // file: the whole path (relative names joined to their directory)
  unsigned line = 0;
  uint64_t count = 0; // values made concrete there
};

struct SymbolicRun {
  std::vector<InputVar> inputs;
  std::vector<z3::expr> domain; // what every input satisfies (argv bytes are not NUL, ...)
  std::vector<PathConstraint> path;
  std::vector<BugCheck> checks;
  std::vector<Violation> violations;
  std::vector<SymbolicOutput> outputs;
  uint64_t concretizations = 0; // symbolic values that flowed into uninstrumented code or FP
  std::set<std::string> concretizedCalls; // libc functions whose symbolic inputs were dropped
  std::vector<CappedValues> capped;       // by source line, in order of first occurrence
  uint64_t expressions = 0;               // symbolic values built
  uint64_t pathNodes = 0;                 // nodes of the path constraints, summed
  bool saturated = false;                 // stopped at SymbolicOptions::maxPathNodes
  // SymbolicOptions::watch: the stored value's expression by instance, where symbolic.
  std::map<uint64_t, z3::expr> watched;
  // The path condition as one formula, and as SMT-LIB2 text.
  z3::expr pathCondition(z3::context &ctx) const;
  std::string smtlib(z3::context &ctx) const;
};

// The inputs of two runs, each once (an input has the same name in both runs of the
// same test: two versions, or good and fix).
std::vector<InputVar> unionOfInputs(const std::vector<InputVar> &a, const std::vector<InputVar> &b);

// The default node cap: a value whose expression would have more nodes (counted as a
// tree, with an operand used twice counted once) is made concrete. Long loops of
// products and remainders otherwise build formulas no solver settles, and replay
// time grows with their size (docs/symbolic.md).
inline constexpr uint32_t kDefaultMaxExprNodes = 4096;

struct SymbolicOptions {
  // Build expressions only for these instances (by index: a relevant slice's members);
  // every other instance stays concrete. Null: every instance (the whole path).
  const std::vector<bool> *only = nullptr;
  uint32_t maxExprNodes = kDefaultMaxExprNodes;
  bool bugChecks = true; // collect BugChecks (exploration); debug does not need them
  // Stop once the path's constraints hold this many nodes in all (0: no limit): a
  // composition cannot use more (the debugger passes its own limit).
  uint64_t maxPathNodes = 0;
  // Store instances (by index, sorted) whose stored value's expression the run keeps
  // in SymbolicRun::watched (debug: the aligned runs' same-value lines).
  const std::vector<uint64_t> *watch = nullptr;
};

// Replays a trace symbolically. The context must outlive the result. Replay never
// calls the solver.
class SymbolicReplayer : public ReplayObserver {
public:
  SymbolicReplayer(z3::context &ctx, const llvm::Module &module, SymbolicOptions options = {});
  ~SymbolicReplayer() override;
  void onInstance(const Instance &) override;
  void onGlobal(const llvm::GlobalVariable *, uint64_t addr, uint64_t size) override;
  void onArgv(const ArgvString &) override;
  bool wantsMore() const override;
  SymbolicRun take();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace rootline
