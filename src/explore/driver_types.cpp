// Debug types as the unit driver sees them: how C spells them, and what the driver does
// with a value of each (Kind).
#include "driver_writer.h"

#include "support/debug_types.h"

#include <cctype>

namespace rootline::unit_driver {

bool isQualifier(unsigned tag) {
  return tag == dw::DW_TAG_typedef || tag == dw::DW_TAG_const_type ||
         tag == dw::DW_TAG_volatile_type || tag == dw::DW_TAG_restrict_type ||
         tag == dw::DW_TAG_atomic_type;
}

const llvm::DIType *stripped(const llvm::DIType *t) { return strippedType(t); }

const llvm::DIType *unqualified(const llvm::DIType *t) {
  while (auto *d = llvm::dyn_cast_or_null<llvm::DIDerivedType>(t)) {
    if (!isQualifier(d->getTag()) || d->getTag() == dw::DW_TAG_typedef)
      break;
    t = d->getBaseType();
  }
  return t;
}

uint64_t fixedLength(const llvm::DICompositeType *array) {
  uint64_t count = 0;
  unsigned dims = 0;
  for (const llvm::DINode *n : array->getElements())
    if (auto *sr = llvm::dyn_cast<llvm::DISubrange>(n)) {
      ++dims;
      if (auto *ci = llvm::dyn_cast_if_present<llvm::ConstantInt *>(sr->getCount()))
        count = ci->getZExtValue();
    }
  return dims == 1 ? count : 0;
}

std::string identifierOf(std::string s) {
  for (char &c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return s;
}

namespace {

// `const char *`, `int (*)(int)`: a pointer keeps its pointee's const.
std::string spellPointer(const llvm::DIDerivedType *d) {
  if (auto *fn = llvm::dyn_cast_or_null<llvm::DISubroutineType>(stripped(d->getBaseType())))
    return declarator(fn, "*");
  // Keep the pointee's const: `const char *` is what the function takes.
  const llvm::DIType *base = d->getBaseType();
  bool isConst = false;
  while (auto *q = llvm::dyn_cast_or_null<llvm::DIDerivedType>(base)) {
    if (q->getTag() == dw::DW_TAG_const_type)
      isConst = true;
    else if (!isQualifier(q->getTag()) || q->getTag() == dw::DW_TAG_typedef)
      break;
    base = q->getBaseType();
  }
  return (isConst ? "const " : "") + spell(base) + " *";
}

// `struct name`, `union name`, `enum name`; "" when it has no name.
std::string spellComposite(const llvm::DICompositeType *c) {
  std::string name = c->getName().str();
  if (name.empty())
    return "";
  switch (c->getTag()) {
  case dw::DW_TAG_structure_type:
    return "struct " + name;
  case dw::DW_TAG_union_type:
    return "union " + name;
  case dw::DW_TAG_enumeration_type:
    return "enum " + name;
  default:
    return "";
  }
}

} // namespace

std::string spell(const llvm::DIType *t) {
  t = unqualified(t);
  if (!t)
    return "void";
  if (auto *b = llvm::dyn_cast<llvm::DIBasicType>(t))
    return b->getName().str();
  if (auto *d = llvm::dyn_cast<llvm::DIDerivedType>(t)) {
    if (d->getTag() == dw::DW_TAG_typedef)
      return d->getName().str();
    if (d->getTag() == dw::DW_TAG_pointer_type)
      return spellPointer(d);
  }
  if (auto *c = llvm::dyn_cast<llvm::DICompositeType>(t))
    return spellComposite(c);
  return "";
}

std::string spellOr(const llvm::DIType *t, const std::string &fallback) {
  std::string s = spell(t);
  return s.empty() ? fallback : s;
}

std::string declarator(const llvm::DISubroutineType *fn, const std::string &inner) {
  auto types = fn->getTypeArray();
  std::string params;
  for (size_t i = 1; i < types.size(); ++i) {
    if (!types[i]) {
      params += (params.empty() ? "" : ", ") + std::string("...");
      continue;
    }
    params += (params.empty() ? "" : ", ") + spell(types[i]);
  }
  if (types.size() <= 1)
    params = "void";
  return spell(types.size() ? types[0] : nullptr) + " (" + inner + ")(" + params + ")";
}

namespace {

void classifyBasic(Classified &c, const llvm::DIBasicType *b) {
  unsigned enc = b->getEncoding();
  if (enc == dw::DW_ATE_boolean)
    c.kind = Kind::Bool;
  else if (enc == dw::DW_ATE_float && (c.bits == 32 || c.bits == 64))
    c.kind = Kind::Floating;
  else if (enc == dw::DW_ATE_signed || enc == dw::DW_ATE_signed_char ||
           enc == dw::DW_ATE_unsigned || enc == dw::DW_ATE_unsigned_char) {
    c.kind = c.bits <= 64 ? Kind::Integer : Kind::Unsupported;
    c.isSigned = enc == dw::DW_ATE_signed || enc == dw::DW_ATE_signed_char;
  }
}

void classifyComposite(Classified &c, const llvm::DICompositeType *comp) {
  switch (comp->getTag()) {
  case dw::DW_TAG_enumeration_type:
    c.kind = c.bits == 32 ? Kind::Integer : Kind::Unsupported;
    c.isSigned = true;
    break;
  case dw::DW_TAG_structure_type:
    c.kind = Kind::Struct; // filled through its members: no need to spell it
    break;
  case dw::DW_TAG_union_type:
    c.kind = Kind::Union;
    break;
  case dw::DW_TAG_array_type:
    c.kind = Kind::Array;
    break;
  default:
    break;
  }
}

// What the pointer points to decides: a string, an array, an object, a function.
void classifyPointer(Classified &c, const llvm::DIDerivedType *d) {
  const llvm::DIType *pointee = stripped(d->getBaseType());
  c.pointee = pointee;
  if (!pointee)
    return; // void *
  if (llvm::isa<llvm::DISubroutineType>(pointee)) {
    c.kind = Kind::FunctionPtr;
    return;
  }
  Classified inner = classify(d->getBaseType());
  if (inner.kind == Kind::Integer && inner.bits == 8)
    c.kind = Kind::String;
  else if (inner.kind == Kind::Integer || inner.kind == Kind::Floating || inner.kind == Kind::Bool)
    c.kind = Kind::ScalarArray;
  else if ((inner.kind == Kind::Struct || inner.kind == Kind::Union) &&
           !spell(d->getBaseType()).empty())
    c.kind = Kind::StructPtr;
}

} // namespace

Classified classify(const llvm::DIType *raw) {
  Classified c;
  const llvm::DIType *t = stripped(raw);
  c.type = t;
  if (!t)
    return c;
  c.bits = static_cast<unsigned>(t->getSizeInBits());
  if (auto *b = llvm::dyn_cast<llvm::DIBasicType>(t))
    classifyBasic(c, b);
  else if (auto *comp = llvm::dyn_cast<llvm::DICompositeType>(t))
    classifyComposite(c, comp);
  else if (auto *d = llvm::dyn_cast<llvm::DIDerivedType>(t);
           d && d->getTag() == dw::DW_TAG_pointer_type)
    classifyPointer(c, d);
  return c;
}

bool holdsOnlyValues(const llvm::DIType *raw, unsigned nesting) {
  Classified c = classify(raw);
  switch (c.kind) {
  case Kind::Integer:
  case Kind::Bool:
  case Kind::Floating:
    return true;
  case Kind::Struct:
  case Kind::Union:
    if (nesting > 4)
      return false;
    for (const llvm::DINode *n : llvm::cast<llvm::DICompositeType>(c.type)->getElements())
      if (auto *m = llvm::dyn_cast<llvm::DIDerivedType>(n);
          m && m->getTag() == dw::DW_TAG_member && !holdsOnlyValues(m->getBaseType(), nesting + 1))
        return false;
    return true;
  case Kind::Array:
    return holdsOnlyValues(llvm::cast<llvm::DICompositeType>(c.type)->getBaseType(), nesting + 1);
  default:
    return false;
  }
}

bool isVoidPointer(const llvm::DIType *raw) {
  auto *d = llvm::dyn_cast_or_null<llvm::DIDerivedType>(stripped(raw));
  return d && d->getTag() == dw::DW_TAG_pointer_type && !stripped(d->getBaseType());
}

bool isTagType(const llvm::DIType *raw) {
  Kind k = classify(raw).kind;
  return k == Kind::Integer || k == Kind::Bool;
}

std::string kindText(const llvm::DIType *raw) {
  switch (classify(raw).kind) {
  case Kind::Integer:
    return "symbolic integer";
  case Kind::Bool:
    return "symbolic boolean";
  case Kind::Floating:
    return "symbolic floating point (not NaN)";
  case Kind::StructPtr:
    return "lazily initialised pointer (NULL, a fresh object, or an existing one)";
  case Kind::String:
    return "string: NULL or up to the string bound, NUL-terminated";
  case Kind::ScalarArray:
    return "array: NULL or a symbolic length up to the array bound";
  case Kind::FunctionPtr:
    return "function pointer: the solver picks one of the file's functions of its signature";
  case Kind::Struct:
    return "struct by value: every member symbolic";
  case Kind::Union:
    return "union by value: its first member";
  case Kind::Array:
    return "array: elements symbolic";
  case Kind::Unsupported:
    return "not modelled: zero";
  }
  return "";
}

} // namespace rootline::unit_driver
