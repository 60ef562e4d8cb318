// The symbolic layer of replay: one Z3 expression per input-dependent value, symbolic
// and concrete shadow memory, input variables named by origin, the path condition and
// the bug checks of one run.
#include "rootline/symbolic.h"

#include "symbolic/float_ops.h"
#include "symbolic/indexed_value.h"
#include "symbolic/libc_models.h"
#include "symbolic/source_names.h"
#include "trace/value_ops.h"

#include "rootline/error.h"
#include "rootline/module_index.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/GetElementPtrTypeIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>
#include <optional>
#include <set>

#include <unordered_map>
#include <unordered_set>

namespace rootline {

namespace {

// Byte `offset` of argv[index] (`seed`: its value in the traced run).
InputVar argvByte(unsigned index, uint64_t offset, uint8_t seed) {
  InputVar v;
  v.kind = InputVar::Kind::ArgvByte;
  v.name = "argv[" + std::to_string(index) + "]@" + std::to_string(offset);
  v.offset = offset;
  v.argIndex = index;
  v.seedValue = seed;
  v.display = "argv[" + std::to_string(index) + "][" + std::to_string(offset) + "]";
  return v;
}

// Objects larger than this are not modelled as arrays for symbolic addresses.
constexpr uint64_t kMaxArrayObject = 1 << 16;

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
constexpr uint32_t kLazy = ~0u;

// Expressions up to this many nodes are simplified as they are built. Z3's simplify
// does not remember earlier calls, so simplifying every step of a long chain would
// visit the whole chain again each time: replay would grow with its square.
constexpr uint32_t kSimplifyNodes = 256;

z3::expr simplified(const z3::expr &e, uint64_t nodes) {
  return nodes <= kSimplifyNodes ? e.simplify() : e;
}

// Saturating node counts.
uint32_t addNodes(uint64_t a, uint64_t b) {
  return static_cast<uint32_t>(std::min<uint64_t>(a + b, ~0u >> 1));
}

// Trailing bits of `e` known to be zero (a syntactic look at products, shifts, sums and
// concatenations): proves a table offset aligned without asking a solver.
unsigned knownTrailingZeros(const z3::expr &e) {
  unsigned w = e.get_sort().bv_size();
  if (e.is_numeral()) {
    uint64_t v = 0;
    if (!e.is_numeral_u64(v))
      return 0;
    return v == 0 ? w : static_cast<unsigned>(__builtin_ctzll(v));
  }
  if (!e.is_app())
    return 0;
  auto tz = [&](unsigned i) { return knownTrailingZeros(e.arg(i)); };
  switch (e.decl().decl_kind()) {
  case Z3_OP_BMUL: {
    unsigned t = 0;
    for (unsigned i = 0; i < e.num_args(); ++i)
      t += tz(i);
    return std::min(t, w);
  }
  case Z3_OP_BADD:
  case Z3_OP_BOR:
  case Z3_OP_BXOR: {
    unsigned t = w;
    for (unsigned i = 0; i < e.num_args(); ++i)
      t = std::min(t, tz(i));
    return t;
  }
  case Z3_OP_BAND: {
    unsigned t = 0;
    for (unsigned i = 0; i < e.num_args(); ++i)
      t = std::max(t, tz(i));
    return t;
  }
  case Z3_OP_ITE:
    return std::min(knownTrailingZeros(e.arg(1)), knownTrailingZeros(e.arg(2)));
  case Z3_OP_BSHL: {
    uint64_t k = 0;
    if (e.arg(1).is_numeral_u64(k))
      return static_cast<unsigned>(std::min<uint64_t>(tz(0) + k, w));
    return tz(0);
  }
  case Z3_OP_CONCAT: {
    unsigned t = 0;
    for (unsigned i = e.num_args(); i-- > 0;) {
      unsigned part = e.arg(i).get_sort().bv_size(), z = tz(i);
      t += z;
      if (z < part)
        break;
    }
    return std::min(t, w);
  }
  case Z3_OP_SIGN_EXT:
  case Z3_OP_ZERO_EXT:
    return tz(0);
  case Z3_OP_EXTRACT: {
    unsigned lo = e.lo(), t = tz(0);
    return t > lo ? std::min(t - lo, w) : 0;
  }
  default:
    return 0;
  }
}

// `compare(leaf)` at every leaf of an if-then-else tree whose leaves are numbers, or
// nullopt past `budget` nodes or at another leaf: a comparison of a model's result
// (strcmp's, strchr's) with a constant then reads as the bytes it needs, not as a tree.
std::optional<z3::expr> compareLeaves(const z3::expr &tree,
                                      const std::function<z3::expr(const z3::expr &)> &compare,
                                      unsigned &budget) {
  if (budget == 0)
    return std::nullopt;
  --budget;
  if (tree.is_numeral())
    return compare(tree).simplify();
  if (!tree.is_app() || tree.decl().decl_kind() != Z3_OP_ITE)
    return std::nullopt;
  auto yes = compareLeaves(tree.arg(1), compare, budget);
  auto no = yes ? compareLeaves(tree.arg(2), compare, budget) : std::nullopt;
  if (!no)
    return std::nullopt;
  return z3::ite(tree.arg(0), *yes, *no);
}

// The byte at concrete offset `off` of an array built by stores: the stores at other
// numeral offsets are skipped and those at symbolic ones become if-then-elses, so the
// solver gets bit-vectors, not the theory of arrays (much slower on these queries).
z3::expr byteOfArray(const z3::expr &array, uint64_t off) {
  z3::context &ctx = array.ctx();
  z3::expr at = ctx.bv_val(off, 64);
  std::vector<std::pair<z3::expr, z3::expr>> symbolic; // newest first
  z3::expr a = array;
  std::optional<z3::expr> value;
  for (unsigned steps = 0; !value && steps < 100000; ++steps) {
    if (!a.is_app() || a.decl().decl_kind() != Z3_OP_STORE) {
      if (a.is_app() && a.decl().decl_kind() == Z3_OP_CONST_ARRAY)
        value = a.arg(0);
      break;
    }
    uint64_t k = 0;
    if (a.arg(1).is_numeral_u64(k)) {
      if (k == off)
        value = a.arg(2);
    } else {
      symbolic.emplace_back(a.arg(1), a.arg(2));
    }
    a = a.arg(0);
  }
  z3::expr out = value ? *value : z3::select(a, at);
  for (size_t i = symbolic.size(); i-- > 0;)
    out = z3::ite(symbolic[i].first == at, symbolic[i].second, out);
  return out.simplify();
}

// How far past the bytes a string call read its models may look for a NUL that a
// symbolic position could put later.
constexpr uint64_t kMaxStringAhead = 64;

bool isIntegerDiv(unsigned op) {
  return op == llvm::Instruction::UDiv || op == llvm::Instruction::SDiv ||
         op == llvm::Instruction::URem || op == llvm::Instruction::SRem;
}

} // namespace

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

  Impl(z3::context &c, const llvm::Module &m, SymbolicOptions o)
      : ctx(c), module(m), dl(m.getDataLayout()), options(o) {}

  z3::expr bv(uint64_t v, unsigned bits) { return ctx.bv_val(v, bits); }

  // ---- values ---------------------------------------------------------------------

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
  // Nodes of an instruction's value: one for itself plus its operands' (an operand
  // used twice, as in r * r, counted once).
  uint32_t nodesOver(const Instance &I) const {
    uint64_t n = 1;
    for (size_t k = 0; k < I.operands.size(); ++k) {
      bool again = false;
      for (size_t j = 0; j < k && !again; ++j)
        again = I.operands[j].def != kNoDef && I.operands[j].def == I.operands[k].def;
      if (!again)
        n = addNodes(n, nodesOf(I.operands[k]));
    }
    return static_cast<uint32_t>(n);
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

  // The instance's value is `e` of `n` nodes: kept when the instance is wanted and `e`
  // fits the cap, else the value stays concrete (a capped value is noted by line).
  void set(const Instance &I, const z3::expr &e, uint32_t n) {
    if (!wanted)
      return;
    if (n > options.maxExprNodes)
      return capped(I);
    valueOf[I.index] = push(e, n);
    ++run.expressions;
  }

  void capped(const Instance &I) {
    ++run.concretizations;
    auto [it, fresh] = cappedAt.try_emplace(I.inst, run.capped.size());
    if (fresh) {
      SourceLocation loc = ModuleIndex::locationOf(I.inst);
      run.capped.push_back({loc.file, I.inst->getFunction()->getName().str(), loc.line, 0});
    }
    ++run.capped[it->second].count;
  }
  void set(const Instance &I, const z3::expr &e) { set(I, e, nodesOver(I)); }

  bool anySymbolic(const Instance &I) const {
    for (const auto &op : I.operands)
      if (sym(op))
        return true;
    return false;
  }

  // ---- inputs -----------------------------------------------------------------------

  z3::expr variable(InputVar v) {
    auto it = varIndex.find(v.name);
    if (it != varIndex.end())
      return varExpr[it->second];
    varIndex[v.name] = run.inputs.size();
    varExpr.push_back(ctx.bv_const(v.name.c_str(), v.bits));
    if (!v.display.empty())
      v.display = names.fresh(v.display);
    run.inputs.push_back(v);
    return varExpr.back();
  }

  // Memory byte `addr` becomes input variable (or byte expression) `e`.
  void setByte(uint64_t addr, const z3::expr &e) {
    unsigned i = push(e, 1);
    symByte[addr] = {i, i, 0, 1};
    knownByte.erase(addr);
  }

  // A byte of the input source of the current input event: stdin, or a file. Shown as
  // the buffer element it was read into (`line[4]`), else by its place (`stdin[17]`).
  z3::expr stdinByte(uint64_t offset, uint64_t dest = 0) {
    if (currentArg) // sscanf(argv[1], "%s", ...): the argument's own byte
      return variable(argvByte(currentArg, offset, 0));
    InputVar v;
    v.kind = InputVar::Kind::StdinByte;
    v.file = currentFile;
    v.name = (currentFile.empty() ? "stdin" : "file:" + currentFile) + "@" + std::to_string(offset);
    v.offset = offset;
    v.display = dest ? names.nameAt(dest) : "";
    if (v.display.empty())
      v.display =
          (currentFile.empty() ? "stdin" : currentFile) + "[" + std::to_string(offset) + "]";
    return variable(v);
  }

  // Input sources: file names by source number (OPEN events), and the source the next
  // input event reads (SOURCE; "" for stdin).
  std::map<uint64_t, std::string> sourceFiles;
  std::string currentFile;
  unsigned currentArg = 0; // a token parsed from argv[currentArg] (atoi, sscanf)

  // ---- memory -----------------------------------------------------------------------

  // The bytes of a constant at `addr`, where they are plain data (pointers and other
  // relocated values stay unknown).
  void knownConstant(const llvm::Constant *c, uint64_t addr) {
    if (auto *data = llvm::dyn_cast<llvm::ConstantDataSequential>(c)) {
      llvm::StringRef raw = data->getRawDataValues();
      for (size_t i = 0; i < raw.size(); ++i)
        knownByte[addr + i] = static_cast<uint8_t>(raw[i]);
    } else if (llvm::isa<llvm::ConstantAggregateZero>(c) || llvm::isa<llvm::UndefValue>(c) ||
               llvm::isa<llvm::ConstantPointerNull>(c)) {
      uint64_t n = dl.getTypeAllocSize(c->getType());
      for (uint64_t i = 0; i < n; ++i)
        knownByte[addr + i] = 0;
    } else if (auto *ci = llvm::dyn_cast<llvm::ConstantInt>(c); ci && ci->getBitWidth() <= 64) {
      writeConcrete(addr, dl.getTypeStoreSize(ci->getType()), {ci->getZExtValue(), 0});
    } else if (auto *cf = llvm::dyn_cast<llvm::ConstantFP>(c);
               cf && dl.getTypeStoreSize(cf->getType()) <= 8) {
      writeConcrete(addr, dl.getTypeStoreSize(cf->getType()),
                    {cf->getValueAPF().bitcastToAPInt().getZExtValue(), 0});
    } else if (auto *st = llvm::dyn_cast<llvm::ConstantStruct>(c)) {
      const llvm::StructLayout *layout = dl.getStructLayout(st->getType());
      for (unsigned i = 0; i < st->getNumOperands(); ++i)
        knownConstant(st->getOperand(i), addr + layout->getElementOffset(i));
    } else if (auto *arr = llvm::dyn_cast<llvm::ConstantArray>(c)) {
      uint64_t stride = dl.getTypeAllocSize(arr->getType()->getElementType());
      for (unsigned i = 0; i < arr->getNumOperands(); ++i)
        knownConstant(arr->getOperand(i), addr + i * stride);
    }
  }

  Object *objectAt(uint64_t addr, uint64_t *base) {
    auto it = objects.upper_bound(addr);
    if (it == objects.begin())
      return nullptr;
    --it;
    if (addr >= it->first + std::max<uint64_t>(it->second.size, 1))
      return nullptr;
    *base = it->first;
    return &it->second;
  }

  void addObject(uint64_t base, uint64_t size) {
    // Storage reused by a new object (a new frame, a new heap block) replaces older ones.
    auto it = objects.lower_bound(base);
    while (it != objects.end() && it->first < base + size)
      it = objects.erase(it);
    objects[base] = Object{size, std::nullopt};
  }

  void writeConcrete(uint64_t addr, uint64_t n, Val v) {
    for (uint64_t i = 0; i < n && i < 16; ++i) {
      uint64_t word = i < 8 ? v.lo : v.hi;
      knownByte[addr + i] = static_cast<uint8_t>(word >> (8 * (i % 8)));
      symByte.erase(addr + i);
    }
  }

  void forget(uint64_t addr, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) {
      knownByte.erase(addr + i);
      symByte.erase(addr + i);
    }
  }

  // The expression of a symbolic byte, built on first use.
  unsigned byteExpr(SymByte &b) {
    if (b.expr == kLazy) {
      const z3::expr &whole = exprs[b.whole];
      z3::expr e = b.width == 1 ? whole : whole.extract(8u * b.pos + 7, 8u * b.pos);
      b.expr = push(simplified(e, nodes[b.whole]), addNodes(nodes[b.whole], 1));
    }
    return b.expr;
  }

  z3::expr byteAt(uint64_t addr) {
    auto s = symByte.find(addr);
    if (s != symByte.end())
      return exprs[byteExpr(s->second)];
    auto k = knownByte.find(addr);
    return bv(k == knownByte.end() ? 0u : static_cast<unsigned>(k->second), 8);
  }

  uint32_t byteNodes(uint64_t addr) const {
    auto s = symByte.find(addr);
    return s == symByte.end() ? 1 : addNodes(nodes[s->second.whole], 1);
  }

  // The `n` bytes at `addr` as one value (little-endian): the stored value itself when
  // they are exactly the bytes of one symbolic store, else their concatenation.
  std::pair<z3::expr, uint32_t> readBytes(uint64_t addr, uint64_t n) {
    auto first = symByte.find(addr);
    if (first != symByte.end() && first->second.pos == 0 && first->second.width == n) {
      uint32_t whole = first->second.whole;
      bool same = true;
      for (uint64_t i = 1; i < n && same; ++i) {
        auto b = symByte.find(addr + i);
        same = b != symByte.end() && b->second.whole == whole && b->second.pos == i;
      }
      if (same)
        return {exprs[whole], nodes[whole]};
    }
    z3::expr v = byteAt(addr);
    uint64_t total = byteNodes(addr);
    for (uint64_t i = 1; i < n; ++i) {
      v = z3::concat(byteAt(addr + i), v);
      total = addNodes(total, byteNodes(addr + i) + 1);
    }
    return {simplified(v, total), static_cast<uint32_t>(total)};
  }

  void writeSymbolic(uint64_t addr, const z3::expr &value, uint32_t valueNodes, uint64_t n) {
    unsigned whole = push(value, valueNodes);
    for (uint64_t i = 0; i < n; ++i) {
      symByte[addr + i] = {kLazy, whole, static_cast<uint8_t>(i), static_cast<uint8_t>(n)};
      knownByte.erase(addr + i);
    }
  }

  void copyBytes(uint64_t dst, uint64_t src, uint64_t n) {
    // From an array-valued object (a store at a symbolic index made it one), the copy
    // gets each byte as the array holds it: a string whose NUL sits at a symbolic
    // position keeps that position in the copy.
    uint64_t base = 0;
    if (Object *obj = objectAt(src, &base); obj && obj->array && src + n <= base + obj->size &&
                                            obj->arrayNodes < options.maxExprNodes) {
      std::vector<z3::expr> bytes;
      for (uint64_t i = 0; i < n; ++i)
        bytes.push_back(byteOfArray(*obj->array, src + i - base));
      uint32_t nodes = addNodes(obj->arrayNodes, 1);
      for (uint64_t i = 0; i < n; ++i) {
        if (bytes[i].is_numeral()) {
          writeConcrete(dst + i, 1, {bytes[i].get_numeral_uint64(), 0});
        } else {
          unsigned k = push(bytes[i], nodes);
          symByte[dst + i] = {k, k, 0, 1};
          knownByte.erase(dst + i);
        }
      }
      return;
    }
    std::vector<std::pair<std::optional<SymByte>, std::optional<uint8_t>>> tmp(n);
    for (uint64_t i = 0; i < n; ++i) {
      if (auto s = symByte.find(src + i); s != symByte.end())
        tmp[i].first = s->second;
      if (auto k = knownByte.find(src + i); k != knownByte.end())
        tmp[i].second = k->second;
    }
    for (uint64_t i = 0; i < n; ++i) {
      symByte.erase(dst + i);
      knownByte.erase(dst + i);
      if (tmp[i].first)
        symByte[dst + i] = *tmp[i].first;
      if (tmp[i].second)
        knownByte[dst + i] = *tmp[i].second;
    }
  }

  // Nodes of the object's bytes as an array (what arrayOf would build).
  uint32_t arrayNodes(const Object &obj, uint64_t base) const {
    if (obj.array)
      return obj.arrayNodes;
    uint64_t n = 1;
    for (uint64_t i = 0; i < obj.size && n <= options.maxExprNodes; ++i)
      n = addNodes(n, byteNodes(base + i) + 1);
    return static_cast<uint32_t>(n);
  }

  // The object's bytes as a Z3 array from offsets (bv64) to bytes.
  z3::expr arrayOf(Object &obj, uint64_t base) {
    if (obj.array)
      return *obj.array;
    z3::sort idx = ctx.bv_sort(64);
    z3::expr arr = z3::const_array(idx, bv(0, 8));
    for (uint64_t i = 0; i < obj.size; ++i)
      arr = z3::store(arr, bv(i, 64), byteAt(base + i));
    return arr;
  }

  // A symbolic read of an element of an object whose bytes are all concrete, at an
  // offset that is always a multiple of the element size: an `ite` over the elements
  // that differ from the most common value, which reads like the table it is.
  std::optional<std::pair<z3::expr, uint32_t>>
  readConstantTable(const Object &obj, uint64_t base, const z3::expr &offset, uint64_t n) {
    if (obj.array || n == 0 || n > 8 || obj.size % n != 0 || obj.size / n > 1024)
      return std::nullopt;
    std::vector<uint64_t> values;
    for (uint64_t k = 0; k < obj.size; k += n) {
      uint64_t v = 0;
      for (uint64_t i = 0; i < n; ++i) {
        if (symByte.count(base + k + i))
          return std::nullopt;
        auto it = knownByte.find(base + k + i);
        if (it == knownByte.end())
          return std::nullopt;
        v |= static_cast<uint64_t>(it->second) << (8 * i);
      }
      values.push_back(v);
    }
    // Aligned by construction (an index times the element size), proved without a
    // solver; any other offset reads through the array model instead.
    if ((1ull << std::min(knownTrailingZeros(offset), 63u)) % n != 0)
      return std::nullopt;
    std::map<uint64_t, unsigned> counts;
    for (uint64_t v : values)
      ++counts[v];
    uint64_t common = values.front();
    for (auto [v, c] : counts)
      if (c > counts[common])
        common = v;
    unsigned bits = static_cast<unsigned>(8 * n);
    z3::expr out = bv(common, bits);
    uint32_t count = 1;
    for (uint64_t k = values.size(); k-- > 0;)
      if (values[k] != common) {
        out = z3::ite(offset == bv(k * n, 64), bv(values[k], bits), out);
        count += 4;
      }
    return std::make_pair(out, count);
  }

  z3::expr readArray(const z3::expr &arr, const z3::expr &offset, uint64_t n) {
    z3::expr out = z3::select(arr, offset);
    for (uint64_t i = 1; i < n; ++i)
      out = z3::concat(z3::select(arr, offset + bv(i, 64)), out);
    return out;
  }

  // ---- bug checks ---------------------------------------------------------------------

  void check(const char *kind, const Instance &I, const z3::expr &cond) {
    if (!wanted || !options.bugChecks)
      return;
    z3::expr c = simplified(cond, nodesOver(I));
    if (c.is_false())
      return;
    run.checks.push_back({kind, I.index, I.inst, c, run.path.size()});
  }

  // The object a pointer operand was derived from (by address arithmetic on a pointer
  // into it), else the object its concrete address lies in.
  Object *pointeeObject(const Operand &ptr, uint64_t *base) {
    if (ptr.def != kNoDef) {
      auto it = provenance.find(ptr.def);
      if (it != provenance.end()) {
        auto obj = objects.find(it->second);
        if (obj != objects.end()) {
          *base = it->second;
          return &obj->second;
        }
      }
    }
    return objectAt(ptr.value.lo, base);
  }

  void checkAddress(const Instance &I, const z3::expr &ptr, uint64_t n) {
    if (!options.bugChecks)
      return;
    uint64_t base = 0;
    Object *obj =
        pointeeObject(I.operands[I.inst->getOpcode() == llvm::Instruction::Store ? 1 : 0], &base);
    check("null-deref", I, ptr == bv(static_cast<uint64_t>(0), 64));
    if (obj)
      check("out-of-bounds", I,
            z3::ult(ptr, bv(base, 64)) || z3::ugt(ptr + bv(n, 64), bv(base + obj->size, 64)));
  }

  // The concrete bounds check: an access through a pointer derived from an object
  // must stay inside it.
  void checkConcreteAccess(const Instance &I, const Operand &ptr, uint64_t n) {
    if (ptr.def == kNoDef)
      return;
    auto it = provenance.find(ptr.def);
    if (it == provenance.end())
      return;
    auto obj = objects.find(it->second);
    if (obj == objects.end())
      return;
    uint64_t base = it->second, size = obj->second.size;
    if (I.addr >= base && I.addr + n <= base + size)
      return;
    int64_t rel = static_cast<int64_t>(I.addr - base);
    run.violations.push_back({"out-of-bounds", I.index, I.inst,
                              "accesses " + std::to_string(n) + " bytes at offset " +
                                  std::to_string(rel) + " of a " + std::to_string(size) +
                                  "-byte object"});
  }

  void notePointerOrigin(const Instance &I) {
    const Operand &basePtr = I.operands[0];
    uint64_t base = 0;
    if (basePtr.def != kNoDef) {
      auto it = provenance.find(basePtr.def);
      if (it != provenance.end()) {
        provenance[I.index] = it->second;
        return;
      }
    }
    if (objectAt(basePtr.value.lo, &base))
      provenance[I.index] = base;
  }

  // ---- instructions -----------------------------------------------------------------

  void onInstance(const Instance &I) {
    const llvm::Instruction *inst = I.inst;
    wanted = !options.only || (I.index < options.only->size() && (*options.only)[I.index]);
    switch (inst->getOpcode()) {
    case llvm::Instruction::Alloca:
      names.onAlloca(llvm::cast<llvm::AllocaInst>(inst), I.addr, I.size);
      addObject(I.addr, I.size);
      forget(I.addr, I.size);
      return;
    case llvm::Instruction::Load:
      return load(I, llvm::cast<llvm::LoadInst>(inst));
    case llvm::Instruction::Store:
      if (options.watch &&
          std::binary_search(options.watch->begin(), options.watch->end(), I.index))
        if (const z3::expr *e = sym(I.operands[0]))
          run.watched.emplace(I.index, *e);
      return store(I, llvm::cast<llvm::StoreInst>(inst));
    case llvm::Instruction::Br:
      if (llvm::cast<llvm::BranchInst>(inst)->isConditional())
        if (const z3::expr *c = sym(I.operands[0]))
          constrain(I, I.successor == 0 ? *c == bv(1, 1) : *c == bv(0, 1),
                    addNodes(nodesOf(I.operands[0]), 2));
      return;
    case llvm::Instruction::Switch:
      return switchInst(I, llvm::cast<llvm::SwitchInst>(inst));
    case llvm::Instruction::Ret:
      if (!I.operands.empty())
        if (const z3::expr *e = sym(I.operands[0]))
          set(I, *e, nodesOf(I.operands[0]));
      return;
    case llvm::Instruction::PHI:
    case llvm::Instruction::Freeze:
      if (const z3::expr *e = sym(I.operands[0]))
        set(I, *e, nodesOf(I.operands[0]));
      return;
    case llvm::Instruction::Call:
      return call(I, llvm::cast<llvm::CallInst>(inst));
    case llvm::Instruction::AtomicRMW:
    case llvm::Instruction::AtomicCmpXchg:
      forget(I.addr, I.size); // what it wrote is concrete (atomics are not modelled)
      concretize();
      return;
    case llvm::Instruction::GetElementPtr:
      notePointerOrigin(I);
      noteCtypeIndex(I, llvm::cast<llvm::GetElementPtrInst>(inst));
      break;
    case llvm::Instruction::BitCast:
      if (inst->getType()->isPointerTy())
        notePointerOrigin(I);
      break;
    default:
      break;
    }
    if (!wanted || !anySymbolic(I))
      return;
    if (!tables.empty() && foldTable(I))
      return;
    unsigned bits = bitsOf(inst->getType());
    if (auto *cmp = llvm::dyn_cast<llvm::ICmpInst>(inst)) {
      unsigned w = bitsOf(cmp->getOperand(0)->getType());
      if (!w)
        return concretize();
      z3::expr a = val(I.operands[0], w), b = val(I.operands[1], w);
      unsigned budget = 64;
      std::optional<z3::expr> pushed;
      if (b.is_numeral() && !a.is_numeral())
        pushed = compareLeaves(
            a, [&](const z3::expr &leaf) { return compare(cmp->getPredicate(), leaf, b); }, budget);
      else if (a.is_numeral() && !b.is_numeral())
        pushed = compareLeaves(
            b, [&](const z3::expr &leaf) { return compare(cmp->getPredicate(), a, leaf); }, budget);
      z3::expr holds = pushed ? pushed->simplify() : compare(cmp->getPredicate(), a, b);
      set(I, z3::ite(holds, bv(1, 1), bv(0, 1)));
    } else if (auto *fcmp = llvm::dyn_cast<llvm::FCmpInst>(inst)) {
      unsigned w = bitsOf(fcmp->getOperand(0)->getType());
      if (!w)
        return concretize();
      z3::expr holds =
          floatCompare(fcmp->getPredicate(), val(I.operands[0], w), val(I.operands[1], w));
      set(I, z3::ite(holds, bv(1, 1), bv(0, 1)), floatNodes(I, w));
    } else if (inst->getOpcode() == llvm::Instruction::FNeg) {
      if (!bits)
        return concretize();
      set(I, floatNegate(val(I.operands[0], bits)));
    } else if (inst->getOpcode() == llvm::Instruction::Select) {
      if (!bits)
        return concretize();
      z3::expr c = val(I.operands[0], 1);
      set(I, z3::ite(c == bv(1, 1), val(I.operands[1], bits), val(I.operands[2], bits)));
    } else if (inst->isBinaryOp()) {
      if (!bits)
        return concretize();
      binary(I, inst->getOpcode(), bits);
    } else if (inst->isCast()) {
      castInst(I, inst, bits);
    } else if (auto *gep = llvm::dyn_cast<llvm::GetElementPtrInst>(inst)) {
      set(I, gepExpr(I, gep));
    } else {
      concretize(); // aggregates, vectors: the value stays concrete
    }
  }

  // A floating-point operation bit-blasts to a circuit of about width² gates, like a
  // product of two inputs: it counts as `bits` nodes (see binaryNodes).
  uint32_t floatNodes(const Instance &I, unsigned bits) const {
    return addNodes(nodesOver(I), bits);
  }

  void concretize() { ++run.concretizations; }

  z3::expr compare(llvm::CmpInst::Predicate p, const z3::expr &a, const z3::expr &b) {
    switch (p) {
    case llvm::CmpInst::ICMP_EQ:
      return a == b;
    case llvm::CmpInst::ICMP_NE:
      return a != b;
    case llvm::CmpInst::ICMP_UGT:
      return z3::ugt(a, b);
    case llvm::CmpInst::ICMP_UGE:
      return z3::uge(a, b);
    case llvm::CmpInst::ICMP_ULT:
      return z3::ult(a, b);
    case llvm::CmpInst::ICMP_ULE:
      return z3::ule(a, b);
    case llvm::CmpInst::ICMP_SGT:
      return a > b;
    case llvm::CmpInst::ICMP_SGE:
      return a >= b;
    case llvm::CmpInst::ICMP_SLT:
      return a < b;
    case llvm::CmpInst::ICMP_SLE:
      return a <= b;
    default:
      throw Error("unsupported comparison in symbolic replay", ExitInternal);
    }
  }

  // Products of two inputs and divisions by anything input-dependent cost the solver
  // a circuit of about width² gates each: they count as `bits` nodes, so the caps
  // bound what bit-blasting will cost, not only the formula's length.
  uint32_t binaryNodes(const Instance &I, unsigned op, unsigned bits) const {
    bool nonlinear = (op == llvm::Instruction::Mul && sym(I.operands[0]) && sym(I.operands[1])) ||
                     (isIntegerDiv(op) && (sym(I.operands[0]) || sym(I.operands[1])));
    return addNodes(nodesOver(I), nonlinear ? bits : 0);
  }

  void binary(const Instance &I, unsigned op, unsigned bits) {
    z3::expr a = val(I.operands[0], bits), b = val(I.operands[1], bits);
    if (I.inst->getType()->isFloatingPointTy()) {
      if (auto r = floatArithmetic(op, a, b))
        return Impl::set(I, *r, floatNodes(I, bits));
      return concretize(); // frem: C's fmod
    }
    auto set = [&](const Instance &inst, const z3::expr &e) {
      Impl::set(inst, e, binaryNodes(inst, op, bits));
    };
    if (isIntegerDiv(op) && options.bugChecks) {
      if (sym(I.operands[1]))
        check("div-by-zero", I, b == bv(0, bits));
      if (op == llvm::Instruction::SDiv || op == llvm::Instruction::SRem) {
        uint64_t minValue = bits == 64 ? (1ull << 63) : (1ull << (bits - 1));
        check("int-overflow-div", I,
              a == bv(minValue, bits) && b == bv(~0ull >> (64 - bits), bits));
      }
    }
    auto shiftCount = [&] {
      // x86 masks the count; a masked count >= width is handled like replay does.
      return b & bv(bits > 32 ? 63 : 31, bits);
    };
    switch (op) {
    case llvm::Instruction::Add:
      return set(I, a + b);
    case llvm::Instruction::Sub:
      return set(I, a - b);
    case llvm::Instruction::Mul:
      return set(I, a * b);
    case llvm::Instruction::UDiv:
      return set(I, z3::udiv(a, b));
    case llvm::Instruction::SDiv:
      return set(I, a / b);
    case llvm::Instruction::URem:
      return set(I, z3::urem(a, b));
    case llvm::Instruction::SRem:
      return set(I, z3::srem(a, b));
    case llvm::Instruction::Shl:
      return set(I, z3::shl(a, shiftCount()));
    case llvm::Instruction::LShr:
      return set(I, z3::lshr(a, shiftCount()));
    case llvm::Instruction::AShr:
      return set(I, z3::ashr(a, shiftCount()));
    case llvm::Instruction::And:
      return set(I, a & b);
    case llvm::Instruction::Or:
      return set(I, a | b);
    case llvm::Instruction::Xor:
      return set(I, a ^ b);
    default:
      return concretize();
    }
  }

  void castInst(const Instance &I, const llvm::Instruction *inst, unsigned bits) {
    unsigned from = bitsOf(inst->getOperand(0)->getType());
    if (!bits || !from)
      return concretize();
    z3::expr e = val(I.operands[0], from);
    if (llvm::isa<llvm::FPToSIInst, llvm::FPToUIInst, llvm::SIToFPInst, llvm::UIToFPInst,
                  llvm::FPExtInst, llvm::FPTruncInst>(inst)) {
      if (auto r = floatCast(inst->getOpcode(), e, inst->getOperand(0)->getType(), inst->getType()))
        return set(I, *r, floatNodes(I, std::max(bits, from)));
      return concretize();
    }
    switch (inst->getOpcode()) {
    case llvm::Instruction::Trunc:
      return set(I, e.extract(bits - 1, 0));
    case llvm::Instruction::ZExt:
      return set(I, z3::zext(e, bits - from));
    case llvm::Instruction::SExt:
      return set(I, z3::sext(e, bits - from));
    case llvm::Instruction::PtrToInt:
    case llvm::Instruction::IntToPtr:
    case llvm::Instruction::BitCast:
    case llvm::Instruction::AddrSpaceCast:
      return set(I, fit(e, bits));
    default:
      return concretize();
    }
  }

  // ctype's macros index a table: `(*__ctype_b_loc())[c]`.
  void noteCtypeIndex(const Instance &I, const llvm::GetElementPtrInst *gep) {
    if (ctypeTables.empty() || gep->getNumIndices() != 1 || I.operands.size() != 2 ||
        !sym(I.operands[1]))
      return;
    auto t = ctypeTables.find(I.operands[0].value.lo);
    if (t == ctypeTables.end())
      return;
    unsigned w = bitsOf(gep->getOperand(1)->getType());
    if (!w)
      return;
    z3::expr index = w < 64 ? z3::sext(val(I.operands[1], w), 64 - w) : val(I.operands[1], 64);
    ctypeIndexes.insert_or_assign(I.index, std::make_pair(t->second, index));
    if (ctypeIndexes.size() > 16)
      ctypeIndexes.erase(ctypeIndexes.begin());
  }

  z3::expr gepExpr(const Instance &I, const llvm::GetElementPtrInst *gep) {
    z3::expr addr = val(I.operands[0], 64);
    unsigned opIndex = 1;
    for (auto gti = llvm::gep_type_begin(gep), e = llvm::gep_type_end(gep); gti != e;
         ++gti, ++opIndex) {
      const Operand &op = I.operands[opIndex];
      unsigned w = bitsOf(gti.getOperand()->getType());
      if (llvm::StructType *st = gti.getStructTypeOrNull()) {
        addr = addr +
               bv(dl.getStructLayout(st)->getElementOffset(static_cast<unsigned>(op.value.lo)), 64);
      } else {
        z3::expr idx = w < 64 ? z3::sext(val(op, w), 64 - w) : val(op, 64);
        addr = addr + idx * bv(gti.getSequentialElementStride(dl).getFixedValue(), 64);
      }
    }
    return simplified(addr, nodesOver(I));
  }

  void constrain(const Instance &I, const z3::expr &taken, uint32_t nodeCount) {
    uint32_t occurrence = occurrences[I.inst]++;
    if (!wanted)
      return;
    z3::expr t = simplified(taken, nodeCount);
    if (t.is_true())
      return; // the input cannot change this branch
    run.path.push_back({I.index, I.inst, occurrence, I.successor, t, nodeCount});
    run.pathNodes += nodeCount;
    if (options.maxPathNodes && run.pathNodes > options.maxPathNodes)
      run.saturated = true;
  }

  void switchInst(const Instance &I, const llvm::SwitchInst *sw) {
    const z3::expr *c = sym(I.operands[0]);
    if (!c)
      return;
    uint32_t nodeCount = addNodes(nodesOf(I.operands[0]), 3 * sw->getNumCases() + 1);
    unsigned w = c->get_sort().bv_size();
    if (I.successor == 0) { // default: no case matched
      z3::expr none = ctx.bool_val(true);
      for (auto &cs : sw->cases())
        none = none && *c != bv(cs.getCaseValue()->getZExtValue(), w);
      constrain(I, none, nodeCount);
    } else {
      z3::expr any = ctx.bool_val(false);
      for (auto &cs : sw->cases())
        if (cs.getSuccessorIndex() == I.successor)
          any = any || *c == bv(cs.getCaseValue()->getZExtValue(), w);
      constrain(I, any, nodeCount);
    }
  }

  void load(const Instance &I, const llvm::LoadInst *ld) {
    unsigned bits = bitsOf(ld->getType());
    uint64_t n = I.size;
    if (!bits) { // FP or aggregate: remember the concrete bytes; any symbolic bytes are concretised
      checkConcreteAccess(I, I.operands[0], n);
      if (anySymbolicByte(I.addr, n)) {
        if (wanted)
          concretize();
        return; // the bytes stay symbolic for loads that want them
      }
      writeConcrete(I.addr, n, I.result);
      return;
    }
    if (auto loc = ctypeLocations.find(I.addr); loc != ctypeLocations.end() && n == 8)
      ctypeTables[I.result.lo] = loc->second;
    if (auto ix = ctypeIndexes.find(I.operands[0].def); wanted && ix != ctypeIndexes.end()) {
      unsigned entry = ix->second.first == CtypeTable::Class ? 16 : 32;
      if (bits == entry) {
        setTable(
            I, {ix->second.second, ctypeTableRuns(ix->second.first), bits, nodesOf(I.operands[0])});
        return;
      }
    }
    std::optional<z3::expr> ptr = wanted ? symCopy(I.operands[0]) : std::nullopt;
    uint64_t base = 0;
    checkConcreteAccess(I, I.operands[0], n);
    Object *obj = ptr ? pointeeObject(I.operands[0], &base) : objectAt(I.addr, &base);
    if (ptr) {
      checkAddress(I, *ptr, n);
      if (!obj || obj->size > kMaxArrayObject)
        return concretize();
      z3::expr offset = simplified(*ptr - bv(base, 64), nodesOf(I.operands[0]));
      uint32_t offsetNodes = nodesOf(I.operands[0]);
      if (auto table = readConstantTable(*obj, base, offset, n))
        return set(I, table->first, addNodes(table->second, offsetNodes));
      uint32_t arr = arrayNodes(*obj, base);
      if (addNodes(arr, offsetNodes) > options.maxExprNodes)
        return capped(I);
      set(I, simplified(readArray(arrayOf(*obj, base), offset, n), addNodes(arr, offsetNodes)),
          addNodes(addNodes(arr, offsetNodes), 2 * n));
      return;
    }
    if (obj && obj->array) {
      if (wanted)
        set(I, simplified(readArray(*obj->array, bv(I.addr - base, 64), n), obj->arrayNodes),
            addNodes(obj->arrayNodes, 2 * n));
      return;
    }
    if (!anySymbolicByte(I.addr, n)) {
      writeConcrete(I.addr, n, I.result); // what the load saw is now known
      return;
    }
    if (!wanted)
      return;
    auto [v, nodeCount] = readBytes(I.addr, n);
    set(I, v, nodeCount);
  }

  void store(const Instance &I, const llvm::StoreInst *st) {
    unsigned bits = bitsOf(st->getValueOperand()->getType());
    uint64_t n = I.size;
    // An instance outside the wanted set stores its concrete value: no wanted load
    // reads it (a wanted load's writers are wanted too).
    // Copies, not pointers into `exprs`: building the array below may grow it.
    std::optional<z3::expr> value = wanted ? symCopy(I.operands[0]) : std::nullopt;
    std::optional<z3::expr> ptr = wanted ? symCopy(I.operands[1]) : std::nullopt;
    uint64_t base = 0;
    checkConcreteAccess(I, I.operands[1], n);
    Object *obj = ptr ? pointeeObject(I.operands[1], &base) : objectAt(I.addr, &base);
    if (ptr)
      checkAddress(I, *ptr, n);
    auto storeInto = [&](Object &o, const z3::expr &off, uint32_t offNodes) {
      z3::expr v =
          value && bits
              ? val(I.operands[0], bits)
              : bv(I.operands[0].value.lo,
                   static_cast<unsigned>(8 * std::min<uint64_t>(std::max<uint64_t>(n, 1), 8)));
      z3::expr arr = *o.array;
      for (uint64_t i = 0; i < n && i < 8; ++i)
        arr = z3::store(arr, off + bv(i, 64),
                        v.extract(static_cast<unsigned>(8 * i + 7), static_cast<unsigned>(8 * i)));
      o.array = arr;
      o.arrayNodes = addNodes(addNodes(o.arrayNodes, nodesOf(I.operands[0])), offNodes + 2 * n);
    };
    if (ptr && obj && obj->size <= kMaxArrayObject) {
      uint32_t arr = arrayNodes(*obj, base), offNodes = nodesOf(I.operands[1]);
      if (addNodes(arr, addNodes(offNodes, nodesOf(I.operands[0]))) > options.maxExprNodes) {
        capped(I); // the address is taken as concrete
      } else {
        if (!obj->array) {
          obj->array = arrayOf(*obj, base);
          obj->arrayNodes = arr;
        }
        storeInto(*obj, *ptr - bv(base, 64), offNodes);
        return;
      }
    } else if (ptr) {
      concretize();
    }
    if (obj && obj->array)
      storeInto(*obj, bv(I.addr - base, 64), 1);
    if (value && bits)
      writeSymbolic(I.addr, fit(*value, static_cast<unsigned>(8 * n)), nodesOf(I.operands[0]), n);
    else
      writeConcrete(I.addr, n, I.operands[0].value);
  }

  // ---- calls --------------------------------------------------------------------------

  void call(const Instance &I, const llvm::CallInst *c) {
    if (I.external)
      return external(I, c);
    const llvm::Function *callee = c->getCalledFunction();
    if (!callee || !callee->isIntrinsic())
      return; // parameters flow through operand defs
    switch (callee->getIntrinsicID()) {
    case llvm::Intrinsic::memcpy:
    case llvm::Intrinsic::memmove:
      copyBytes(I.operands[0].value.lo, I.operands[1].value.lo, I.operands[2].value.lo);
      return;
    case llvm::Intrinsic::memset:
      if (sym(I.operands[1]))
        concretize();
      for (uint64_t i = 0; i < I.operands[2].value.lo; ++i)
        writeConcrete(I.operands[0].value.lo + i, 1, {I.operands[1].value.lo & 0xff, 0});
      return;
    case llvm::Intrinsic::expect:
      if (const z3::expr *e = sym(I.operands[0]))
        set(I, *e, nodesOf(I.operands[0]));
      return;
    case llvm::Intrinsic::abs:
    case llvm::Intrinsic::smax:
    case llvm::Intrinsic::smin:
    case llvm::Intrinsic::umax:
    case llvm::Intrinsic::umin: {
      if (!anySymbolic(I))
        return;
      unsigned bits = bitsOf(c->getType());
      z3::expr a = val(I.operands[0], bits);
      switch (callee->getIntrinsicID()) {
      case llvm::Intrinsic::abs:
        set(I, z3::ite(a < 0, -a, a));
        break;
      case llvm::Intrinsic::smax: {
        z3::expr b = val(I.operands[1], bits);
        set(I, z3::ite(a >= b, a, b));
        break;
      }
      case llvm::Intrinsic::smin: {
        z3::expr b = val(I.operands[1], bits);
        set(I, z3::ite(a <= b, a, b));
        break;
      }
      case llvm::Intrinsic::umax: {
        z3::expr b = val(I.operands[1], bits);
        set(I, z3::ite(z3::uge(a, b), a, b));
        break;
      }
      default: {
        z3::expr b = val(I.operands[1], bits);
        set(I, z3::ite(z3::ule(a, b), a, b));
        break;
      }
      }
      return;
    }
    default:
      if (anySymbolic(I) && !modelFloatFunction(I, c, callee->getName().str()))
        concretize();
      return;
    }
  }

  // fabs, floor, sqrt, fmin, ... (float_ops.h): as intrinsics and as libm calls.
  bool modelFloatFunction(const Instance &I, const llvm::CallInst *c, const std::string &name) {
    unsigned bits = bitsOf(c->getType());
    if (!wanted || !isSymbolicFloat(c->getType()) || !anySymbolic(I))
      return false;
    std::vector<z3::expr> args;
    for (unsigned k = 0; k < c->arg_size() && k < I.operands.size(); ++k) {
      if (bitsOf(c->getArgOperand(k)->getType()) != bits)
        return false;
      args.push_back(val(I.operands[k], bits));
    }
    auto r = floatFunction(name, args, bits);
    if (!r)
      return false;
    set(I, *r, floatNodes(I, bits));
    return true;
  }

  std::string calleeName(const llvm::CallInst *c) {
    const llvm::Function *f = c->getCalledFunction();
    return f ? f->getName().str() : "";
  }

  void external(const Instance &I, const llvm::CallInst *c) {
    std::string name = calleeName(c);
    bool lineInput = name == "fgets" || name == "fgets_unlocked" || name == "getline";
    // Symbolic bytes the call read and then memory it rewrote opaquely (qsort's
    // permutation): what it wrote stays concrete, which the report should say.
    bool readSymbolic = false, wroteOpaque = false;
    for (const Event &e : I.effects)
      readSymbolic |= e.tag == Ev::MEM_READ && anySymbolicByte(e.a, e.b);
    for (const Event &e : I.effects) {
      bool input = e.tag == Ev::TOKEN || e.tag == Ev::INPUT || e.tag == Ev::INPUT_CHAR;
      switch (e.tag) {
      case Ev::SOURCE: {
        auto f = sourceFiles.find(e.a);
        currentFile = f == sourceFiles.end() ? "#" + std::to_string(e.a) : f->second;
        break;
      }
      case Ev::OPEN:
        if (e.a)
          sourceFiles[e.a] = std::string(e.bytes);
        break;
      case Ev::TOKEN:
        token(e);
        break;
      case Ev::MEM_TOKEN:
        memToken(e, I, name);
        break;
      case Ev::INPUT:
        for (uint64_t i = 0; i < e.c; ++i) {
          z3::expr b = stdinByte(e.a + i, e.b + i);
          setByte(e.b + i, b);
          // A line of text has no line end before its last byte, and no NUL anywhere
          // (a NUL would end the C string early: no person types one).
          if (lineInput && i + 1 < e.c)
            domain.push_back(b != bv('\n', 8));
          if (lineInput)
            excludeNul(b);
        }
        break;
      case Ev::INPUT_CHAR:
        if (bitsOf(c->getType()) >= 8)
          set(I, z3::zext(stdinByte(e.a), bitsOf(c->getType()) - 8));
        break;
      case Ev::MEM_COPY:
        copyBytes(e.a, e.b, e.c);
        break;
      case Ev::MEM_SET:
        for (uint64_t i = 0; i < e.c; ++i)
          writeConcrete(e.a + i, 1, {e.b, 0});
        break;
      case Ev::MEM_WRITE:
        forget(e.a, e.b);
        wroteOpaque = true;
        break;
      case Ev::HEAP_ALLOC:
        addObject(e.a, e.b);
        break;
      case Ev::OUTPUT:
        output(I, c, e);
        break;
      default:
        break;
      }
      if (input)
        currentFile.clear();
    }
    if (name == "malloc" || name == "calloc" || name == "realloc") {
      size_t sizeArg = name == "realloc" ? 1 : 0;
      if (sizeArg < I.operands.size() && static_cast<int64_t>(I.operands[sizeArg].value.lo) < 0)
        run.violations.push_back(
            {"bad-alloc-size", I.index, I.inst,
             "asks " + name + " for " +
                 std::to_string(static_cast<int64_t>(I.operands[sizeArg].value.lo)) +
                 " bytes (a negative size)"});
    }
    if ((name == "malloc" || name == "calloc" || name == "realloc") && anySymbolic(I)) {
      // A size that is negative as a signed value (e.g. a negative count times
      // sizeof) or that overflows in calloc.
      size_t sizeArg = name == "realloc" ? 1 : 0;
      z3::expr size = val(I.operands[sizeArg], 64);
      z3::expr bad = size < 0;
      if (name == "calloc") {
        z3::expr n = val(I.operands[0], 64), each = val(I.operands[1], 64);
        bad = bad || n < 0 || each < 0 || !z3::bvmul_no_overflow(n, each, false);
      }
      check("bad-alloc-size", I, bad);
    }
    if (readSymbolic && wroteOpaque)
      run.concretizedCalls.insert(name.empty() ? "<indirect call>" : name);
    noteCtypeLocation(I, name); // wanted or not: later table look-ups need it
    bool modelled = wanted && (modelFloatFunction(I, c, name) || modelLibcCall(I, name));
    bool producesOutput = false;
    for (const Event &e : I.effects)
      producesOutput |= e.tag == Ev::OUTPUT;
    // A result computed from symbolic arguments or bytes that no model gave an
    // expression is concrete: name the function. (The copying functions return their
    // destination, which no byte decides; the output functions a count nobody branches
    // on, and a call that crashed midway produced no output event.)
    static const std::set<std::string> returnsDestination = {
        "memcpy",   "memmove",        "memset",         "strcpy",         "strncpy",
        "strcat",   "strncat",        "fgets",          "printf",         "fprintf",
        "puts",     "fputs",          "fwrite",         "write",          "vprintf",
        "vfprintf", "fgets_unlocked", "fputs_unlocked", "fwrite_unlocked"};
    // sscanf's and atoi's parsed numbers are handled per conversion (memToken).
    bool parsed = std::any_of(I.effects.begin(), I.effects.end(),
                              [](const Event &e) { return e.tag == Ev::MEM_TOKEN && e.c != 0; });
    bool fromBytes = readSymbolic && !parsed && !returnsDestination.count(name);
    if ((!producesOutput && !modelled && !c->getType()->isVoidTy() && !valueOf.count(I.index) &&
         (anySymbolic(I) || fromBytes)) ||
        unseenSymbolicRead(I, c, name)) {
      concretize();
      run.concretizedCalls.insert(name.empty() ? "<indirect call>" : name);
    }
  }

  // A libc function rootline does not wrap logs nothing of what it reads or writes: when
  // a pointer argument points at symbolic bytes, what it computes from them (strtok's
  // token, strspn's count) is concrete.
  bool unseenSymbolicRead(const Instance &I, const llvm::CallInst *c, const std::string &name) {
    const llvm::Function *f = c->getCalledFunction();
    if (!f || !f->isDeclaration() || f->isIntrinsic() || isWrappedLibcFunction(name) ||
        name.rfind("__ctype_", 0) == 0)
      return false;
    for (unsigned k = 0; k < c->arg_size() && k < I.operands.size(); ++k) {
      if (!c->getArgOperand(k)->getType()->isPointerTy())
        continue;
      uint64_t p = I.operands[k].value.lo, base = 0;
      Object *obj = objectAt(p, &base);
      if (!obj)
        continue;
      if (obj->array)
        return true;
      for (uint64_t a = p; a < base + obj->size && a < p + 256; ++a)
        if (symByte.count(a))
          return true;
    }
    return false;
  }

  // ---- libc models ------------------------------------------------------------------

  // Where __ctype_b_loc() and friends say the ctype tables' pointers are.
  void noteCtypeLocation(const Instance &I, const std::string &name) {
    if (name == "__ctype_b_loc")
      ctypeLocations[I.result.lo] = CtypeTable::Class;
    else if (name == "__ctype_toupper_loc")
      ctypeLocations[I.result.lo] = CtypeTable::ToUpper;
    else if (name == "__ctype_tolower_loc")
      ctypeLocations[I.result.lo] = CtypeTable::ToLower;
  }

  // A byte as libc models see it (libc_models.h).
  std::optional<ModelByte> modelByte(uint64_t addr) {
    uint64_t base = 0;
    if (Object *obj = objectAt(addr, &base); obj && obj->array)
      return ModelByte{byteOfArray(*obj->array, addr - base), addNodes(obj->arrayNodes, 1), false};
    if (auto s = symByte.find(addr); s != symByte.end()) {
      z3::expr e = exprs[byteExpr(s->second)];
      return ModelByte{e, byteNodes(addr), e.is_const() && nonNulInputs.count(e.id()) > 0};
    }
    if (auto k = knownByte.find(addr); k != knownByte.end())
      return ModelByte{bv(k->second, 8), 1, k->second != 0};
    return std::nullopt;
  }

  // Gives the call's result an expression when a model covers it: the string
  // comparisons and searches over the bytes they read, the ctype functions, and the
  // ctype tables' locations. True when a model decided the result (it may be concrete).
  bool modelLibcCall(const Instance &I, const std::string &name) {
    if (name.rfind("__ctype_", 0) == 0)
      return true; // noteCtypeLocation's

    if (const std::vector<IndexRun> *runs = ctypeFunctionRuns(name)) {
      if (!I.operands.empty() && sym(I.operands[0]))
        setTable(I, {val(I.operands[0], 32), *runs, 32, nodesOf(I.operands[0])});
      return true;
    }
    std::vector<const Event *> reads;
    for (const Event &e : I.effects)
      if (e.tag == Ev::MEM_READ)
        reads.push_back(&e);
    auto byte = [this](uint64_t a) { return modelByte(a); };
    auto arg = [&](size_t k) { return k < I.operands.size() ? I.operands[k].value.lo : 0; };
    std::optional<ModelValue> m;
    if (name == "strlen" && reads.size() == 1 && reads[0]->a == arg(0)) {
      m = strlenModel(ctx, byte, arg(0),
                      stringEnd(arg(0), reads[0]->b, reads[0]->b + kMaxStringAhead));
    } else if ((name == "strcmp" || name == "strncmp" || name == "memcmp") && reads.size() == 2 &&
               reads[0]->a == arg(0) && reads[1]->a == arg(1) && reads[0]->b == reads[1]->b) {
      auto r = static_cast<int32_t>(I.result.lo);
      uint64_t extent = reads[0]->b;
      if (name != "memcmp") { // a string whose NUL is symbolic may go on past the run's
        uint64_t limit = name == "strncmp" ? arg(2) : extent + kMaxStringAhead;
        extent = std::min(stringEnd(arg(0), extent, limit), stringEnd(arg(1), extent, limit));
      }
      // All bytes equal up to the limit: 0; else the run's own result, since the
      // strings' NULs end the comparison where they did in the run.
      bool atLimit = name != "strcmp" && extent == arg(2);
      z3::expr fallback = bv(atLimit ? 0u : static_cast<uint32_t>(r), 32);
      m = compareModel(ctx, byte, arg(0), arg(1), extent, name != "memcmp", fallback,
                       r < 0 ? r : -1, r > 0 ? r : 1);
    } else if (isDecimalParse(name, I) && !reads.empty() && reads[0]->a == arg(0) &&
               !valueOf.count(I.index)) {
      // The bytes the parse may depend on, white space the run skipped left out.
      uint64_t start = arg(0), end = arg(0) + reads[0]->b;
      for (auto k = knownByte.find(start);
           start < end && k != knownByte.end() && std::isspace(k->second);
           k = knownByte.find(++start))
        ;
      m = decimalModel(ctx, byte, start, end - start, bitsOf(I.inst->getType()));
    } else if (name == "strrchr" && reads.size() == 1 && reads[0]->a == arg(0) &&
               I.operands.size() >= 2) {
      m = findLastModel(ctx, byte, arg(0),
                        stringEnd(arg(0), reads[0]->b, reads[0]->b + kMaxStringAhead),
                        val(I.operands[1], 32).extract(7, 0));
    } else if (name == "strstr" && reads.size() == 2 && reads[0]->a == arg(0) &&
               reads[1]->a == arg(1) && reads[1]->b > 0) {
      m = searchModel(ctx, byte, arg(0),
                      stringEnd(arg(0), reads[0]->b, reads[0]->b + kMaxStringAhead), arg(1),
                      reads[1]->b - 1);
    } else if ((name == "strchr" || name == "memchr") && reads.size() == 1 &&
               reads[0]->a == arg(0) && I.operands.size() >= 2) {
      uint64_t extent = name == "strchr"
                            ? stringEnd(arg(0), reads[0]->b, reads[0]->b + kMaxStringAhead)
                            : reads[0]->b;
      m = findModel(ctx, byte, arg(0), extent, val(I.operands[1], 32).extract(7, 0),
                    name == "strchr");
    }
    if (!m)
      return false;
    z3::expr v = m->value.simplify();
    if (v.is_numeral())
      return true; // the domain leaves one value: concrete, and exact
    set(I, fit(v, bitsOf(I.inst->getType())), m->nodes);
    uint64_t base = 0;
    if (I.inst->getType()->isPointerTy() && objectAt(arg(0), &base))
      provenance[I.index] = base;
    return true;
  }

  // Where the string at `s` may end, given that the run read `extent` bytes of it: past
  // the extent while its last byte is not a known NUL (a NUL at a symbolic position, as
  // unit mode builds strings) and the next byte is known and inside the string's object,
  // at most `limit`.
  uint64_t stringEnd(uint64_t s, uint64_t extent, uint64_t limit) {
    uint64_t base = 0;
    Object *obj = objectAt(s, &base);
    while (obj && extent > 0 && extent < limit && s + extent < base + obj->size) {
      auto last = modelByte(s + extent - 1);
      uint64_t v = 0;
      if (!last || (last->value.is_numeral_u64(v) && v == 0) || !modelByte(s + extent))
        break;
      ++extent;
    }
    return extent;
  }

  // atoi, atol, atoll, and strtol and friends in base 10.
  static bool isDecimalParse(const std::string &name, const Instance &I) {
    if (name == "atoi" || name == "atol" || name == "atoll")
      return true;
    bool strto = name == "strtol" || name == "strtoll" || name == "strtoul" || name == "strtoull";
    return strto && I.operands.size() >= 3 && I.operands[2].value.lo == 10;
  }

  void setTable(const Instance &I, IndexedValue v) {
    set(I, indexedExpr(v), indexedNodes(v));
    if (!valueOf.count(I.index))
      return;
    tables.insert_or_assign(I.index, std::move(v));
    if (tables.size() > 64)
      tables.erase(tables.begin());
  }

  // An operation of a table value with constants stays a table value.
  bool foldTable(const Instance &I) {
    const llvm::Instruction *inst = I.inst;
    size_t at = I.operands.size();
    for (size_t k = 0; k < I.operands.size(); ++k) {
      if (tables.count(I.operands[k].def)) {
        if (at != I.operands.size())
          return false;
        at = k;
      } else if (sym(I.operands[k])) {
        return false;
      }
    }
    if (at == I.operands.size())
      return false;
    const IndexedValue &t = tables.at(I.operands[at].def);
    Val other{at == 0 && I.operands.size() > 1 ? I.operands[1].value.lo
              : I.operands.empty()             ? 0
                                               : I.operands[0].value.lo,
              0};
    auto ordered = [&](uint64_t v) {
      return at == 0 ? std::make_pair(Val{v, 0}, other) : std::make_pair(other, Val{v, 0});
    };
    unsigned bits = bitsOf(inst->getType());
    std::optional<std::vector<IndexRun>> runs;
    if (auto *cmp = llvm::dyn_cast<llvm::ICmpInst>(inst)) {
      unsigned w = bitsOf(cmp->getOperand(0)->getType());
      if (!w)
        return false;
      if (cmp->isEquality())
        runs = equalityRuns(t.runs, other.lo, w, cmp->getPredicate() == llvm::CmpInst::ICMP_EQ);
      else
        runs = mapRunValues(t.runs, [&](uint64_t v) -> uint64_t {
          auto [a, b] = ordered(v);
          return ops::intCompare(cmp->getPredicate(), w, a, b) ? 1 : 0;
        });
    } else if (inst->isBinaryOp() && bits && !isIntegerDiv(inst->getOpcode())) {
      runs = mapRunValues(t.runs, [&](uint64_t v) {
        auto [a, b] = ordered(v);
        ops::Fault fault = ops::Fault::None;
        return ops::intBinary(inst->getOpcode(), bits, a, b, fault).lo;
      });
    } else if ((llvm::isa<llvm::TruncInst>(inst) || llvm::isa<llvm::ZExtInst>(inst) ||
                llvm::isa<llvm::SExtInst>(inst)) &&
               bits) {
      runs = mapRunValues(t.runs, [&](uint64_t v) {
        return ops::cast(inst->getOpcode(), inst->getOperand(0)->getType(), inst->getType(), {v, 0},
                         dl)
            .lo;
      });
    }
    if (!runs)
      return false;
    IndexedValue folded{t.index, std::move(*runs), bits, t.indexNodes};
    setTable(I, std::move(folded));
    return true;
  }

  void excludeNul(const z3::expr &b) {
    domain.push_back(b != bv(0, 8));
    if (b.is_const())
      nonNulInputs.insert(b.id());
  }

  z3::expr isSpace(const z3::expr &b) {
    return b == bv(' ', 8) || b == bv('\t', 8) || b == bv('\n', 8) || b == bv('\v', 8) ||
           b == bv('\f', 8) || b == bv('\r', 8);
  }

  bool anySymbolicByte(uint64_t addr, uint64_t n) const {
    for (uint64_t i = 0; i < n; ++i)
      if (symByte.count(addr + i))
        return true;
    return false;
  }

  // Where an input byte lies: its text (stdin "", a file, or argument argIndex) and offset.
  struct InputPlace {
    std::string file;
    unsigned argIndex = 0;
    uint64_t offset = 0;
    bool follows(const InputPlace &prev) const {
      return file == prev.file && argIndex == prev.argIndex && offset == prev.offset + 1;
    }
  };

  // The input byte a memory byte holds unchanged (a line fgets read, an argv string), if
  // it does.
  std::optional<InputPlace> inputPlaceAt(uint64_t addr) {
    auto s = symByte.find(addr);
    if (s == symByte.end())
      return std::nullopt;
    const z3::expr &e = exprs[byteExpr(s->second)];
    if (!e.is_const())
      return std::nullopt;
    std::string name = e.decl().name().str();
    size_t at = name.rfind('@');
    if (at == std::string::npos)
      return std::nullopt;
    uint64_t offset = std::stoull(name.substr(at + 1));
    if (name.rfind("stdin@", 0) == 0)
      return InputPlace{"", 0, offset};
    if (name.rfind("file:", 0) == 0)
      return InputPlace{name.substr(5, at - 5), 0, offset};
    if (name.rfind("argv[", 0) == 0)
      return InputPlace{"", static_cast<unsigned>(std::stoul(name.substr(5))), offset};
    return std::nullopt;
  }

  // An sscanf conversion over a string in memory. When the bytes it parsed are input
  // bytes, unchanged and in order (fgets then sscanf, atoi(argv[1])), it is the same token
  // scanf would have read there and gets one variable; other parsed bytes make it concrete.
  // Address 0: the number is the call's result (atoi, strtol), not stored.
  void memToken(const Event &e, const Instance &I, const std::string &callee) {
    uint64_t src = e.a, len = e.b, addr = e.c, size = e.d;
    auto first = len ? inputPlaceAt(src) : std::nullopt;
    bool fromInput = first.has_value();
    std::optional<InputPlace> prev = first;
    for (uint64_t i = 1; fromInput && i < len; ++i) {
      auto next = inputPlaceAt(src + i);
      fromInput = next && next->follows(*prev);
      prev = next;
    }
    char conv = static_cast<char>(e.e & 0x7f);
    if (fromInput) { // the token belongs to the bytes' text
      currentFile = first->file;
      currentArg = first->argIndex;
    }
    auto done = [&] {
      currentFile.clear();
      currentArg = 0;
    };
    if (fromInput && addr == 0) {
      if (size >= 1 && size <= 8 && std::strchr("diuoxX", conv))
        set(I, z3::sext(tokenVariable(first->offset, len, size, conv),
                        bitsOf(I.inst->getType()) - static_cast<unsigned>(size * 8)));
      done();
      return;
    }
    if (fromInput) {
      token({Ev::TOKEN, first->offset, len, addr, size, e.e, {}, e.offset});
      done();
      return;
    }
    if (addr == 0)
      return; // atoi of bytes that are not input bytes in order: modelLibcCall's
    forget(addr, size);
    if (anySymbolicByte(src, len))
      run.concretizedCalls.insert(callee);
  }

  // The integer a conversion parsed from input bytes [offset, offset+len) of the current
  // text. Shown as the variable it was read into (`qty`, `a[2]`, `p.x`), else as the
  // argument it is (`argv[1]`), else as `token`.
  z3::expr tokenVariable(uint64_t offset, uint64_t len, uint64_t size, char conv,
                         uint64_t dest = 0) {
    InputVar v;
    v.display = dest ? names.nameAt(dest) : "";
    std::string arg = "argv[" + std::to_string(currentArg) + "]";
    if (v.display.empty())
      v.display = currentArg && offset == 0 ? arg : "token";
    v.kind = InputVar::Kind::Token;
    v.bits = static_cast<unsigned>(size * 8);
    v.file = currentFile;
    v.argIndex = currentArg;
    v.name = (currentArg            ? "atok:" + arg + "@"
              : currentFile.empty() ? std::string("tok@")
                                    : "ftok:" + currentFile + "@") +
             std::to_string(offset) + (conv == 'f' ? ":f" : ":i") + std::to_string(v.bits);
    v.offset = offset;
    v.length = len;
    v.conv = conv;
    return variable(v);
  }

  void token(const Event &e) {
    char conv = static_cast<char>(e.e & 0x7f);
    bool afterSpace =
        e.e & 0x80; // white space was skipped right before: the first byte is not white space
    uint64_t offset = e.a, len = e.b, addr = e.c, size = e.d;
    switch (conv) {
    case 'd':
    case 'i':
    case 'u':
    case 'o':
    case 'x':
    case 'X': {
      if (size == 0 || size > 8)
        return;
      writeSymbolic(addr, tokenVariable(offset, len, size, conv, addr), 1, size);
      return;
    }
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A': {
      if (size != 4 && size != 8) { // long double stays concrete
        forget(addr, size);
        ++run.concretizations;
        return;
      }
      z3::expr x = tokenVariable(offset, len, size, 'f', addr);
      // A number a person can type: scanf reads "nan" as some NaN, not these bits.
      domain.push_back(!floatOfBits(x).mk_is_nan());
      writeSymbolic(addr, x, 1, size);
      return;
    }
    case 'c':
      for (uint64_t i = 0; i < size; ++i) {
        z3::expr b = stdinByte(offset + i, addr + i);
        if (i == 0 && afterSpace)
          domain.push_back(!isSpace(b));
        setByte(addr + i, b);
      }
      return;
    case 's':
    case '[':
      for (uint64_t i = 0; i + 1 < size && i < len; ++i) {
        z3::expr b = stdinByte(offset + i, addr + i);
        setByte(addr + i, b);
        if (conv == 's') { // the token must stay one token
          domain.push_back(!isSpace(b));
          excludeNul(b);
        } else if (i == 0 && afterSpace)
          domain.push_back(!isSpace(b));
      }
      if (size > 0)
        writeConcrete(addr + size - 1, 1, {0, 0});
      return;
    default:
      forget(addr, size); // long double and others stay concrete
      ++run.concretizations;
      return;
    }
  }

  void output(const Instance &I, const llvm::CallInst *c, const Event &e) {
    uint64_t arg = e.c;
    if (e.d != 0) { // bytes copied from memory (%s, puts, fwrite)
      if (e.e && anySymbolicByte(e.d, e.e))
        run.outputs.push_back({I.index, e.a, e.b, e.e, arg, readBytes(e.d, e.e).first});
    } else if (arg >= 1 && arg < I.operands.size() && arg < c->arg_size()) {
      if (const z3::expr *s = sym(I.operands[arg]))
        run.outputs.push_back(
            {I.index, e.a, e.b, e.e, arg, simplified(*s, nodesOf(I.operands[arg]))});
    }
  }
};

} // namespace rootline

namespace rootline {

SymbolicReplayer::SymbolicReplayer(z3::context &ctx, const llvm::Module &module,
                                   SymbolicOptions options)
    : impl_(std::make_unique<Impl>(ctx, module, options)) {}
SymbolicReplayer::~SymbolicReplayer() = default;

void SymbolicReplayer::onInstance(const Instance &I) { impl_->onInstance(I); }

void SymbolicReplayer::onGlobal(const llvm::GlobalVariable *gv, uint64_t addr, uint64_t size) {
  impl_->names.onGlobal(gv, addr, size);
  impl_->addObject(addr, size);
  // Initial contents of constant-initialised globals are known (array tables, strings,
  // structs, and the packed structs clang emits for sparse designated initialisers).
  if (!gv || !gv->hasInitializer() || size > kMaxArrayObject)
    return;
  impl_->knownConstant(gv->getInitializer(), addr);
}

void SymbolicReplayer::onArgv(const ArgvString &a) {
  impl_->addObject(a.addr, a.bytes.size());
  if (a.index == 0)
    return; // the program name is not an input
  for (size_t j = 0; j + 1 < a.bytes.size(); ++j) {
    z3::expr b = impl_->variable(
        argvByte(static_cast<unsigned>(a.index), j, static_cast<uint8_t>(a.bytes[j])));
    impl_->domain.push_back(b != impl_->bv(0, 8)); // the string keeps its length
    impl_->setByte(a.addr + j, b);
  }
  impl_->knownByte[a.addr + a.bytes.size() - 1] = 0;
}

bool SymbolicReplayer::wantsMore() const { return !impl_->run.saturated; }

SymbolicRun SymbolicReplayer::take() { return std::move(impl_->run); }

std::vector<InputVar> unionOfInputs(const std::vector<InputVar> &a,
                                    const std::vector<InputVar> &b) {
  std::vector<InputVar> out = a;
  std::set<std::string> names;
  for (const auto &v : out)
    names.insert(v.name);
  for (const auto &v : b)
    if (names.insert(v.name).second)
      out.push_back(v);
  return out;
}

z3::expr SymbolicRun::pathCondition(z3::context &ctx) const {
  z3::expr pc = ctx.bool_val(true);
  for (const auto &c : path)
    pc = pc && c.taken;
  return pc;
}

std::string SymbolicRun::smtlib(z3::context &ctx) const {
  z3::solver s(ctx);
  for (const auto &d : domain)
    s.add(d);
  for (const auto &c : path)
    s.add(c.taken);
  return s.to_smt2();
}

} // namespace rootline
