// The named values of a carved call's state that local Darwin reads and prints
// (include/rootline/carve.h): found by walking the function's debug types from its
// parameters through the carved objects, so each has the name C gives it.
#include "rootline/carve.h"

#include "support/debug_types.h"

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Function.h>

#include <algorithm>
#include <map>
#include <set>

namespace rootline {

namespace {

namespace dw = llvm::dwarf;

// Elements of an array (or of what a pointer points into) looked at, from its start or
// from where the pointer points; pointers followed from a parameter.
constexpr uint64_t kElements = 64;
constexpr unsigned kPointerDepth = 3;

// A scalar C type: an integer (char, int, long, _Bool, an enum), float or double.
struct ScalarType {
  unsigned bytes = 0;
  bool isSigned = true;
  bool isFloat = false;
  const llvm::DICompositeType *enumeration = nullptr;
};
std::optional<ScalarType> scalarType(const llvm::DIType *t) {
  t = strippedType(t);
  auto sized = [](uint64_t bits) { return bits == 8 || bits == 16 || bits == 32 || bits == 64; };
  if (auto *b = llvm::dyn_cast_or_null<llvm::DIBasicType>(t)) {
    unsigned e = b->getEncoding();
    uint64_t bits = b->getSizeInBits();
    if (e == dw::DW_ATE_float && (bits == 32 || bits == 64))
      return ScalarType{static_cast<unsigned>(bits / 8), true, true};
    bool isSigned = e == dw::DW_ATE_signed || e == dw::DW_ATE_signed_char;
    bool isInt = isSigned || e == dw::DW_ATE_unsigned || e == dw::DW_ATE_unsigned_char ||
                 e == dw::DW_ATE_boolean;
    if (!isInt || !sized(bits))
      return std::nullopt;
    return ScalarType{static_cast<unsigned>(bits / 8), isSigned, false};
  }
  if (auto *c = llvm::dyn_cast_or_null<llvm::DICompositeType>(t);
      c && c->getTag() == dw::DW_TAG_enumeration_type && sized(c->getSizeInBits())) {
    bool isSigned = true;
    if (auto under = c->getBaseType() ? scalarType(c->getBaseType()) : std::nullopt)
      isSigned = under->isSigned;
    return ScalarType{static_cast<unsigned>(c->getSizeInBits() / 8), isSigned, false, c};
  }
  return std::nullopt;
}

bool isRecord(const llvm::DIType *t) {
  auto *c = llvm::dyn_cast_or_null<llvm::DICompositeType>(t);
  return c && (c->getTag() == dw::DW_TAG_structure_type || c->getTag() == dw::DW_TAG_union_type);
}

std::vector<std::pair<int64_t, std::string>> enumeratorsOf(const ScalarType &t) {
  std::vector<std::pair<int64_t, std::string>> out;
  if (t.enumeration)
    for (const llvm::DINode *e : t.enumeration->getElements())
      if (auto *en = llvm::dyn_cast_or_null<llvm::DIEnumerator>(e))
        out.emplace_back(en->getValue().getSExtValue(), en->getName().str());
  return out;
}

int64_t extend(uint64_t raw, unsigned bytes, bool isSigned) {
  if (bytes >= 8)
    return static_cast<int64_t>(raw);
  unsigned bits = bytes * 8;
  raw &= (1ull << bits) - 1;
  if (isSigned && (raw >> (bits - 1)))
    raw |= ~((1ull << bits) - 1);
  return static_cast<int64_t>(raw);
}

class Collector {
public:
  Collector(const CarvedCall &call, size_t maxInputs, size_t maxValues)
      : call_(call), maxInputs_(maxInputs), maxValues_(maxValues) {
    for (const CarvedPointer &p : call.pointers)
      pointers_[{p.object, p.offset}] = {p.target, p.targetOffset};
  }

  void argument(unsigned k, const std::string &name, const llvm::DIType *type) {
    if (full())
      return;
    if (auto st = scalarType(type)) {
      if (inputs_ >= maxInputs_)
        return;
      LocalValue v;
      v.name = name;
      v.isFloat = st->isFloat;
      v.arg = k;
      v.bytes = st->bytes;
      v.isSigned = st->isSigned;
      v.input = true;
      v.value = st->isFloat ? static_cast<int64_t>(call_.args[k].lo)
                            : extend(call_.args[k].lo, st->bytes, st->isSigned);
      v.enumerators = enumeratorsOf(*st);
      ++inputs_;
      out.push_back(v);
      return;
    }
    if (k < call_.argTargets.size() && call_.argTargets[k])
      pointee(name, type, call_.argTargets[k]->first, call_.argTargets[k]->second, 0);
  }

  // A global the call read or wrote: carved object `object`, of debug type `type`.
  void global(const std::string &name, const llvm::DIType *type, size_t object) {
    if (!full())
      value(name, type, object, 0, 0);
  }

  std::vector<LocalValue> out;

private:
  bool full() const { return out.size() >= maxValues_; }

  // What the pointer `name` (of debug type `type`) points to: at `offset` of carved
  // object `object`, and the elements after it.
  void pointee(const std::string &name, const llvm::DIType *type, size_t object, uint64_t offset,
               unsigned depth) {
    auto *ptr = llvm::dyn_cast_or_null<llvm::DIDerivedType>(strippedType(type));
    if (!ptr || ptr->getTag() != dw::DW_TAG_pointer_type || depth >= kPointerDepth)
      return;
    const llvm::DIType *to = strippedType(ptr->getBaseType());
    uint64_t size = to ? to->getSizeInBits() / 8 : 0;
    if (!size || !(isRecord(to) || scalarType(to)))
      return;
    uint64_t avail = call_.objects[object].size;
    uint64_t count = offset < avail ? std::min(kElements, (avail - offset) / size) : 0;
    for (uint64_t i = 0; i < count && !full(); ++i) {
      uint64_t at = offset + i * size;
      if (!touched(object, at, size))
        continue;
      if (isRecord(to))
        members(i == 0 ? name + "->" : name + "[" + std::to_string(i) + "].",
                llvm::cast<llvm::DICompositeType>(to), object, at, depth);
      else
        value(count == 1 ? "*" + name : name + "[" + std::to_string(i) + "]", to, object, at,
              depth);
    }
  }

  void members(const std::string &prefix, const llvm::DICompositeType *c, size_t object,
               uint64_t offset, unsigned depth) {
    // A union's members share bytes, and the first to name a byte keeps it: a pointer
    // to a struct whose carved target is laid out as that struct goes first (a tagged
    // value holding an object, not a string), then the scalars, widest first (a double
    // read whole, not as its first int), then the rest in their order.
    std::vector<const llvm::DINode *> order(c->getElements().begin(), c->getElements().end());
    if (c->getTag() == dw::DW_TAG_union_type) {
      auto rank = [&](const llvm::DINode *e) -> std::pair<int, int64_t> {
        auto *m = llvm::dyn_cast_or_null<llvm::DIDerivedType>(e);
        if (!m || m->getTag() != dw::DW_TAG_member)
          return {3, 0};
        if (pointsToRecordLayout(m->getBaseType(), object, offset + m->getOffsetInBits() / 8))
          return {0, 0};
        if (auto st = scalarType(m->getBaseType()))
          return {1, -static_cast<int64_t>(st->bytes)};
        return {2, 0};
      };
      std::stable_sort(order.begin(), order.end(),
                       [&](const auto *a, const auto *b) { return rank(a) < rank(b); });
    }
    for (const llvm::DINode *e : order) {
      auto *m = llvm::dyn_cast_or_null<llvm::DIDerivedType>(e);
      if (full() || !m || m->getTag() != dw::DW_TAG_member || m->isBitField() ||
          m->isStaticMember())
        continue;
      // An anonymous struct or union member: its fields are the enclosing one's.
      std::string name = m->getName().empty() ? prefix : prefix + m->getName().str();
      if (m->getName().empty() && !isRecord(strippedType(m->getBaseType())))
        continue;
      uint64_t at = offset + m->getOffsetInBits() / 8;
      if (m->getName().empty())
        members(prefix, llvm::cast<llvm::DICompositeType>(strippedType(m->getBaseType())), object,
                at, depth);
      else
        value(name, m->getBaseType(), object, at, depth);
    }
  }

  // The value `name` of debug type `type` at `offset` of `object`.
  void value(const std::string &name, const llvm::DIType *type, size_t object, uint64_t offset,
             unsigned depth) {
    const llvm::DIType *t = strippedType(type);
    if (auto st = scalarType(t)) {
      leaf(name, *st, object, offset);
      return;
    }
    if (isRecord(t)) {
      members(name + ".", llvm::cast<llvm::DICompositeType>(t), object, offset, depth);
      return;
    }
    if (auto *p = llvm::dyn_cast_or_null<llvm::DIDerivedType>(t);
        p && p->getTag() == dw::DW_TAG_pointer_type) {
      auto target = pointers_.find({object, offset});
      if (target != pointers_.end())
        pointee(name, p, target->second.first, target->second.second, depth + 1);
      return;
    }
    auto *array = llvm::dyn_cast_or_null<llvm::DICompositeType>(t);
    if (!array || array->getTag() != dw::DW_TAG_array_type || array->getElements().size() != 1)
      return;
    auto *range = llvm::dyn_cast_or_null<llvm::DISubrange>(array->getElements()[0]);
    auto *count =
        range ? llvm::dyn_cast_if_present<llvm::ConstantInt *>(range->getCount()) : nullptr;
    const llvm::DIType *element = strippedType(array->getBaseType());
    uint64_t size = element ? element->getSizeInBits() / 8 : 0;
    if (!count || !size)
      return;
    uint64_t n = std::min<uint64_t>(kElements, count->getZExtValue());
    for (uint64_t i = 0; i < n && !full(); ++i)
      if (touched(object, offset + i * size, size))
        value(name + "[" + std::to_string(i) + "]", element, object, offset + i * size, depth);
  }

  // Whether `type` is a pointer to a struct and the carved pointer at `offset` of
  // `object` points at a whole number of such structs from their start.
  bool pointsToRecordLayout(const llvm::DIType *type, size_t object, uint64_t offset) const {
    auto *ptr = llvm::dyn_cast_or_null<llvm::DIDerivedType>(strippedType(type));
    if (!ptr || ptr->getTag() != dw::DW_TAG_pointer_type)
      return false;
    const llvm::DIType *to = strippedType(ptr->getBaseType());
    uint64_t size = to && isRecord(to) ? to->getSizeInBits() / 8 : 0;
    auto target = pointers_.find({object, offset});
    if (!size || target == pointers_.end())
      return false;
    uint64_t objectSize = call_.objects[target->second.first].size;
    return target->second.second % size == 0 && objectSize % size == 0;
  }

  // Whether the call read or wrote a byte of [offset, offset + size) of `object`.
  bool touched(size_t object, uint64_t offset, uint64_t size) const {
    const CarvedObject &o = call_.objects[object];
    for (uint64_t b = offset; b < offset + size && b < o.size; ++b)
      if ((b < o.read.size() && o.read[b]) || (b < o.written.size() && o.written[b]))
        return true;
    return false;
  }

  void leaf(const std::string &name, ScalarType t, size_t object, uint64_t offset) {
    const CarvedObject &o = call_.objects[object];
    if (offset + t.bytes > o.size || !touched(object, offset, t.bytes) ||
        !claim(object, offset, t.bytes))
      return; // untouched, already named (another union member, a second pointer to the
              // object), or part of a pointer the test relocates
    bool known = true, read = false;
    uint64_t raw = 0;
    for (unsigned b = 0; b < t.bytes; ++b) {
      known &= offset + b < o.known.size() && o.known[offset + b];
      read |= offset + b < o.read.size() && o.read[offset + b];
      raw |= static_cast<uint64_t>(o.bytes[offset + b]) << (8 * b);
    }
    LocalValue v;
    v.name = name;
    v.isFloat = t.isFloat;
    v.object = object;
    v.offset = offset;
    v.bytes = t.bytes;
    v.isSigned = t.isSigned;
    v.output = !o.constant;
    v.value = t.isFloat ? static_cast<int64_t>(raw) : extend(raw, t.bytes, t.isSigned);
    v.enumerators = enumeratorsOf(t);
    // An input only where the test may write it and the trace gives its value.
    v.input = read && known && !o.constant && inputs_ < maxInputs_;
    inputs_ += v.input;
    out.push_back(v);
  }

  // Takes the bytes for one value: none of them named already, and none in a pointer
  // word (the test relocates those; a number written over one would break it, and
  // printed it would be an address).
  bool claim(size_t object, uint64_t offset, unsigned bytes) {
    for (uint64_t b = offset; b < offset + bytes; ++b)
      if (taken_.count({object, b}))
        return false;
    for (uint64_t word = offset & ~7ull; word < offset + bytes; word += 8)
      if (pointers_.count({object, word}))
        return false;
    for (uint64_t b = offset; b < offset + bytes; ++b)
      taken_.insert({object, b});
    return true;
  }

  const CarvedCall &call_;
  size_t maxInputs_, maxValues_, inputs_ = 0;
  std::map<std::pair<size_t, uint64_t>, std::pair<size_t, uint64_t>> pointers_;
  std::set<std::pair<size_t, uint64_t>> taken_; // named bytes
};

} // namespace

std::vector<LocalValue> localValues(const CarvedCall &call, const llvm::Function &fn,
                                    size_t maxInputs, size_t maxValues) {
  const llvm::DISubprogram *sp = fn.getSubprogram();
  if (!sp || !sp->getType())
    return {};
  auto types = sp->getType()->getTypeArray(); // the return type, then the parameters
  std::vector<std::string> names = parameterNames(fn);
  Collector collect(call, maxInputs, maxValues);
  for (unsigned k = 0; k < fn.arg_size() && k + 1 < types.size() && k < call.args.size(); ++k)
    collect.argument(k, names[k].empty() ? "arg" + std::to_string(k + 1) : names[k], types[k + 1]);
  // State the function keeps in globals (a parser's tables, a counter): named by their
  // debug info, after the arguments.
  const llvm::Module &m = *fn.getParent();
  for (size_t k = 0; k < call.objects.size(); ++k) {
    const CarvedObject &o = call.objects[k];
    if (o.kind != CarvedObject::Kind::Global || o.constant)
      continue;
    const llvm::GlobalVariable *g = m.getGlobalVariable(o.global, true);
    llvm::SmallVector<llvm::DIGlobalVariableExpression *, 1> dis;
    if (g)
      g->getDebugInfo(dis);
    if (dis.size() != 1 || !dis[0]->getVariable())
      continue;
    const llvm::DIGlobalVariable *var = dis[0]->getVariable();
    collect.global(var->getName().str(), var->getType(), k);
  }
  return std::move(collect.out);
}

} // namespace rootline
