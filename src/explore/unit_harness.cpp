// The unit driver generator (docs/explore.md, "Unit mode"). The function's parameters and
// the globals of its file are read from the debug information of the program's module;
// each becomes C code in the driver that reads its value, or its shape, as a number.
//
// Pointers to structs are initialised lazily in the sense of Khurshid, Pasareanu and
// Visser: a number read when the pointer is built chooses NULL (0), a fresh object (1)
// or an existing object of the same type (k >= 2: the (k-2)-th), within --max-depth and
// --max-objects. The choice is an input like any other, so the exploration forks on it
// exactly where the function's behaviour depends on it (and, with --strategy rsc, only
// there). A function pointer is a number choosing among the file's address-taken
// functions of the same signature: the solver picks the target.
#include "rootline/unit_harness.h"

#include "void_payloads.h"

#include "rootline/error.h"
#include "support/debug_types.h"

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/DebugProgramInstruction.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace rootline {

namespace {

namespace dw = llvm::dwarf;

bool isQualifier(unsigned tag) {
  return tag == dw::DW_TAG_typedef || tag == dw::DW_TAG_const_type ||
         tag == dw::DW_TAG_volatile_type || tag == dw::DW_TAG_restrict_type ||
         tag == dw::DW_TAG_atomic_type;
}

// Typedefs and qualifiers say nothing about what a value is.
const llvm::DIType *stripped(const llvm::DIType *t) { return strippedType(t); }

// Qualifiers off, typedef names kept: how a declaration spells the type.
const llvm::DIType *unqualified(const llvm::DIType *t) {
  while (auto *d = llvm::dyn_cast_or_null<llvm::DIDerivedType>(t)) {
    if (!isQualifier(d->getTag()) || d->getTag() == dw::DW_TAG_typedef)
      break;
    t = d->getBaseType();
  }
  return t;
}

// The length of a one-dimensional array type of fixed size; 0 for any other array.
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

// What the driver does with a value of a type.
enum class Kind {
  Integer,     // read as a number
  Bool,        // read as a number, stored as != 0
  Floating,    // read as a number (float, double): a symbolic IEEE-754 value
  StructPtr,   // a lazily initialised pointer to a struct or union
  String,      // a char pointer: NULL, or a NUL-terminated string within --max-string
  ScalarArray, // a pointer to another scalar: NULL, or within --max-array elements
  FunctionPtr, // one of the file's address-taken functions of that signature, or NULL
  Struct,      // a struct by value: its members
  Union,       // a union by value: its first member
  Array,       // a fixed array member: its elements
  Unsupported  // left zero (void *, pointers to pointers, long double, ...)
};

struct Classified {
  Kind kind = Kind::Unsupported;
  const llvm::DIType *type = nullptr; // stripped
  const llvm::DIType *pointee = nullptr;
  unsigned bits = 0;
  bool isSigned = true;
};

// The driver's fixed part: shape decisions, the objects it built, frees, and printing.
// Shape decisions are numbers read like any other input, into arrays whose names the
// conditions show (`pointer_choice[0] == 1`).
constexpr const char *kDriverRuntime = R"(/* ---- driver runtime ---- */
#include <sys/resource.h>
static FILE *rl_out;

/* A 1 MiB stack: a lazily built structure may be cyclic, and a function recursing over
 * it should fail fast (a short run to replay), not after 8 MiB of frames. */
static void rl_limit_stack(void) {
  struct rlimit r;
  if (getrlimit(RLIMIT_STACK, &r) == 0 && (r.rlim_cur == RLIM_INFINITY || r.rlim_cur > (1u << 20))) {
    r.rlim_cur = 1u << 20;
    setrlimit(RLIMIT_STACK, &r);
  }
}

static int pointer_choice[64];
static int rl_pointer_choices;
static int rl_choose_pointer(void) {
  if (rl_pointer_choices >= 64)
    return 0;
  int n = rl_pointer_choices++;
  pointer_choice[n] = 0;
  RL_READ("%d", &pointer_choice[n]);
  return pointer_choice[n];
}

static int function_choice[16];
static int rl_function_choices;
static int rl_choose_function(void) {
  if (rl_function_choices >= 16)
    return 0;
  int n = rl_function_choices++;
  function_choice[n] = 0;
  RL_READ("%d", &function_choice[n]);
  return function_choice[n];
}

/* The function pointers the solver chose, printed with the state. */
static const char *rl_chosen_what[16], *rl_chosen_target[16];
static int rl_chosen;
static void rl_chose(const char *what, const char *target) {
  if (rl_chosen < 16) {
    rl_chosen_what[rl_chosen] = what;
    rl_chosen_target[rl_chosen++] = target;
  }
}
static void rl_print_targets(void) {
  for (int i = 0; i < rl_chosen; ++i)
    fprintf(rl_out, "target %s = %s\n", rl_chosen_what[i], rl_chosen_target[i]);
}

/* Every object the driver built, so pointers print by name. */
static const void *rl_objects[256];
static const char *rl_object_names[256];
static int rl_object_numbers[256];
static int rl_nobjects;
static void rl_object(const void *p, const char *name, int k) {
  if (rl_nobjects < 256) {
    rl_objects[rl_nobjects] = p;
    rl_object_names[rl_nobjects] = name;
    rl_object_numbers[rl_nobjects++] = k;
  }
}
static void rl_print_pointer(const char *prefix, const char *suffix, const void *p) {
  if (!p) {
    fprintf(rl_out, "%s%s = NULL\n", prefix, suffix);
    return;
  }
  for (int i = 0; i < rl_nobjects; ++i)
    if (rl_objects[i] == p) {
      fprintf(rl_out, "%s%s = &%s[%d]\n", prefix, suffix, rl_object_names[i], rl_object_numbers[i]);
      return;
    }
  fprintf(rl_out, "%s%s = (other pointer)\n", prefix, suffix);
}

static const void *rl_freed[256];
static int rl_nfreed;
static int rl_is_freed(const void *p) {
  for (int i = 0; i < rl_nfreed; ++i)
    if (rl_freed[i] == p)
      return 1;
  return 0;
}
static void rl_tracked_free(void *p) {
  if (p && rl_nfreed < 256)
    rl_freed[rl_nfreed++] = p;
  free(p);
}
static void *rl_tracked_realloc(void *p, size_t n) {
  void *q = realloc(p, n);
  if (p && q && q != p && rl_nfreed < 256)
    rl_freed[rl_nfreed++] = p;
  return q;
}

/* Strings: a length (negative: NULL; at most RL_MAX_STRING), then RL_MAX_STRING
 * characters (a 0 becomes 'a'), and the NUL stored at the length. The characters are
 * read without a branch on the length, so the NUL's position stays symbolic: a branch
 * of the function on where the string ends (strcmp with "if", strlen(s) > 3) is solved
 * together with the characters instead of waiting for a run of that length. */
static int string_length[RL_MAX_STRINGS];
static char string_text[RL_MAX_STRINGS][RL_MAX_STRING + 1];
static char *rl_string_heap[RL_MAX_STRINGS];
static int rl_strings;
static char *rl_string(int depth) {
  (void)depth;
  if (rl_strings >= RL_MAX_STRINGS)
    return 0;
  int n = rl_strings++;
  string_length[n] = 0;
  RL_READ("%d", &string_length[n]);
  if (string_length[n] < 0)
    return 0;
  if (string_length[n] > RL_MAX_STRING)
    string_length[n] = RL_MAX_STRING;
  for (int i = 0; i < RL_MAX_STRING; ++i) {
    RL_READ("%hhd", (signed char *)&string_text[n][i]);
    string_text[n][i] |= (string_text[n][i] == 0) * 'a';
  }
  string_text[n][string_length[n]] = 0;
  rl_string_heap[n] = (char *)malloc(RL_MAX_STRING + 1);
  memcpy(rl_string_heap[n], string_text[n], RL_MAX_STRING + 1);
  rl_object(rl_string_heap[n], "string_text", n);
  return rl_string_heap[n];
}
/* Text as a C string literal: bytes that are not printable as octal escapes. */
static void rl_print_text(const char *label, const char *suffix, const char *s, size_t max) {
  fprintf(rl_out, "%s%s = \"", label, suffix);
  for (size_t i = 0; i < max && s[i]; ++i) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\')
      fprintf(rl_out, "\\%c", c);
    else if (c >= 0x20 && c < 0x7f)
      fputc(c, rl_out);
    else
      fprintf(rl_out, "\\%03o", c);
  }
  fprintf(rl_out, "\"\n");
}

static void rl_print_strings(void) {
  for (int n = 0; n < rl_strings; ++n)
    if (rl_string_heap[n] && !rl_is_freed(rl_string_heap[n])) {
      char label[32];
      snprintf(label, sizeof label, "string_text[%d]", n);
      rl_print_text(label, "", rl_string_heap[n], RL_MAX_STRING + 1);
    }
}

/* A `void *` on a side of its tag where the code does not use it as a type: NULL or a
 * block of zero bytes on the heap (a function that only tests it, or frees it, gets a
 * real object). */
static int rl_opaque_blocks;
static void *rl_opaque(void) {
  if (rl_choose_pointer() <= 0 || rl_opaque_blocks >= 8)
    return 0;
  void *p = calloc(1, 64);
  rl_object(p, "opaque_block", rl_opaque_blocks++);
  return p;
}

static void rl_reset_common(void) {
  rl_reads = 0;
  rl_opaque_blocks = 0;
  rl_pointer_choices = rl_function_choices = rl_chosen = rl_nobjects = rl_nfreed = 0;
  rl_strings = 0;
  memset(rl_string_heap, 0, sizeof rl_string_heap);
  memset(string_text, 0, sizeof string_text);
}
)";

class DriverWriter {
public:
  DriverWriter(const llvm::Module &module, const llvm::Function &function,
               const UnitOptions &options, const fs::path &definingSource,
               const std::vector<const llvm::Module *> &units, const llvm::Module &definingUnit)
      : module_(module), sp_(function.getSubprogram()), options_(options), source_(definingSource),
        payloads_(findVoidPayloads(module, function, units)) {
    collectFunctionCandidates();
    // The structs the driver can build: complete where it includes the function's file.
    llvm::DebugInfoFinder finder;
    finder.processModule(definingUnit);
    for (const llvm::DIType *t : finder.types())
      if (auto *c = llvm::dyn_cast_or_null<llvm::DICompositeType>(t);
          c && !c->isForwardDecl() && !c->getName().empty())
        completeInUnit_.insert(c->getName().str());
      else if (auto *d = llvm::dyn_cast_or_null<llvm::DIDerivedType>(t);
               d && d->getTag() == dw::DW_TAG_typedef)
        if (auto *b = llvm::dyn_cast_or_null<llvm::DICompositeType>(stripped(d->getBaseType()));
            b && !b->isForwardDecl())
          completeInUnit_.insert(d->getName().str());
  }

  std::string spell(const llvm::DIType *t) {
    t = unqualified(t);
    if (!t)
      return "void";
    if (auto *b = llvm::dyn_cast<llvm::DIBasicType>(t))
      return b->getName().str();
    if (auto *d = llvm::dyn_cast<llvm::DIDerivedType>(t)) {
      if (d->getTag() == dw::DW_TAG_typedef)
        return d->getName().str();
      if (d->getTag() == dw::DW_TAG_pointer_type) {
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
    }
    if (auto *c = llvm::dyn_cast<llvm::DICompositeType>(t)) {
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
    return "";
  }

  // `ret (*name)(params)` for a function type.
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

  Classified classify(const llvm::DIType *raw) {
    Classified c;
    const llvm::DIType *t = stripped(raw);
    c.type = t;
    if (!t)
      return c;
    c.bits = static_cast<unsigned>(t->getSizeInBits());
    if (auto *b = llvm::dyn_cast<llvm::DIBasicType>(t)) {
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
      return c;
    }
    if (auto *comp = llvm::dyn_cast<llvm::DICompositeType>(t)) {
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
      return c;
    }
    auto *d = llvm::dyn_cast<llvm::DIDerivedType>(t);
    if (!d || d->getTag() != dw::DW_TAG_pointer_type)
      return c;
    const llvm::DIType *pointee = stripped(d->getBaseType());
    c.pointee = pointee;
    if (!pointee)
      return c; // void *
    if (llvm::isa<llvm::DISubroutineType>(pointee)) {
      c.kind = Kind::FunctionPtr;
      return c;
    }
    Classified inner = classify(d->getBaseType());
    if (inner.kind == Kind::Integer && inner.bits == 8)
      c.kind = Kind::String;
    else if (inner.kind == Kind::Integer || inner.kind == Kind::Floating ||
             inner.kind == Kind::Bool)
      c.kind = Kind::ScalarArray;
    else if ((inner.kind == Kind::Struct || inner.kind == Kind::Union) &&
             !spell(d->getBaseType()).empty())
      c.kind = Kind::StructPtr;
    return c;
  }

  // scanf's conversion for an integer of `bits` bits, and the pointer type it fills.
  static std::pair<std::string, std::string> conversion(unsigned bits, bool isSigned) {
    switch (bits) {
    case 8:
      return {isSigned ? "%hhd" : "%hhu", isSigned ? "signed char *" : "unsigned char *"};
    case 16:
      return {isSigned ? "%hd" : "%hu", isSigned ? "short *" : "unsigned short *"};
    case 32:
      return {isSigned ? "%d" : "%u", isSigned ? "int *" : "unsigned *"};
    default:
      return {isSigned ? "%lld" : "%llu", isSigned ? "long long *" : "unsigned long long *"};
    }
  }

  // Statements that fill lvalue `lv` of type `raw` (at pointer depth `depth`).
  void fill(std::ostringstream &o, const std::string &lv, const llvm::DIType *raw,
            const std::string &depth, const std::string &indent, const std::string &what,
            unsigned nesting = 0) {
    Classified c = classify(raw);
    switch (c.kind) {
    case Kind::Integer: {
      auto [fmt, ptr] = conversion(c.bits, c.isSigned);
      o << indent << "RL_READ(\"" << fmt << "\", (" << ptr << ")&" << lv << ");\n";
      return;
    }
    case Kind::Bool:
      o << indent << "{ int rl_flag = 0; RL_READ(\"%d\", &rl_flag); " << lv
        << " = rl_flag != 0; }\n";
      return;
    case Kind::Floating:
      o << indent << "RL_READ(\"" << (c.bits == 32 ? "%f" : "%lf") << "\", &" << lv << ");\n";
      return;
    case Kind::StructPtr:
      if (!buildableHere(c.type)) { // defined in another file: opaque where the driver is
        note(what + " (" + spellOr(raw, "a pointer") +
             "): its struct is not defined in the function's file; it is NULL");
        o << indent << lv << " = 0;\n";
        return;
      }
      // An anonymous struct is known by its typedef's name (`parse_buffer`).
      needStruct(c.pointee, spell(llvm::cast<llvm::DIDerivedType>(c.type)->getBaseType()));
      o << indent << lv << " = rl_pointer_" << structId(c.pointee) << "(" << depth << ");\n";
      return;
    case Kind::String:
      o << indent << lv << " = rl_string(" << depth << ");\n";
      return;
    case Kind::ScalarArray: {
      std::string elem = spell(llvm::cast<llvm::DIDerivedType>(c.type)->getBaseType());
      o << indent << lv << " = (" << elem << " *)rl_array_" << arrayId(c.type) << "(" << depth
        << ");\n";
      return;
    }
    case Kind::FunctionPtr: {
      std::string sig = spell(raw);
      auto it = candidates_.find(sig);
      if (it == candidates_.end() || it->second.empty()) {
        note(what + ": no function of the file has its signature and has its address taken; "
                    "it is NULL");
        o << indent << lv << " = 0;\n";
        return;
      }
      o << indent << "{ int rl_target = rl_choose_function(); " << lv << " = 0;\n";
      for (size_t i = 0; i < it->second.size(); ++i)
        o << indent << "  if (rl_target == " << i + 1 << ") { " << lv << " = " << it->second[i]
          << "; rl_chose(\"" << what << "\", \"" << it->second[i] << "\"); }\n";
      o << indent << "}\n";
      return;
    }
    case Kind::Struct: {
      if (nesting > 4)
        return;
      auto *comp = llvm::cast<llvm::DICompositeType>(c.type);
      TaggedUnion tagged = taggedUnion(comp);
      // Tags first: the union, or the `void *` payloads, are built for their values.
      std::vector<const llvm::DIDerivedType *> first;
      if (tagged.tag)
        first.push_back(tagged.tag);
      std::vector<MemberPayload> payloads = memberPayloads(raw, comp);
      for (const MemberPayload &p : payloads)
        if (p.tag && std::find(first.begin(), first.end(), p.tag) == first.end())
          first.push_back(p.tag);
      for (const llvm::DIDerivedType *t : first)
        fill(o, lv + "." + t->getName().str(), t->getBaseType(), depth, indent,
             what + "." + t->getName().str(), nesting + 1);
      for (const llvm::DINode *n : comp->getElements()) {
        auto *m = llvm::dyn_cast<llvm::DIDerivedType>(n);
        if (!m || m->getTag() != dw::DW_TAG_member)
          continue;
        if (std::find(first.begin(), first.end(), m) != first.end())
          continue;
        if (auto p = std::find_if(payloads.begin(), payloads.end(),
                                  [&](const MemberPayload &x) { return x.member == m; });
            p != payloads.end()) {
          std::string tagLv = p->tag ? lv + "." + p->tag->getName().str() : "";
          fillPayload(o, lv + "." + m->getName().str(), tagLv,
                      p->tag ? p->tag->getBaseType() : nullptr, *p->payload, depth, indent,
                      what + "." + m->getName().str(), nesting);
          continue;
        }
        if (m == tagged.un) {
          forEachTag(o, lv, tagged, indent,
                     [&](const llvm::DIDerivedType *alt, const std::string &in) {
                       fill(o, unionMember(lv, tagged, alt), alt->getBaseType(), depth, in,
                            what + "." + alt->getName().str(), nesting + 1);
                     });
          continue;
        }
        if (m->getName().empty())
          continue;
        std::string member = lv + "." + m->getName().str();
        if (m->isBitField()) {
          Classified mc = classify(m->getBaseType());
          if (mc.kind == Kind::Integer || mc.kind == Kind::Bool)
            o << indent << "{ long long rl_bits = 0; RL_READ(\"%lld\", &rl_bits); " << member
              << " = rl_bits; }\n";
          continue;
        }
        fill(o, member, m->getBaseType(), depth, indent, what + "." + m->getName().str(),
             nesting + 1);
      }
      return;
    }
    case Kind::Union: {
      auto *comp = llvm::cast<llvm::DICompositeType>(c.type);
      for (const llvm::DINode *n : comp->getElements())
        if (auto *m = llvm::dyn_cast<llvm::DIDerivedType>(n);
            m && m->getTag() == dw::DW_TAG_member && !m->getName().empty()) {
          note(what + ": a union is filled through its first member `" + m->getName().str() + "`");
          fill(o, lv + "." + m->getName().str(), m->getBaseType(), depth, indent,
               what + "." + m->getName().str(), nesting + 1);
          return;
        }
      return;
    }
    case Kind::Array: {
      auto *comp = llvm::cast<llvm::DICompositeType>(c.type);
      uint64_t count = fixedLength(comp);
      if (count == 0) {
        note(what + ": a multi-dimensional or unsized array is left zero");
        return;
      }
      Classified elem = classify(comp->getBaseType());
      if (elem.kind == Kind::Integer && elem.bits == 8) { // a char buffer: a short string
        uint64_t n = std::min<uint64_t>(count - 1, options_.maxString);
        for (uint64_t i = 0; i < n; ++i)
          o << indent << "RL_READ(\"%hhd\", (signed char *)&" << lv << "[" << i << "]);\n"
            << indent << lv << "[" << i << "] |= (" << lv << "[" << i << "] == 0) * 'a';\n";
        return;
      }
      uint64_t n = std::min<uint64_t>(count, options_.maxArray);
      if (n < count)
        note(what + ": the first " + std::to_string(n) + " of " + std::to_string(count) +
             " elements are symbolic, the others zero");
      for (uint64_t i = 0; i < n; ++i)
        fill(o, lv + "[" + std::to_string(i) + "]", comp->getBaseType(), depth, indent,
             what + "[" + std::to_string(i) + "]", nesting + 1);
      return;
    }
    case Kind::Unsupported:
      note(what + " (" + spellOr(raw, "its type") + "): not modelled, left zero");
      return;
    }
  }

  // Whether a value of the type is numbers only (no pointer anywhere in it).
  bool holdsOnlyValues(const llvm::DIType *raw, unsigned nesting = 0) {
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
            m && m->getTag() == dw::DW_TAG_member &&
            !holdsOnlyValues(m->getBaseType(), nesting + 1))
          return false;
      return true;
    case Kind::Array:
      return holdsOnlyValues(llvm::cast<llvm::DICompositeType>(c.type)->getBaseType(), nesting + 1);
    default:
      return false;
    }
  }

  std::string spellOr(const llvm::DIType *t, const std::string &fallback) {
    std::string s = spell(t);
    return s.empty() ? fallback : s;
  }

  // Statements printing lvalue `lv` (of type `raw`) as `label = value` lines. The label
  // is the C string expression `prefix` (the object's name, built at run time) followed
  // by the literal `suffix`.
  void print(std::ostringstream &o, const std::string &prefix, const std::string &suffix,
             const std::string &lv, const llvm::DIType *raw, const std::string &indent,
             unsigned nesting = 0) {
    Classified c = classify(raw);
    std::string head = indent + "fprintf(rl_out, \"%s" + suffix;
    switch (c.kind) {
    case Kind::Integer:
      o << head << " = %" << (c.isSigned ? "lld" : "llu") << "\\n\", " << prefix << ", ("
        << (c.isSigned ? "long long" : "unsigned long long") << ")" << lv << ");\n";
      return;
    case Kind::Bool:
      o << head << " = %d\\n\", " << prefix << ", (int)" << lv << ");\n";
      return;
    case Kind::Floating:
      o << head << " = %g\\n\", " << prefix << ", (double)" << lv << ");\n";
      return;
    case Kind::FunctionPtr: {
      // By the name of the function it points to, when it is one of the candidates.
      auto it = candidates_.find(spell(raw));
      if (it != candidates_.end() && !it->second.empty()) {
        o << head << " = %s\\n\", " << prefix << ", ";
        for (const auto &f : it->second)
          o << lv << " == " << f << " ? \"" << f << "\" : ";
        o << lv << " ? \"(other function)\" : \"NULL\");\n";
        return;
      }
      o << indent << "rl_print_pointer(" << prefix << ", \"" << suffix << "\", (const void *)" << lv
        << ");\n";
      return;
    }
    case Kind::StructPtr:
    case Kind::String:
    case Kind::ScalarArray:
      o << indent << "rl_print_pointer(" << prefix << ", \"" << suffix << "\", (const void *)" << lv
        << ");\n";
      return;
    case Kind::Struct: {
      if (nesting > 4)
        return;
      auto *comp = llvm::cast<llvm::DICompositeType>(c.type);
      TaggedUnion tagged = taggedUnion(comp);
      std::vector<MemberPayload> payloads = memberPayloads(raw, comp);
      for (const llvm::DINode *n : comp->getElements()) {
        auto *m = llvm::dyn_cast<llvm::DIDerivedType>(n);
        if (!m || m->getTag() != dw::DW_TAG_member || m->isBitField())
          continue;
        if (llvm::any_of(payloads, [&](const MemberPayload &x) { return x.member == m; })) {
          o << indent << "rl_print_pointer(" << prefix << ", \"" << suffix << "."
            << m->getName().str() << "\", (const void *)" << lv << "." << m->getName().str()
            << ");\n";
          continue;
        }
        if (m == tagged.un) { // the member the tag says is there
          forEachTag(o, lv, tagged, indent,
                     [&](const llvm::DIDerivedType *alt, const std::string &in) {
                       std::string path = unionMember(lv, tagged, alt);
                       print(o, prefix, suffix + path.substr(lv.size()), path, alt->getBaseType(),
                             in, nesting + 1);
                     });
          continue;
        }
        if (m->getName().empty())
          continue;
        print(o, prefix, suffix + "." + m->getName().str(), lv + "." + m->getName().str(),
              m->getBaseType(), indent, nesting + 1);
      }
      return;
    }
    case Kind::Array: {
      auto *comp = llvm::cast<llvm::DICompositeType>(c.type);
      uint64_t count = fixedLength(comp);
      if (count == 0)
        return;
      Classified elem = classify(comp->getBaseType());
      if (elem.kind == Kind::Integer && elem.bits == 8) {
        o << indent << "rl_print_text(" << prefix << ", \"" << suffix << "\", (const char *)" << lv
          << ", " << count << ");\n";
        return;
      }
      for (uint64_t i = 0; i < std::min<uint64_t>(count, options_.maxArray); ++i)
        print(o, prefix, suffix + "[" + std::to_string(i) + "]", lv + "[" + std::to_string(i) + "]",
              comp->getBaseType(), indent, nesting + 1);
      return;
    }
    case Kind::Union:
    case Kind::Unsupported:
      return;
    }
  }

  // A `void *` member whose types a tag member names (void_payloads.h).
  struct MemberPayload {
    const llvm::DIDerivedType *member = nullptr, *tag = nullptr; // tag: null when untagged
    const VoidPayload *payload = nullptr;
  };

  static bool isVoidPointer(const llvm::DIType *raw) {
    auto *d = llvm::dyn_cast_or_null<llvm::DIDerivedType>(stripped(raw));
    return d && d->getTag() == dw::DW_TAG_pointer_type && !stripped(d->getBaseType());
  }

  std::vector<MemberPayload> memberPayloads(const llvm::DIType *raw,
                                            const llvm::DICompositeType *comp) {
    std::vector<MemberPayload> out;
    std::string name = structNameOf(raw);
    if (name.empty())
      return out;
    for (const llvm::DINode *n : comp->getElements()) {
      auto *m = llvm::dyn_cast<llvm::DIDerivedType>(n);
      if (!m || m->getTag() != dw::DW_TAG_member || m->getName().empty() ||
          !isVoidPointer(m->getBaseType()))
        continue;
      auto it = payloads_.members.find({name, m->getOffsetInBits()});
      if (it == payloads_.members.end() || it->second.cases.empty())
        continue;
      MemberPayload p{m, nullptr, &it->second};
      if (it->second.tagged) {
        for (const llvm::DINode *k : comp->getElements())
          if (auto *t = llvm::dyn_cast<llvm::DIDerivedType>(k);
              t && t->getTag() == dw::DW_TAG_member && !t->isBitField() && !t->getName().empty() &&
              t->getOffsetInBits() == it->second.tag && isTagType(t->getBaseType()))
            p.tag = t;
        if (!p.tag)
          continue;
      }
      out.push_back(p);
    }
    return out;
  }

  // The payload a `void *` parameter holds, and the parameter that tags it.
  const VoidPayload *
  paramPayload(const std::vector<std::pair<std::string, const llvm::DIType *>> &params, size_t i,
               std::optional<size_t> &tag) {
    if (!isVoidPointer(params[i].second))
      return nullptr;
    auto it = payloads_.params.find(static_cast<unsigned>(i + 1));
    if (it == payloads_.params.end() || it->second.cases.empty())
      return nullptr;
    if (it->second.tagged) {
      size_t t = it->second.tag - 1;
      if (t >= params.size() || t == i || !isTagType(params[t].second))
        return nullptr;
      tag = t;
    }
    return &it->second;
  }

  // A pointer to a scalar, or to a struct the function's file defines (a payload may be
  // used as a type of another file, opaque here: `Reprog *` in mujs's jsregexp.c).
  bool buildableHere(const llvm::DIType *pointer) {
    const llvm::DIType *base = llvm::cast<llvm::DIDerivedType>(stripped(pointer))->getBaseType();
    if (!llvm::isa_and_nonnull<llvm::DICompositeType>(stripped(base)))
      return true;
    return completeInUnit_.count(structNameOf(base)) > 0;
  }

  bool isTagType(const llvm::DIType *raw) {
    Kind k = classify(raw).kind;
    return k == Kind::Integer || k == Kind::Bool;
  }

  // `tag == SHAPE_RECT || tag == 7`: enumerators by name where the tag is an enum.
  std::string tagCondition(const std::string &tagLv, const llvm::DIType *tagType,
                           const std::vector<int64_t> &values) {
    auto *en = llvm::dyn_cast_or_null<llvm::DICompositeType>(stripped(tagType));
    std::string out;
    for (int64_t v : values) {
      std::string spelled = std::to_string(v);
      if (en && en->getTag() == dw::DW_TAG_enumeration_type)
        for (const llvm::DINode *n : en->getElements())
          if (auto *e = llvm::dyn_cast<llvm::DIEnumerator>(n);
              e && e->getValue().getSExtValue() == v)
            spelled = e->getName().str();
      out += (out.empty() ? "" : " || ") + tagLv + " == " + spelled;
    }
    return out;
  }

  // Statements building `void *` lvalue `lv` as the type the code uses it as for the
  // tag's value: `if (s.kind == SHAPE_CIRCLE) { struct circle *rl_payload = ...; }`. A
  // tag value the code uses as no type gets NULL or an opaque block (rl_opaque).
  void fillPayload(std::ostringstream &o, const std::string &lv, const std::string &tagLv,
                   const llvm::DIType *tagType, const VoidPayload &p, const std::string &depth,
                   const std::string &indent, const std::string &what, unsigned nesting) {
    auto build = [&](const PayloadCase &c, const std::string &in) {
      std::string spelled = spell(c.pointer);
      o << in << "{\n" << in << "  " << spelled << " rl_payload = 0;\n";
      fill(o, "rl_payload", c.pointer, depth, in + "  ", what, nesting + 1);
      o << in << "  " << lv << " = (void *)rl_payload;\n"
        << in << "  rl_chose(\"" << what << "\", \"" << spelled << "\");\n"
        << in << "}\n";
    };
    const PayloadCase *other = nullptr;
    std::vector<const PayloadCase *> cases;
    std::vector<int64_t> unbuilt; // used as a type the driver cannot build: NULL
    bool otherUnbuilt = false;
    std::set<int64_t> covered;
    for (const PayloadCase &c : p.cases) {
      if (spell(c.pointer).empty() || !buildableHere(c.pointer)) {
        note(what + ": used as " + spellOr(c.pointer, "a type") + " at " + c.site +
             ", which the function's file does not define; it is NULL there");
        if (c.otherwise)
          otherUnbuilt = true;
        else
          unbuilt.insert(unbuilt.end(), c.tags.begin(), c.tags.end());
        continue;
      }
      if (c.otherwise) {
        other = other ? other : &c;
      } else {
        cases.push_back(&c);
        covered.insert(c.tags.begin(), c.tags.end());
      }
    }
    size_t branches = 0;
    auto branch = [&](const std::string &condition) {
      o << indent << (branches++ ? "} else if (" : "if (") << condition << ") {\n";
    };
    for (const PayloadCase *c : cases) {
      branch(tagCondition(tagLv, tagType, c->tags));
      build(*c, indent + "  ");
    }
    if (!unbuilt.empty()) {
      branch(tagCondition(tagLv, tagType, unbuilt));
      o << indent << "  " << lv << " = 0;\n";
    }
    if (other) { // the values the else side excludes, and no case names, get no type
      std::vector<int64_t> excluded;
      for (int64_t v : other->tags)
        if (!covered.count(v))
          excluded.push_back(v);
      if (!excluded.empty()) {
        branch(tagCondition(tagLv, tagType, excluded));
        o << indent << "  " << lv << " = rl_opaque();\n";
      }
    }
    std::string in = branches ? indent + "  " : indent;
    if (branches)
      o << indent << "} else {\n";
    if (other)
      build(*other, in);
    else
      o << in << lv << (otherUnbuilt ? " = 0;\n" : " = rl_opaque();\n");
    if (branches)
      o << indent << "}\n";
  }

  // A tagged union: a struct with an enum member (the tag) and a union member. Each
  // enumerator goes with the union member whose name it contains (EXPR_BIN and `bin`),
  // else the member at its position, else the first.
  struct TaggedUnion {
    const llvm::DIDerivedType *tag = nullptr, *un = nullptr;
    std::vector<std::pair<std::string, const llvm::DIDerivedType *>> cases; // enumerator, member
  };

  TaggedUnion taggedUnion(const llvm::DICompositeType *comp) {
    TaggedUnion t;
    for (const llvm::DINode *n : comp->getElements()) {
      auto *m = llvm::dyn_cast<llvm::DIDerivedType>(n);
      if (!m || m->getTag() != dw::DW_TAG_member)
        continue;
      auto *mt = llvm::dyn_cast_or_null<llvm::DICompositeType>(stripped(m->getBaseType()));
      if (!mt)
        continue;
      if (!t.tag && mt->getTag() == dw::DW_TAG_enumeration_type && !m->getName().empty())
        t.tag = m;
      else if (!t.un && mt->getTag() == dw::DW_TAG_union_type)
        t.un = m;
    }
    if (!t.tag || !t.un)
      return {};
    auto *en = llvm::cast<llvm::DICompositeType>(stripped(t.tag->getBaseType()));
    auto *un = llvm::cast<llvm::DICompositeType>(stripped(t.un->getBaseType()));
    std::vector<const llvm::DIDerivedType *> alts;
    for (const llvm::DINode *n : un->getElements())
      if (auto *m = llvm::dyn_cast<llvm::DIDerivedType>(n);
          m && m->getTag() == dw::DW_TAG_member && !m->getName().empty())
        alts.push_back(m);
    if (alts.empty())
      return {};
    auto lower = [](std::string x) {
      for (char &ch : x)
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      return x;
    };
    for (const llvm::DINode *n : en->getElements())
      if (auto *e = llvm::dyn_cast<llvm::DIEnumerator>(n)) {
        std::string name = e->getName().str();
        const llvm::DIDerivedType *chosen = nullptr;
        for (auto *a : alts)
          if (lower(name).find(lower(a->getName().str())) != std::string::npos &&
              (!chosen || a->getName().size() > chosen->getName().size()))
            chosen = a;
        if (!chosen) // else the largest: the variant with the most to build (`bin`)
          for (auto *a : alts)
            if (!chosen || a->getSizeInBits() > chosen->getSizeInBits())
              chosen = a;
        t.cases.push_back({name, chosen});
      }
    if (t.cases.empty())
      return {};
    return t;
  }

  std::string unionMember(const std::string &lv, const TaggedUnion &t,
                          const llvm::DIDerivedType *alt) {
    std::string un = t.un->getName().empty() ? lv : lv + "." + t.un->getName().str();
    return un + "." + alt->getName().str();
  }

  // `if (lv.tag == A) { ... } else if (lv.tag == B) { ... } else { first member }`.
  void
  forEachTag(std::ostringstream &o, const std::string &lv, const TaggedUnion &t,
             const std::string &indent,
             const std::function<void(const llvm::DIDerivedType *, const std::string &)> &body) {
    std::string tag = lv + "." + t.tag->getName().str();
    for (size_t i = 0; i < t.cases.size(); ++i) {
      o << indent << (i ? "} else if (" : "if (") << tag << " == " << t.cases[i].first << ") {\n";
      body(t.cases[i].second, indent + "  ");
    }
    o << indent << "} else {\n";
    body(t.cases.front().second, indent + "  ");
    o << indent << "}\n";
  }

  std::string structId(const llvm::DIType *stripped) {
    auto [it, fresh] = structIds_.try_emplace(stripped, "");
    if (fresh) {
      std::string name = llvm::cast<llvm::DICompositeType>(stripped)->getName().str();
      std::string base = identifierOf(name.empty() ? structSpelling_[stripped] : name);
      std::string id = base;
      for (unsigned k = 2; usedIds_.count(id); ++k)
        id = base + std::to_string(k);
      usedIds_.insert(id);
      it->second = id;
    }
    return it->second;
  }

  void needStruct(const llvm::DIType *stripped, const std::string &spelled) {
    structSpelling_.try_emplace(stripped, spelled);
    if (std::find(structOrder_.begin(), structOrder_.end(), stripped) == structOrder_.end())
      structOrder_.push_back(stripped);
  }

  std::string arrayId(const llvm::DIType *pointerType) {
    const llvm::DIType *elem = llvm::cast<llvm::DIDerivedType>(pointerType)->getBaseType();
    std::string spelled = spell(elem);
    auto [it, fresh] = arrays_.try_emplace(spelled, std::make_pair(identifierOf(spelled), elem));
    (void)fresh;
    return it->second.first;
  }

  void note(const std::string &n) {
    if (std::find(notes_.begin(), notes_.end(), n) == notes_.end())
      notes_.push_back(n);
  }

  // Functions of the defining file whose address is taken, by the signature they have.
  void collectFunctionCandidates() {
    for (const llvm::Function &f : module_) {
      const llvm::DISubprogram *s = f.getSubprogram();
      if (!s || f.isDeclaration() || f.getName() == "main" || !f.hasAddressTaken())
        continue;
      if (fs::path(s->getFile()->getDirectory().str()) / s->getFile()->getFilename().str() !=
              source_ &&
          fs::path(s->getFile()->getFilename().str()) != source_)
        continue;
      candidates_[declarator(s->getType(), "*")].push_back(f.getName().str());
    }
  }

  std::string write(const std::vector<std::pair<std::string, const llvm::DIType *>> &params,
                    const std::vector<std::pair<std::string, const llvm::DIType *>> &globals,
                    std::vector<UnitInput> &inputs);

  const std::vector<std::string> &notes() const { return notes_; }

private:
  const llvm::Module &module_;
  const llvm::DISubprogram *sp_;
  UnitOptions options_;
  fs::path source_;
  std::map<std::string, std::vector<std::string>> candidates_;
  std::map<const llvm::DIType *, std::string> structIds_;
  std::map<const llvm::DIType *, std::string> structSpelling_; // how the driver names the type
  std::set<std::string> usedIds_;
  std::vector<const llvm::DIType *> structOrder_;
  std::map<std::string, std::pair<std::string, const llvm::DIType *>> arrays_;
  std::vector<std::string> notes_;
  std::ostringstream resets_;
  VoidPayloads payloads_;
  std::set<std::string> completeInUnit_; // struct and typedef names
};

std::string kindText(DriverWriter &w, const llvm::DIType *raw) {
  Classified c = w.classify(raw);
  switch (c.kind) {
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

std::string
DriverWriter::write(const std::vector<std::pair<std::string, const llvm::DIType *>> &params,
                    const std::vector<std::pair<std::string, const llvm::DIType *>> &globals,
                    std::vector<UnitInput> &inputs) {
  // The body first: it discovers the struct and array types the helpers need.
  std::ostringstream build, state, decls, call;
  std::string fn = sp_->getName().str();
  auto types = sp_->getType()->getTypeArray();
  const llvm::DIType *ret = types.size() ? types[0] : nullptr;
  for (const auto &[name, type] : globals) {
    fill(build, name, type, "0", "  ", name);
    inputs.push_back({name, spellOr(type, "?"), kindText(*this, type) + " (global)"});
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const auto &[name, type] = params[i];
    std::string arg = "arg_" + identifierOf(name);
    std::string spelled = spell(type);
    Classified c = classify(type);
    if (c.kind == Kind::FunctionPtr)
      decls << "static " << declarator(llvm::cast<llvm::DISubroutineType>(c.pointee), "*" + arg)
            << ";\n";
    else if (spelled.empty())
      throw Error("cannot spell the type of parameter '" + name + "' of " + fn +
                      " (an anonymous struct?): unit mode needs named types",
                  ExitBadInput);
    else
      decls << "static " << spelled << (spelled.back() == '*' ? "" : " ") << arg << ";\n";
    inputs.push_back({name, spellOr(type, "?"), kindText(*this, type)});
    call << (i ? ", " : "") << arg;
    if (c.kind == Kind::Struct)
      print(state, "\"\"", name, arg, type, "  ");
    resets_ << "  memset(&" << arg << ", 0, sizeof " << arg << ");\n";
  }
  // The parameters are built in order, except that a tag is built before the `void *`
  // payload it tags (`measure(void *payload, int kind)`).
  std::vector<bool> built(params.size(), false);
  for (size_t i = 0; i < params.size(); ++i) {
    if (built[i])
      continue;
    const auto &[name, type] = params[i];
    std::string arg = "arg_" + identifierOf(name);
    std::optional<size_t> tag;
    const VoidPayload *payload = paramPayload(params, i, tag);
    if (!payload) {
      fill(build, arg, type, "0", "  ", name);
      built[i] = true;
      continue;
    }
    std::string tagLv;
    if (tag) {
      tagLv = "arg_" + identifierOf(params[*tag].first);
      if (!built[*tag])
        fill(build, tagLv, params[*tag].second, "0", "  ", params[*tag].first);
      built[*tag] = true;
      inputs[i].how = "void * built as the type the code uses it as for the value of " +
                      params[*tag].first + " (or NULL)";
    } else {
      inputs[i].how = "void * built as the one type the code uses it as (or NULL)";
    }
    fillPayload(build, arg, tagLv, tag ? params[*tag].second : nullptr, *payload, "0", "  ", name,
                0);
    built[i] = true;
  }
  for (const auto &[name, type] : globals)
    print(state, "\"\"", name, name, type, "  ");
  // Struct helpers, closing over the struct types their members lead to.
  std::ostringstream structs, structFill, printers;
  for (size_t k = 0; k < structOrder_.size(); ++k) {
    const llvm::DIType *t = structOrder_[k];
    std::string id = structId(t), type = structSpelling_[t];
    std::ostringstream fillBody, printBody;
    fill(fillBody, id + "_object[k]", t, "depth + 1", "  ", id);
    print(printBody, "rl_label", "", "(*" + id + "_heap[k])", t, "      ");
    structs << "static " << type << " " << id << "_object[RL_MAX_OBJECTS];\n"
            << "static " << type << " *" << id << "_heap[RL_MAX_OBJECTS];\n"
            << "static int " << id << "_count;\n"
            << "static " << type << " *rl_pointer_" << id << "(int depth);\n";
    structFill << "static void rl_fill_" << id << "(int k, int depth) {\n"
               << "  (void)k;\n  (void)depth;\n"
               << fillBody.str() << "}\n\n"
               << "static " << type << " *rl_pointer_" << id << "(int depth) {\n"
               << "  int c = rl_choose_pointer();\n"
               << "  if (c <= 0)\n    return 0;\n"
               // An alias is a fork per existing object, never a symbolic index: the
               // pointer stays concrete on each path.
               << "  if (c >= 2) {\n"
               << "    for (int j = 0; j < " << id << "_count; ++j)\n"
               << "      if (c == j + 2)\n        return " << id << "_heap[j];\n"
               << "    return 0;\n  }\n"
               << "  if (depth >= RL_MAX_DEPTH || " << id << "_count >= RL_MAX_OBJECTS)\n"
               << "    return 0;\n"
               << "  int k = " << id << "_count++;\n"
               << "  " << id << "_heap[k] = (" << type << " *)malloc(sizeof(" << type << "));\n"
               << "  rl_object(" << id << "_heap[k], \"" << id << "_object\", k);\n"
               << "  rl_fill_" << id << "(k, depth);\n"
               << "  *" << id << "_heap[k] = " << id << "_object[k];\n"
               << "  return " << id << "_heap[k];\n"
               << "}\n\n";
    printers << "  for (int k = 0; k < " << id << "_count; ++k)\n"
             << "    if (!rl_is_freed(" << id << "_heap[k])) {\n"
             << "      char rl_label[64];\n"
             << "      snprintf(rl_label, sizeof rl_label, \"" << id << "_object[%d]\", k);\n"
             << printBody.str() << "    }\n";
    resets_ << "  " << id << "_count = 0;\n  memset(" << id << "_object, 0, sizeof " << id
            << "_object);\n";
  }
  std::ostringstream arrays;
  for (const auto &[spelled, entry] : arrays_) {
    const auto &[id, elem] = entry;
    std::ostringstream fillElem, printElem;
    fill(fillElem, id + "_elements[n][i]", elem, "depth + 1", "    ", id + " element");
    print(printElem, "rl_label", "", "((" + spelled + " *)" + id + "_heap[n])[i]", elem,
          "        ");
    arrays << "static " << spelled << " " << id << "_elements[RL_MAX_ARRAYS][RL_MAX_ARRAY];\n"
           << "static int " << id << "_length[RL_MAX_ARRAYS];\n"
           << "static void *" << id << "_heap[RL_MAX_ARRAYS];\n"
           << "static int " << id << "_count;\n"
           << "static void *rl_array_" << id << "(int depth) {\n"
           << "  (void)depth;\n"
           << "  if (" << id << "_count >= RL_MAX_ARRAYS)\n    return 0;\n"
           << "  int n = " << id << "_count++;\n"
           << "  RL_READ(\"%d\", &" << id << "_length[n]);\n"
           << "  if (" << id << "_length[n] < 0)\n    return 0;\n"
           << "  if (" << id << "_length[n] > RL_MAX_ARRAY)\n    " << id
           << "_length[n] = RL_MAX_ARRAY;\n"
           << "  for (int i = 0; i < " << id << "_length[n]; ++i) {\n"
           << fillElem.str() << "  }\n"
           << "  " << id << "_heap[n] = malloc(sizeof(" << spelled << ") * (" << id
           << "_length[n] + 1));\n"
           << "  memcpy(" << id << "_heap[n], " << id << "_elements[n], sizeof(" << spelled
           << ") * " << id << "_length[n]);\n"
           << "  rl_object(" << id << "_heap[n], \"" << id << "_array\", n);\n"
           << "  return " << id << "_heap[n];\n}\n\n";
    printers << "  for (int n = 0; n < " << id << "_count; ++n)\n"
             << "    if (" << id << "_heap[n] && !rl_is_freed(" << id << "_heap[n]))\n"
             << "      for (int i = 0; i < " << id << "_length[n]; ++i) {\n"
             << "        char rl_label[64];\n"
             << "        snprintf(rl_label, sizeof rl_label, \"" << id
             << "_array[%d][%d]\", n, i);\n"
             << printElem.str() << "      }\n";
    resets_ << "  " << id << "_count = 0;\n  memset(" << id << "_heap, 0, sizeof " << id
            << "_heap);\n";
  }
  std::ostringstream out;
  out << "/* Generated by rootline explore --function " << fn
      << " (docs/explore.md, \"Unit mode\").\n"
      << " * Reads every value and every shape decision of the arguments as a number, builds\n"
      << " * them, calls " << fn << " and prints what it returns and the state it leaves. */\n"
      << "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
      << "static int rl_reads; /* numbers read: printed first, so a test keeps only those */\n"
      << "#ifndef RL_READ\n#define RL_READ(fmt, dst) ((void)(++rl_reads, scanf(fmt, "
         "dst)))\n#endif\n"
      << "#define RL_MAX_DEPTH " << options_.maxDepth << "\n"
      << "#define RL_MAX_OBJECTS " << options_.maxObjects << "\n"
      << "#define RL_MAX_ARRAY " << options_.maxArray << "\n"
      << "#define RL_MAX_ARRAYS 8\n"
      << "#define RL_MAX_STRING " << options_.maxString << "\n"
      << "#define RL_MAX_STRINGS 8\n\n"
      << "/* Frees in the function's file are recorded: freed objects are not printed. */\n"
      << "static void rl_tracked_free(void *p);\n"
      << "static void *rl_tracked_realloc(void *p, size_t n);\n"
      << "#define main rootline_program_main\n#define free rl_tracked_free\n"
      << "#define realloc rl_tracked_realloc\n"
      << "#include \"" << source_.string() << "\"\n"
      << "#undef main\n#undef free\n#undef realloc\n\n"
      << kDriverRuntime << "\n"
      << structs.str() << decls.str() << "\n"
      << arrays.str() << structFill.str() << "static void rl_build(void) {\n"
      << build.str() << "}\n\n"
      << "static void rl_reset(void) {\n  rl_reset_common();\n"
      << resets_.str() << "}\n\n"
      << "static void rl_print_state(void) {\n"
      << state.str() << printers.str() << "  rl_print_strings();\n  rl_print_targets();\n}\n\n";
  // The call, and its result.
  out << "static void rl_call(void) {\n";
  std::string spelled = ret ? spell(ret) : "";
  if (!ret || spelled.empty()) {
    out << "  " << fn << "(" << call.str() << ");\n";
  } else {
    out << "  " << spelled << (spelled.back() == '*' ? "" : " ") << "rl_result = " << fn << "("
        << call.str() << ");\n";
    std::ostringstream p;
    print(p, "\"\"", "return", "rl_result", ret, "  ");
    out << p.str();
    Classified r = classify(ret);
    if (r.kind == Kind::Unsupported || r.kind == Kind::Union)
      out << "  (void)rl_result;\n";
  }
  out << "  rl_print_state();\n}\n\n"
      << "/* What was read is printed (and flushed) before the call: a crash keeps it. */\n"
      << "static void rl_built(void) {\n"
      << "  fprintf(rl_out, \"numbers read: %d\\n\", rl_reads);\n  fflush(rl_out);\n}\n\n"
      << "#ifndef RL_UNIT_TEST\nint main(void) {\n  rl_limit_stack();\n  rl_out = stdout;\n  "
         "rl_build();\n"
      << "  rl_built();\n  rl_call();\n  return 0;\n}\n#endif\n";
  return out.str();
}

} // namespace

namespace {

fs::path normal(const fs::path &p) { return fs::absolute(p).lexically_normal(); }

fs::path fileOf(const llvm::DIFile *f) {
  fs::path name = f->getFilename().str();
  return normal(name.is_absolute() ? name : fs::path(f->getDirectory().str()) / name);
}

} // namespace

UnitHarness makeUnitHarness(const BuildRecipe &program, const UnitOptions &options,
                            const fs::path &dir) {
  if (options.function.empty() || options.function == "main")
    throw Error("--function names the function to explore; for main, leave it out", ExitBadInput);
  BuiltModule built = buildModule(program);
  LoadedModule loaded = loadModule(built.bitcode);
  const llvm::Function *fn = loaded.module->getFunction(options.function);
  if (!fn || fn->isDeclaration())
    throw Error("no function '" + options.function + "' is defined in the program", ExitBadInput);
  const llvm::DISubprogram *sp = fn->getSubprogram();
  if (!sp || !sp->getType())
    throw Error("function '" + options.function + "' has no debug information", ExitBadInput);
  UnitHarness h;
  h.function = options.function;
  h.options = options;
  h.program = program;
  fs::path defining = fileOf(sp->getFile());
  const TranslationUnit *unit = nullptr;
  for (const auto &u : program.units)
    if (normal(u.source) == defining)
      unit = &u;
  if (!unit)
    throw Error("function '" + options.function + "' is defined in '" + defining.string() +
                    "', which is not one of the program's sources (a header?)",
                ExitBadInput);
  h.definingSource = unit->source;

  std::vector<std::pair<std::string, const llvm::DIType *>> params, globals;
  auto names = parameterNames(*fn);
  auto types = sp->getType()->getTypeArray();
  for (size_t i = 1; i < types.size(); ++i) {
    if (!types[i]) {
      h.notes.push_back(options.function + " is variadic: only its named parameters are built");
      break;
    }
    bool named = i - 1 < names.size() && !names[i - 1].empty();
    params.push_back({named ? names[i - 1] : "p" + std::to_string(i), types[i]});
  }
  // The globals of the function's file (static or not), except constants.
  for (const llvm::GlobalVariable &gv : loaded.module->globals()) {
    if (gv.isDeclaration() || gv.isConstant() || gv.getName().starts_with("__") ||
        gv.getName().starts_with("."))
      continue;
    llvm::SmallVector<llvm::DIGlobalVariableExpression *, 1> infos;
    gv.getDebugInfo(infos);
    for (auto *info : infos) {
      const llvm::DIGlobalVariable *v = info->getVariable();
      if (!v || !llvm::isa_and_nonnull<llvm::DICompileUnit>(v->getScope()) || !v->getFile() ||
          fileOf(v->getFile()) != defining)
        continue; // a function's static local, or another file's
      const llvm::DIType *t = v->getType();
      if (auto *d = llvm::dyn_cast_or_null<llvm::DIDerivedType>(t);
          d && d->getTag() == dw::DW_TAG_const_type)
        continue;
      globals.push_back({v->getName().str(), t});
    }
  }

  // The function's callees, transitively (direct calls to defined functions).
  std::vector<const llvm::Function *> work{fn};
  std::set<const llvm::Function *> seen{fn};
  while (!work.empty()) {
    const llvm::Function *f = work.back();
    work.pop_back();
    h.covered.push_back(f->getName().str());
    for (const llvm::Instruction &inst : llvm::instructions(*f))
      if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst)) {
        const llvm::Function *callee = call->getCalledFunction();
        if (callee && !callee->isDeclaration() && seen.insert(callee).second)
          work.push_back(callee);
        // An indirect call may reach any address-taken function of the same type.
        if (!callee && !call->isInlineAsm())
          for (const llvm::Function &g : *loaded.module)
            if (!g.isDeclaration() && g.hasAddressTaken() && g.getName() != "main" &&
                g.getFunctionType() == call->getFunctionType() && seen.insert(&g).second)
              work.push_back(&g);
      }
  }

  // The units' own modules, for the struct names the linker merged (void_payloads.h).
  std::vector<LoadedModule> unitModules;
  std::vector<const llvm::Module *> units;
  const llvm::Module *definingUnit = nullptr;
  for (size_t i = 0; i < program.units.size(); ++i) {
    const TranslationUnit &u = program.units[i];
    unitModules.push_back(loadModule(built.unitBitcode[i]));
    units.push_back(unitModules.back().module.get());
    if (&u == unit)
      definingUnit = units.back();
  }
  DriverWriter writer(*loaded.module, *fn, options, h.definingSource, units, *definingUnit);
  // A global that holds pointers (allocator hooks, a list head) keeps its initial value:
  // the program set it up, and the function relies on it.
  std::erase_if(globals, [&](const auto &g) {
    if (writer.holdsOnlyValues(g.second))
      return false;
    h.notes.push_back("global " + g.first + " holds pointers: it keeps its initial value");
    return true;
  });
  h.driverText = writer.write(params, globals, h.inputs);
  for (const auto &n : writer.notes())
    h.notes.push_back(n);
  fs::create_directories(dir);
  h.driver = dir / "driver.c";
  writeFileAtomic(h.driver, h.driverText);

  // The driver takes the defining unit's place (with its flags and directory); every
  // other unit's main is renamed, as the driver renames the defining file's.
  h.recipe = program;
  for (auto &u : h.recipe.units) {
    if (u.source == unit->source)
      u.source = h.driver;
    else
      u.flags.push_back("-Dmain=rootline_program_main");
  }
  h.recipe.origin = program.origin + ", unit driver for " + options.function;
  // Enough numbers for every shape within the bounds: a value of 1 everywhere (fresh
  // objects, one-element strings and arrays); numbers past what a run reads are unused.
  std::string seed;
  for (int i = 0; i < 512; ++i)
    seed += (i % 16 == 15) ? "1\n" : "1 ";
  h.seed.stdinBytes = seed;
  return h;
}

} // namespace rootline
