// Expressions of the values an instruction computes from symbolic operands: arithmetic
// (float_ops.h for floating point), comparisons, casts and addresses, and the node
// counts that cap how large an expression may grow before it is left concrete.
#include "symbolic/symbolic_replayer.h"

#include "rootline/error.h"
#include "rootline/module_index.h"

#include <llvm/IR/DataLayout.h>
#include <llvm/IR/GetElementPtrTypeIterator.h>

namespace rootline {

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

// Nodes of an instruction's value: one for itself plus its operands' (an operand
// used twice, as in r * r, counted once).
uint32_t SymbolicReplayer::Impl::nodesOver(const Instance &I) const {
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

// The instance's value is `e` of `n` nodes: kept when the instance is wanted and `e`
// fits the cap, else the value stays concrete (a capped value is noted by line).
void SymbolicReplayer::Impl::set(const Instance &I, const z3::expr &e, uint32_t n) {
  if (!wanted)
    return;
  if (n > options.maxExprNodes)
    return capped(I);
  valueOf[I.index] = push(e, n);
  ++run.expressions;
}

void SymbolicReplayer::Impl::capped(const Instance &I) {
  ++run.concretizations;
  auto [it, fresh] = cappedAt.try_emplace(I.inst, run.capped.size());
  if (fresh) {
    SourceLocation loc = ModuleIndex::locationOf(I.inst);
    run.capped.push_back({loc.path(), I.inst->getFunction()->getName().str(), loc.line, 0});
  }
  ++run.capped[it->second].count;
}

void SymbolicReplayer::Impl::set(const Instance &I, const z3::expr &e) { set(I, e, nodesOver(I)); }

// The value of an instruction whose operands include a symbolic one: an expression,
// or concrete where none is modelled.
void SymbolicReplayer::Impl::computeValue(const Instance &I) {
  const llvm::Instruction *inst = I.inst;
  unsigned bits = bitsOf(inst->getType());
  if (auto *cmp = llvm::dyn_cast<llvm::ICmpInst>(inst)) {
    compareInst(I, cmp);
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

// An integer comparison; one of a model's result (an if-then-else of numbers) with a
// constant is pushed to the leaves (compareLeaves).
void SymbolicReplayer::Impl::compareInst(const Instance &I, const llvm::ICmpInst *cmp) {
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
}

// A floating-point operation bit-blasts to a circuit of about width² gates, like a
// product of two inputs: it counts as `bits` nodes (see binaryNodes).
uint32_t SymbolicReplayer::Impl::floatNodes(const Instance &I, unsigned bits) const {
  return addNodes(nodesOver(I), bits);
}

z3::expr SymbolicReplayer::Impl::compare(llvm::CmpInst::Predicate p, const z3::expr &a,
                                         const z3::expr &b) {
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
uint32_t SymbolicReplayer::Impl::binaryNodes(const Instance &I, unsigned op, unsigned bits) const {
  bool nonlinear = (op == llvm::Instruction::Mul && sym(I.operands[0]) && sym(I.operands[1])) ||
                   (isIntegerDiv(op) && (sym(I.operands[0]) || sym(I.operands[1])));
  return addNodes(nodesOver(I), nonlinear ? bits : 0);
}

void SymbolicReplayer::Impl::binary(const Instance &I, unsigned op, unsigned bits) {
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
      check("int-overflow-div", I, a == bv(minValue, bits) && b == bv(~0ull >> (64 - bits), bits));
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

void SymbolicReplayer::Impl::castInst(const Instance &I, const llvm::Instruction *inst,
                                      unsigned bits) {
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

z3::expr SymbolicReplayer::Impl::gepExpr(const Instance &I, const llvm::GetElementPtrInst *gep) {
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

} // namespace rootline
