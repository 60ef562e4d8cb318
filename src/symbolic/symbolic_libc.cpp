// libc models applied to calls (libc_models.h): the string comparisons and searches and
// the decimal parses over the bytes the call read, and ctype's functions and tables as
// table values (indexed_value.h).
#include "symbolic/symbolic_replayer.h"

#include "trace/value_ops.h"

#include <cctype>

namespace rootline {

// Where __ctype_b_loc() and friends say the ctype tables' pointers are.
void SymbolicReplayer::Impl::noteCtypeLocation(const Instance &I, const std::string &name) {
  if (name == "__ctype_b_loc")
    ctypeLocations[I.result.lo] = CtypeTable::Class;
  else if (name == "__ctype_toupper_loc")
    ctypeLocations[I.result.lo] = CtypeTable::ToUpper;
  else if (name == "__ctype_tolower_loc")
    ctypeLocations[I.result.lo] = CtypeTable::ToLower;
}

// ctype's macros index a table: `(*__ctype_b_loc())[c]`.
void SymbolicReplayer::Impl::noteCtypeIndex(const Instance &I, const llvm::GetElementPtrInst *gep) {
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

// A byte as libc models see it (libc_models.h).
std::optional<ModelByte> SymbolicReplayer::Impl::modelByte(uint64_t addr) {
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
bool SymbolicReplayer::Impl::modelLibcCall(const Instance &I, const std::string &name) {
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
  auto arg = [&](size_t k) { return k < I.operands.size() ? I.operands[k].value.lo : 0; };
  std::optional<ModelValue> m = stringModel(I, name, reads);
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

// The model of a string or memory function, or of a decimal parse, over the bytes the
// call read (`reads`, its MEM_READ events), where one covers the call as the run made it.
std::optional<ModelValue>
SymbolicReplayer::Impl::stringModel(const Instance &I, const std::string &name,
                                    const std::vector<const Event *> &reads) {
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
    m = compareModel(ctx, byte, arg(0), arg(1), extent, name != "memcmp", fallback, r < 0 ? r : -1,
                     r > 0 ? r : 1);
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
  } else if ((name == "strchr" || name == "memchr") && reads.size() == 1 && reads[0]->a == arg(0) &&
             I.operands.size() >= 2) {
    uint64_t extent = name == "strchr"
                          ? stringEnd(arg(0), reads[0]->b, reads[0]->b + kMaxStringAhead)
                          : reads[0]->b;
    m = findModel(ctx, byte, arg(0), extent, val(I.operands[1], 32).extract(7, 0),
                  name == "strchr");
  }
  return m;
}

// Where the string at `s` may end, given that the run read `extent` bytes of it: past
// the extent while its last byte is not a known NUL (a NUL at a symbolic position, as
// unit mode builds strings) and the next byte is known and inside the string's object,
// at most `limit`.
uint64_t SymbolicReplayer::Impl::stringEnd(uint64_t s, uint64_t extent, uint64_t limit) {
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
bool SymbolicReplayer::Impl::isDecimalParse(const std::string &name, const Instance &I) {
  if (name == "atoi" || name == "atol" || name == "atoll")
    return true;
  bool strto = name == "strtol" || name == "strtoll" || name == "strtoul" || name == "strtoull";
  return strto && I.operands.size() >= 3 && I.operands[2].value.lo == 10;
}

void SymbolicReplayer::Impl::setTable(const Instance &I, IndexedValue v) {
  set(I, indexedExpr(v), indexedNodes(v));
  if (!valueOf.count(I.index))
    return;
  tables.insert_or_assign(I.index, std::move(v));
  if (tables.size() > 64)
    tables.erase(tables.begin());
}

// An operation of a table value with constants stays a table value.
bool SymbolicReplayer::Impl::foldTable(const Instance &I) {
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

} // namespace rootline
