// The symbolic replayer's state, shared by its parts (private to src/symbolic): one Z3
// expression per input-dependent value, symbolic and concrete shadow memory, input
// variables named by origin, the path condition and the bug checks of one run.
//
// Its member functions are defined by idea:
//   symbolic_replay.cpp   the observer: dispatch per instruction, path condition, checks
//   symbolic_exprs.cpp    expressions of arithmetic, comparisons, casts and addresses
//   symbolic_memory.cpp   symbolic and concrete bytes, objects, their array form
//   symbolic_access.cpp   loads and stores (symbolic addresses, bounds checks)
//   symbolic_calls.cpp    intrinsics and calls into uninstrumented code, their effects
//   symbolic_libc.cpp     libc models over the bytes a call read, ctype tables
//   symbolic_inputs.cpp   input variables (argv, stdin, files, tokens) and outputs
#pragma once

#include "rootline/symbolic.h"
#include "symbolic/float_ops.h"
#include "symbolic/indexed_value.h"
#include "symbolic/libc_models.h"
#include "symbolic/source_names.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace rootline {

// Objects larger than this are not modelled as arrays for symbolic addresses.
inline constexpr uint64_t kMaxArrayObject = 1 << 16;

struct Object {
  uint64_t size = 0;
  std::optional<z3::expr> array; // set once a symbolic-address store made it array-valued
  uint32_t arrayNodes = 0;
};

// One symbolic byte of memory: byte `pos` of the `width`-byte value exprs[whole]. Its
// own expression (an extract) is built only when a load needs the byte alone.
struct SymByte {
  uint32_t expr; // kLazy until built
  uint32_t whole;
  uint8_t pos, width;
};
inline constexpr uint32_t kLazy = ~0u;

// Expressions up to this many nodes are simplified as they are built. Z3's simplify
// does not remember earlier calls, so simplifying every step of a long chain would
// visit the whole chain again each time: replay would grow with its square.
inline constexpr uint32_t kSimplifyNodes = 256;

inline z3::expr simplified(const z3::expr &e, uint64_t nodes) {
  return nodes <= kSimplifyNodes ? e.simplify() : e;
}

// Saturating node counts.
inline uint32_t addNodes(uint64_t a, uint64_t b) {
  return static_cast<uint32_t>(std::min<uint64_t>(a + b, ~0u >> 1));
}

// How far past the bytes a string call read its models may look for a NUL that a
// symbolic position could put later.
inline constexpr uint64_t kMaxStringAhead = 64;

inline bool isIntegerDiv(unsigned op) {
  return op == llvm::Instruction::UDiv || op == llvm::Instruction::SDiv ||
         op == llvm::Instruction::URem || op == llvm::Instruction::SRem;
}

// Trailing bits of `e` known to be zero (symbolic_exprs.cpp).
unsigned knownTrailingZeros(const z3::expr &e);

// `compare(leaf)` at every leaf of an if-then-else tree of numbers (symbolic_exprs.cpp).
std::optional<z3::expr> compareLeaves(const z3::expr &tree,
                                      const std::function<z3::expr(const z3::expr &)> &compare,
                                      unsigned &budget);

// The byte at concrete offset `off` of an array built by stores, and the bytes at
// [off, off + n) in one walk of its stores (symbolic_memory.cpp).
z3::expr byteOfArray(const z3::expr &array, uint64_t off);
std::vector<z3::expr> bytesOfArray(const z3::expr &array, uint64_t off, uint64_t n);

// Byte `offset` of argv[index] (`seed`: its value in the traced run; symbolic_inputs.cpp).
InputVar argvByte(unsigned index, uint64_t offset, uint8_t seed);

struct SymbolicReplayer::Impl {
  z3::context &ctx;
  const llvm::Module &module;
  const llvm::DataLayout &dl;
  SymbolicOptions options;
  SymbolicRun run;
  std::vector<z3::expr> &domain = run.domain;

  std::vector<z3::expr> exprs;
  std::vector<uint32_t> nodes;                     // parallel to exprs
  llvm::DenseMap<uint64_t, unsigned> valueOf;      // instance index -> symbolic value
  llvm::DenseMap<uint64_t, SymByte> symByte;       // address -> symbolic byte
  std::unordered_map<uint64_t, uint8_t> knownByte; // address -> concrete byte, where known
  std::map<uint64_t, Object> objects;              // base address -> object
  llvm::DenseMap<uint64_t, uint64_t>
      provenance; // pointer-valued instance -> base of the object it points into
  llvm::DenseMap<const llvm::Instruction *, uint32_t> occurrences;
  std::map<std::string, size_t> varIndex;
  std::vector<z3::expr> varExpr;
  llvm::DenseMap<const llvm::Instruction *, size_t> cappedAt; // -> run.capped
  bool wanted = true; // the current instance gets expressions (options.only)
  SourceNames names;  // variables by address, for the inputs' display names

  // Table values (indexed_value.h) of recent instances: an operation with a constant
  // folds into them. Only the last few are kept; their users come right after them.
  std::map<uint64_t, IndexedValue> tables;
  // ctype's tables: what __ctype_b_loc() and friends returned (the address of the table
  // pointer), the tables loaded from there, and GEPs into them with a symbolic index.
  std::unordered_map<uint64_t, CtypeTable> ctypeLocations, ctypeTables;
  std::map<uint64_t, std::pair<CtypeTable, z3::expr>> ctypeIndexes;
  // Input bytes whose domain excludes NUL (line and token bytes): libc models need not
  // ask whether a string ends there.
  std::unordered_set<unsigned> nonNulInputs;

  // Input sources: file names by source number (OPEN events), and the source the next
  // input event reads (SOURCE; "" for stdin).
  std::map<uint64_t, std::string> sourceFiles;
  std::string currentFile;
  unsigned currentArg = 0; // a token parsed from argv[currentArg] (atoi, sscanf)

  Impl(z3::context &c, const llvm::Module &m, SymbolicOptions o)
      : ctx(c), module(m), dl(m.getDataLayout()), options(o) {}

  // ---- values (here: the small ones every part uses) ---------------------------------

  z3::expr bv(uint64_t v, unsigned bits) { return ctx.bv_val(v, bits); }

  static unsigned bitsOf(const llvm::Type *t) {
    if (t->isPointerTy())
      return 64;
    if (t->isIntegerTy() && t->getIntegerBitWidth() <= 64)
      return t->getIntegerBitWidth();
    if (isSymbolicFloat(t)) // kept as their bits; float_ops computes on them
      return static_cast<unsigned>(t->getPrimitiveSizeInBits().getFixedValue());
    return 0; // long double, aggregates, wide integers: kept concrete
  }

  const z3::expr *symOf(uint64_t def) const {
    if (def == kNoDef)
      return nullptr;
    auto it = valueOf.find(def);
    return it == valueOf.end() ? nullptr : &exprs[it->second];
  }
  const z3::expr *sym(const Operand &op) const { return symOf(op.def); }
  // A copy that stays valid while more expressions are added.
  std::optional<z3::expr> symCopy(const Operand &op) const {
    const z3::expr *e = sym(op);
    return e ? std::optional<z3::expr>(*e) : std::nullopt;
  }
  uint32_t nodesOf(const Operand &op) const {
    if (op.def == kNoDef)
      return 1;
    auto it = valueOf.find(op.def);
    return it == valueOf.end() ? 1 : nodes[it->second];
  }

  z3::expr val(const Operand &op, unsigned bits) {
    if (const z3::expr *e = sym(op))
      return fit(*e, bits);
    return bv(static_cast<uint64_t>(op.value.lo), bits);
  }

  z3::expr fit(const z3::expr &e, unsigned bits) {
    unsigned have = e.get_sort().bv_size();
    if (have == bits)
      return e;
    if (have > bits)
      return e.extract(bits - 1, 0);
    return z3::zext(e, bits - have);
  }

  unsigned push(const z3::expr &e, uint32_t n) {
    exprs.push_back(e);
    nodes.push_back(n);
    return static_cast<unsigned>(exprs.size() - 1);
  }

  bool anySymbolic(const Instance &I) const {
    for (const auto &op : I.operands)
      if (sym(op))
        return true;
    return false;
  }

  void concretize() { ++run.concretizations; }

  // ---- the observer (symbolic_replay.cpp) --------------------------------------------

  void onInstance(const Instance &I);
  void check(const char *kind, const Instance &I, const z3::expr &cond);
  void constrain(const Instance &I, const z3::expr &taken, uint32_t nodeCount);
  void switchInst(const Instance &I, const llvm::SwitchInst *sw);

  // ---- expressions (symbolic_exprs.cpp) ----------------------------------------------

  uint32_t nodesOver(const Instance &I) const;
  void set(const Instance &I, const z3::expr &e, uint32_t n);
  void set(const Instance &I, const z3::expr &e);
  void capped(const Instance &I);
  void computeValue(const Instance &I);
  void compareInst(const Instance &I, const llvm::ICmpInst *cmp);
  uint32_t floatNodes(const Instance &I, unsigned bits) const;
  z3::expr compare(llvm::CmpInst::Predicate p, const z3::expr &a, const z3::expr &b);
  uint32_t binaryNodes(const Instance &I, unsigned op, unsigned bits) const;
  void binary(const Instance &I, unsigned op, unsigned bits);
  void castInst(const Instance &I, const llvm::Instruction *inst, unsigned bits);
  z3::expr gepExpr(const Instance &I, const llvm::GetElementPtrInst *gep);

  // ---- memory (symbolic_memory.cpp) --------------------------------------------------

  void knownConstant(const llvm::Constant *c, uint64_t addr);
  Object *objectAt(uint64_t addr, uint64_t *base);
  void addObject(uint64_t base, uint64_t size);
  void writeConcrete(uint64_t addr, uint64_t n, Val v);
  void forget(uint64_t addr, uint64_t n);
  unsigned byteExpr(SymByte &b);
  z3::expr byteAt(uint64_t addr);
  uint32_t byteNodes(uint64_t addr) const;
  std::pair<z3::expr, uint32_t> readBytes(uint64_t addr, uint64_t n);
  void writeSymbolic(uint64_t addr, const z3::expr &value, uint32_t valueNodes, uint64_t n);
  void copyBytes(uint64_t dst, uint64_t src, uint64_t n);
  uint32_t arrayNodes(const Object &obj, uint64_t base) const;
  z3::expr arrayOf(Object &obj, uint64_t base);
  std::optional<std::pair<z3::expr, uint32_t>>
  readConstantTable(const Object &obj, uint64_t base, const z3::expr &offset, uint64_t n);
  z3::expr readArray(const z3::expr &arr, const z3::expr &offset, uint64_t n);
  bool anySymbolicByte(uint64_t addr, uint64_t n) const;

  // ---- loads and stores (symbolic_access.cpp) ----------------------------------------

  Object *pointeeObject(const Operand &ptr, uint64_t *base);
  void checkAddress(const Instance &I, const z3::expr &ptr, uint64_t n);
  void checkConcreteAccess(const Instance &I, const Operand &ptr, uint64_t n);
  void notePointerOrigin(const Instance &I);
  void load(const Instance &I, const llvm::LoadInst *ld);
  void loadAtSymbolicAddress(const Instance &I, Object *obj, uint64_t base, const z3::expr &ptr);
  void store(const Instance &I, const llvm::StoreInst *st);

  // ---- calls (symbolic_calls.cpp) ----------------------------------------------------

  void call(const Instance &I, const llvm::CallInst *c);
  void minMaxIntrinsic(const Instance &I, const llvm::CallInst *c, llvm::Intrinsic::ID id);
  bool modelFloatFunction(const Instance &I, const llvm::CallInst *c, const std::string &name);
  std::string calleeName(const llvm::CallInst *c);
  void external(const Instance &I, const llvm::CallInst *c);
  bool callEffects(const Instance &I, const llvm::CallInst *c, const std::string &name);
  void checkAllocSize(const Instance &I, const std::string &name);
  bool unmodelledResult(const Instance &I, const llvm::CallInst *c, const std::string &name,
                        bool readSymbolic, bool modelled);
  bool unseenSymbolicRead(const Instance &I, const llvm::CallInst *c, const std::string &name);

  // ---- libc models (symbolic_libc.cpp) -----------------------------------------------

  void noteCtypeLocation(const Instance &I, const std::string &name);
  void noteCtypeIndex(const Instance &I, const llvm::GetElementPtrInst *gep);
  std::optional<ModelByte> modelByte(uint64_t addr);
  bool modelLibcCall(const Instance &I, const std::string &name);
  std::optional<ModelValue> stringModel(const Instance &I, const std::string &name,
                                        const std::vector<const Event *> &reads);
  uint64_t stringEnd(uint64_t s, uint64_t extent, uint64_t limit);
  static bool isDecimalParse(const std::string &name, const Instance &I);
  void setTable(const Instance &I, IndexedValue v);
  bool foldTable(const Instance &I);

  // ---- inputs and outputs (symbolic_inputs.cpp) --------------------------------------

  z3::expr variable(InputVar v);
  void setByte(uint64_t addr, const z3::expr &e);
  z3::expr stdinByte(uint64_t offset, uint64_t dest = 0);
  void excludeNul(const z3::expr &b);
  z3::expr isSpace(const z3::expr &b);

  // Where an input byte lies: its text (stdin "", a file, or argument argIndex) and offset.
  struct InputPlace {
    std::string file;
    unsigned argIndex = 0;
    uint64_t offset = 0;
    bool follows(const InputPlace &prev) const {
      return file == prev.file && argIndex == prev.argIndex && offset == prev.offset + 1;
    }
  };
  std::optional<InputPlace> inputPlaceAt(uint64_t addr);
  void memToken(const Event &e, const Instance &I, const std::string &callee);
  z3::expr tokenVariable(uint64_t offset, uint64_t len, uint64_t size, char conv,
                         uint64_t dest = 0);
  void token(const Event &e);
  void byteToken(char conv, bool afterSpace, uint64_t offset, uint64_t len, uint64_t addr,
                 uint64_t size);
  void output(const Instance &I, const llvm::CallInst *c, const Event &e);
};

} // namespace rootline
