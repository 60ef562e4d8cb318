// Loads and stores: at a concrete address they read and write symbolic memory's bytes;
// at an input-dependent one they read and write the object's array form, and the bug
// checks ask whether the address can leave the object it was derived from.
#include "symbolic/symbolic_replayer.h"

namespace rootline {

// The object a pointer operand was derived from (by address arithmetic on a pointer
// into it), else the object its concrete address lies in.
Object *SymbolicReplayer::Impl::pointeeObject(const Operand &ptr, uint64_t *base) {
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

void SymbolicReplayer::Impl::checkAddress(const Instance &I, const z3::expr &ptr, uint64_t n) {
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
void SymbolicReplayer::Impl::checkConcreteAccess(const Instance &I, const Operand &ptr,
                                                 uint64_t n) {
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

void SymbolicReplayer::Impl::notePointerOrigin(const Instance &I) {
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

void SymbolicReplayer::Impl::load(const Instance &I, const llvm::LoadInst *ld) {
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
      setTable(I,
               {ix->second.second, ctypeTableRuns(ix->second.first), bits, nodesOf(I.operands[0])});
      return;
    }
  }
  std::optional<z3::expr> ptr = wanted ? symCopy(I.operands[0]) : std::nullopt;
  uint64_t base = 0;
  checkConcreteAccess(I, I.operands[0], n);
  Object *obj = ptr ? pointeeObject(I.operands[0], &base) : objectAt(I.addr, &base);
  if (ptr)
    return loadAtSymbolicAddress(I, obj, base, *ptr);
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

// A load through an input-dependent pointer `ptr` into `obj` (at `base`): a table's
// element where the object is a constant table, else a read of its array form.
void SymbolicReplayer::Impl::loadAtSymbolicAddress(const Instance &I, Object *obj, uint64_t base,
                                                   const z3::expr &ptr) {
  uint64_t n = I.size;
  checkAddress(I, ptr, n);
  if (!obj || obj->size > kMaxArrayObject)
    return concretize();
  z3::expr offset = simplified(ptr - bv(base, 64), nodesOf(I.operands[0]));
  uint32_t offsetNodes = nodesOf(I.operands[0]);
  if (auto table = readConstantTable(*obj, base, offset, n))
    return set(I, table->first, addNodes(table->second, offsetNodes));
  uint32_t arr = arrayNodes(*obj, base);
  if (addNodes(arr, offsetNodes) > options.maxExprNodes)
    return capped(I);
  set(I, simplified(readArray(arrayOf(*obj, base), offset, n), addNodes(arr, offsetNodes)),
      addNodes(addNodes(arr, offsetNodes), 2 * n));
}

void SymbolicReplayer::Impl::store(const Instance &I, const llvm::StoreInst *st) {
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

} // namespace rootline
