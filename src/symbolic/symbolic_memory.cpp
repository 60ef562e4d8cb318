// Symbolic memory: per byte, a symbolic byte (a slice of a stored expression) or a
// known concrete one; objects (frames' locals, globals, heap blocks, argv strings) and,
// once a store at a symbolic address made one array-valued, its bytes as a Z3 array.
#include "symbolic/symbolic_replayer.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>

namespace rootline {

// The bytes at concrete offsets [off, off + n) of an array built by stores, in one walk
// of its stores from the newest: the stores at other numeral offsets are skipped and
// those at symbolic ones become if-then-elses, so the solver gets bit-vectors, not the
// theory of arrays (much slower on these queries). A byte's value is the newest store
// at its offset, under every symbolic store newer than that one.
std::vector<z3::expr> bytesOfArray(const z3::expr &array, uint64_t off, uint64_t n) {
  z3::context &ctx = array.ctx();
  std::vector<std::pair<z3::expr, z3::expr>> symbolic; // newest first
  // Per byte: its newest numeral store and how many symbolic stores came after it.
  std::vector<std::optional<std::pair<z3::expr, size_t>>> found(n);
  uint64_t open = n;
  z3::expr a = array;
  std::optional<z3::expr> initial; // a constant array's value, under every store
  for (unsigned steps = 0; open > 0 && steps < 100000; ++steps) {
    if (!a.is_app() || a.decl().decl_kind() != Z3_OP_STORE) {
      if (a.is_app() && a.decl().decl_kind() == Z3_OP_CONST_ARRAY)
        initial = a.arg(0);
      break;
    }
    uint64_t k = 0;
    if (a.arg(1).is_numeral_u64(k)) {
      if (k >= off && k - off < n && !found[k - off]) {
        found[k - off].emplace(a.arg(2), symbolic.size());
        --open;
      }
    } else {
      symbolic.emplace_back(a.arg(1), a.arg(2));
    }
    a = a.arg(0);
  }
  std::vector<z3::expr> out;
  out.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    z3::expr at = ctx.bv_val(off + i, 64);
    size_t newer = found[i] ? found[i]->second : symbolic.size();
    z3::expr v = found[i] ? found[i]->first : initial ? *initial : z3::select(a, at);
    for (size_t j = newer; j-- > 0;)
      v = z3::ite(symbolic[j].first == at, symbolic[j].second, v);
    out.push_back(v.simplify());
  }
  return out;
}

z3::expr byteOfArray(const z3::expr &array, uint64_t off) {
  return bytesOfArray(array, off, 1).front();
}

// The bytes of a constant at `addr`, where they are plain data (pointers and other
// relocated values stay unknown).
void SymbolicReplayer::Impl::knownConstant(const llvm::Constant *c, uint64_t addr) {
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

Object *SymbolicReplayer::Impl::objectAt(uint64_t addr, uint64_t *base) {
  auto it = objects.upper_bound(addr);
  if (it == objects.begin())
    return nullptr;
  --it;
  if (addr >= it->first + std::max<uint64_t>(it->second.size, 1))
    return nullptr;
  *base = it->first;
  return &it->second;
}

void SymbolicReplayer::Impl::addObject(uint64_t base, uint64_t size) {
  // Storage reused by a new object (a new frame, a new heap block) replaces older ones.
  auto it = objects.lower_bound(base);
  while (it != objects.end() && it->first < base + size)
    it = objects.erase(it);
  objects[base] = Object{size, std::nullopt};
}

void SymbolicReplayer::Impl::writeConcrete(uint64_t addr, uint64_t n, Val v) {
  for (uint64_t i = 0; i < n && i < 16; ++i) {
    uint64_t word = i < 8 ? v.lo : v.hi;
    knownByte[addr + i] = static_cast<uint8_t>(word >> (8 * (i % 8)));
    symByte.erase(addr + i);
  }
}

void SymbolicReplayer::Impl::forget(uint64_t addr, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i) {
    knownByte.erase(addr + i);
    symByte.erase(addr + i);
  }
}

// The expression of a symbolic byte, built on first use.
unsigned SymbolicReplayer::Impl::byteExpr(SymByte &b) {
  if (b.expr == kLazy) {
    const z3::expr &whole = exprs[b.whole];
    z3::expr e = b.width == 1 ? whole : whole.extract(8u * b.pos + 7, 8u * b.pos);
    b.expr = push(simplified(e, nodes[b.whole]), addNodes(nodes[b.whole], 1));
  }
  return b.expr;
}

z3::expr SymbolicReplayer::Impl::byteAt(uint64_t addr) {
  auto s = symByte.find(addr);
  if (s != symByte.end())
    return exprs[byteExpr(s->second)];
  auto k = knownByte.find(addr);
  return bv(k == knownByte.end() ? 0u : static_cast<unsigned>(k->second), 8);
}

uint32_t SymbolicReplayer::Impl::byteNodes(uint64_t addr) const {
  auto s = symByte.find(addr);
  return s == symByte.end() ? 1 : addNodes(nodes[s->second.whole], 1);
}

// The `n` bytes at `addr` as one value (little-endian): the stored value itself when
// they are exactly the bytes of one symbolic store, else their concatenation.
std::pair<z3::expr, uint32_t> SymbolicReplayer::Impl::readBytes(uint64_t addr, uint64_t n) {
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

void SymbolicReplayer::Impl::writeSymbolic(uint64_t addr, const z3::expr &value,
                                           uint32_t valueNodes, uint64_t n) {
  unsigned whole = push(value, valueNodes);
  for (uint64_t i = 0; i < n; ++i) {
    symByte[addr + i] = {kLazy, whole, static_cast<uint8_t>(i), static_cast<uint8_t>(n)};
    knownByte.erase(addr + i);
  }
}

void SymbolicReplayer::Impl::copyBytes(uint64_t dst, uint64_t src, uint64_t n) {
  // From an array-valued object (a store at a symbolic index made it one), the copy
  // gets each byte as the array holds it: a string whose NUL sits at a symbolic
  // position keeps that position in the copy.
  uint64_t base = 0;
  if (Object *obj = objectAt(src, &base);
      obj && obj->array && src + n <= base + obj->size && obj->arrayNodes < options.maxExprNodes) {
    std::vector<z3::expr> bytes = bytesOfArray(*obj->array, src - base, n);
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
uint32_t SymbolicReplayer::Impl::arrayNodes(const Object &obj, uint64_t base) const {
  if (obj.array)
    return obj.arrayNodes;
  uint64_t n = 1;
  for (uint64_t i = 0; i < obj.size && n <= options.maxExprNodes; ++i)
    n = addNodes(n, byteNodes(base + i) + 1);
  return static_cast<uint32_t>(n);
}

// The object's bytes as a Z3 array from offsets (bv64) to bytes.
z3::expr SymbolicReplayer::Impl::arrayOf(Object &obj, uint64_t base) {
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
SymbolicReplayer::Impl::readConstantTable(const Object &obj, uint64_t base, const z3::expr &offset,
                                          uint64_t n) {
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

z3::expr SymbolicReplayer::Impl::readArray(const z3::expr &arr, const z3::expr &offset,
                                           uint64_t n) {
  z3::expr out = z3::select(arr, offset);
  for (uint64_t i = 1; i < n; ++i)
    out = z3::concat(z3::select(arr, offset + bv(i, 64)), out);
  return out;
}

bool SymbolicReplayer::Impl::anySymbolicByte(uint64_t addr, uint64_t n) const {
  for (uint64_t i = 0; i < n; ++i)
    if (symByte.count(addr + i))
      return true;
  return false;
}

} // namespace rootline
