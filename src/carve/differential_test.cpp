// A cmocka test that makes one carved call again, linked against a version's own code
// (include/rootline/differential_test.h).
#include "rootline/differential_test.h"

#include "build/cache.h"
#include "build/language_flags.h"
#include "support/debug_types.h"

#include "rootline/build.h"
#include "rootline/error.h"
#include "rootline/fs.h"
#include "rootline/hash.h"
#include "rootline/process.h"

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>

#include <unistd.h>

namespace rootline {

namespace {

// The prefix of the external alias the program's rest gives each static of its units.
constexpr const char *kStaticAliasPrefix = "rl_static.";

bool isIdentifier(const std::string &s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
    return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string hex64(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llxULL", static_cast<unsigned long long>(v));
  return buf;
}

std::string cString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      out += std::string("\\") + static_cast<char>(c);
    else if (c == '\n')
      out += "\\n\"\n    \"";
    else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    } else
      out += static_cast<char>(c);
  }
  return out + "\"";
}

std::string byteList(const std::vector<uint8_t> &bytes, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to; ++i) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02x", bytes[i]);
    out += i == from ? "" : (i - from) % 16 ? ", " : ",\n    ";
    out += buf;
  }
  return out;
}

} // namespace

// A parameter list the test can pass carved values to: scalars and pointers only (a
// struct passed by value is split or coerced by the ABI, which the trace's operands
// follow, not the C call).
std::optional<std::string> untestableSignature(const llvm::Function &fn) {
  if (fn.isVarArg())
    return "it is variadic";
  if (fn.hasStructRetAttr())
    return "it returns a struct through memory";
  for (const llvm::Argument &a : fn.args()) {
    if (a.hasByValAttr() || a.hasStructRetAttr())
      return "it takes a struct by value";
    llvm::Type *t = a.getType();
    if (!(t->isIntegerTy() && t->getIntegerBitWidth() <= 64) && !t->isPointerTy() &&
        !t->isFloatTy() && !t->isDoubleTy())
      return "it takes an argument of a type the test cannot rebuild";
  }
  const llvm::DISubprogram *sp = fn.getSubprogram();
  if (!sp || !sp->getType())
    return "it has no debug information";
  auto types = sp->getType()->getTypeArray();
  if (types.size() != fn.arg_size() + 1)
    return "it takes a struct by value";
  // A small struct by value is coerced to an integer by the ABI: the C type says so.
  for (unsigned k = 0; k < types.size(); ++k) {
    if (llvm::isa_and_nonnull<llvm::DICompositeType>(strippedType(types[k])))
      return k == 0 ? "it returns a struct by value" : "it takes a struct by value";
  }
  llvm::Type *r = fn.getReturnType();
  if (!r->isVoidTy() && !(r->isIntegerTy() && r->getIntegerBitWidth() <= 64) && !r->isPointerTy() &&
      !r->isFloatTy() && !r->isDoubleTy())
    return "it returns a value of a type the test cannot compare";
  return std::nullopt;
}

namespace {

// The function returns `char *` (or `const char *`, through typedefs): a string.
bool returnsCharPointer(const llvm::Function &fn) {
  const llvm::DISubprogram *sp = fn.getSubprogram();
  if (!sp || !sp->getType() || sp->getType()->getTypeArray().size() == 0)
    return false;
  auto *ptr =
      llvm::dyn_cast_or_null<llvm::DIDerivedType>(strippedType(sp->getType()->getTypeArray()[0]));
  if (!ptr || ptr->getTag() != llvm::dwarf::DW_TAG_pointer_type)
    return false;
  auto *base = llvm::dyn_cast_or_null<llvm::DIBasicType>(strippedType(ptr->getBaseType()));
  return base && (base->getEncoding() == llvm::dwarf::DW_ATE_signed_char ||
                  base->getEncoding() == llvm::dwarf::DW_ATE_unsigned_char);
}

// `functions`: the C expression for each of the call's functions ("" where the test
// cannot name it).
std::string argExpr(const CarvedCall &call, const llvm::Function &fn, unsigned k,
                    const std::vector<std::string> &functions) {
  llvm::Type *t = fn.getArg(k)->getType();
  const Val &v = call.args[k];
  if (t->isPointerTy()) {
    if (k < call.argTargets.size() && call.argTargets[k])
      return "(void *)(rl_obj[" + std::to_string(call.argTargets[k]->first) + "] + " +
             std::to_string(call.argTargets[k]->second) + ")";
    if (k < call.argFunctions.size() && call.argFunctions[k] &&
        !functions[*call.argFunctions[k]].empty())
      return functions[*call.argFunctions[k]];
    return v.lo ? "(void *)(uintptr_t)" + hex64(v.lo) : "(void *)0";
  }
  if (t->isFloatTy())
    return "rl_f32(" + hex64(v.lo & 0xffffffffu) + ")";
  if (t->isDoubleTy())
    return "rl_f64(" + hex64(v.lo) + ")";
  return "(uint64_t)" + hex64(v.lo);
}

} // namespace

std::optional<UnitSource> unitSourceOf(const llvm::Function &fn) {
  const llvm::DISubprogram *sp = fn.getSubprogram();
  if (!sp || !sp->getUnit() || !sp->getUnit()->getFile())
    return std::nullopt;
  const llvm::DICompileUnit *cu = sp->getUnit();
  UnitSource u;
  fs::path dir = cu->getDirectory().str(), file = cu->getFilename().str();
  u.path = file.is_absolute() ? file : dir / file;
  u.workDir = dir;
  u.flags = languageFlags(splitRecordedFlags(cu->getFlags().str()));
  return u;
}

namespace {

// The definitions every test shares: the carved objects' table, free() recorded, and
// the description of the state a call leaves.
const char *kObjects = R"C(
enum { RL_MAX_OBJECTS = 256 };
static char *rl_obj[RL_MAX_OBJECTS];
static size_t rl_size[RL_MAX_OBJECTS];
/* Where object k's words begin: the offset of its first 8-aligned address in the run. */
static unsigned char rl_phase[RL_MAX_OBJECTS];
static int rl_nobj;

/* free() of an object the test built is recorded, not done: the state after the call
   is read from it. */
static int rl_freed[RL_MAX_OBJECTS];
/* Local Darwin's harness names some bytes (rl_named[k][i] set): the description leaves
   them out. */
static const unsigned char *rl_named[RL_MAX_OBJECTS];
static int rl_recorded_free(void *p) {
  for (int k = 0; k < rl_nobj; ++k)
    if (p && p == rl_obj[k]) {
      rl_freed[k] = 1;
      return 1;
    }
  return 0;
}
)C";

// realloc() of an object the test built moves it without freeing it, and the new
// object is one the test built too: the state after the call holds both, the old as
// the call last left it there (freed, its bytes would hold what the allocator writes,
// glibc's tcache key, random in every process) and the new (zeroed where the call did
// not write, not whatever the heap held). Every unit's realloc() comes here: the unit's
// through a macro, the others' renamed in their bitcode.
const char *kReallocHook = R"C(
void *realloc(void *p, size_t n); /* under the macro, the unit declared rl_realloc_hook */
void *rl_realloc_hook(void *p, size_t n) {
  for (int k = 0; k < rl_nobj; ++k)
    if (p && p == rl_obj[k]) {
      char *q = calloc(1, n ? n : 1);
      if (!q)
        return NULL;
      memcpy(q, p, rl_size[k] < n ? rl_size[k] : n);
      rl_freed[k] = 1;
      if (rl_nobj < RL_MAX_OBJECTS) {
        rl_obj[rl_nobj] = q;
        rl_size[rl_nobj] = n;
        rl_phase[rl_nobj] = 0;
        rl_named[rl_nobj] = NULL;
        ++rl_nobj;
      }
      return q;
    }
  return realloc(p, n);
}
)C";

// The test links with --wrap=free: every unit's free() comes here.
const char *kWrappedFree = R"C(
void __real_free(void *p);
void __wrap_free(void *p) {
  if (!rl_recorded_free(p))
    __real_free(p);
}
)C";

// Local Darwin's harness is traced, and the runtime links free() its own way: the
// unit's free() calls come here through a macro instead (others' are not recorded).
const char *kHookedFree = R"C(
void free(void *p); /* <stdlib.h> declared rl_free_hook in its place */
void rl_free_hook(void *p) {
  if (!rl_recorded_free(p))
    free(p);
}
)C";

const char *kCommon = R"C(
static float rl_f32(uint64_t bits) { uint32_t b = (uint32_t)bits; float f; memcpy(&f, &b, 4); return f; }
static double rl_f64(uint64_t bits) { double d; memcpy(&d, &bits, 8); return d; }
static void rl_point(int holder, size_t at, int target, size_t offset) {
  char *p = rl_obj[target] + offset;
  memcpy(rl_obj[holder] + at, &p, sizeof p);
}

/* Whether a word may be an address (near the data, the heap or the stack): such words
   are compared by where they point, not by value, since each build lays memory out
   its own way. */
static int rl_pointer_like(uintptr_t v) {
  int local;
  void *heap = malloc(1);
  uintptr_t refs[4] = {(uintptr_t)&rl_obj, (uintptr_t)heap, (uintptr_t)&local,
                       (uintptr_t)stdout};
  free(heap);
  for (int i = 0; i < 4; ++i)
    if (v + ((uintptr_t)1 << 32) > refs[i] && v < refs[i] + ((uintptr_t)1 << 32))
      return 1;
  return 0;
}
static void rl_pointer_text(char *out, uintptr_t v) {
  for (int k = 0; k < rl_nobj; ++k)
    if (v >= (uintptr_t)rl_obj[k] && v < (uintptr_t)rl_obj[k] + rl_size[k]) {
      sprintf(out, "&o%d+%lu", k, (unsigned long)(v - (uintptr_t)rl_obj[k]));
      return;
    }
  if (v == 0)
    strcpy(out, "NULL");
  else if (rl_pointer_like(v))
    strcpy(out, "ptr");
  else
    sprintf(out, "%#lx", (unsigned long)v);
}

static char rl_state[1 << 20];
static size_t rl_len;
#ifdef RL_HARNESS
/* Local Darwin's harness prints as it goes, numbers through printf: its output is the
   traced run's, each number an output value of its own. */
static void rl_say(const char *text) { fputs(text, stdout); }
#define RL_SAY_NUMBER(format, value) printf(format, value)
#else
static void rl_say(const char *text) {
  size_t n = strlen(text);
  if (rl_len + n < sizeof rl_state) {
    memcpy(rl_state + rl_len, text, n + 1);
    rl_len += n;
  }
}
static char rl_number[96];
#define RL_SAY_NUMBER(format, value) (sprintf(rl_number, format, value), rl_say(rl_number))
#endif

/* A string, escaped, at most 256 bytes of it. */
static void rl_say_text(const char *before, const char *text) {
  char one[8];
  rl_say(before);
  rl_say("\"");
  for (int i = 0; text[i] && i < 256; ++i) {
    unsigned char c = (unsigned char)text[i];
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
      sprintf(one, "%c", c);
    else
      sprintf(one, "\\x%02x", c);
    rl_say(one);
  }
  rl_say("\"");
}

/* What the call prints on stdout and stderr is part of what it does: each stream goes
   to a temporary file during the call and is described after it. (fileno is POSIX: a
   unit built with -std=c99 does not get it from <stdio.h>.) */
int fileno(FILE *stream);
static FILE *rl_captured[3];
static int rl_saved[3];
static void rl_capture_begin(void) {
  fflush(stdout);
  fflush(stderr);
  for (int fd = 1; fd <= 2; ++fd) {
    rl_captured[fd] = tmpfile();
    rl_saved[fd] = dup(fd);
    if (rl_captured[fd])
      dup2(fileno(rl_captured[fd]), fd);
  }
}
static void rl_capture_end(void) {
  fflush(stdout);
  fflush(stderr);
  for (int fd = 1; fd <= 2; ++fd) {
    if (rl_saved[fd] >= 0) {
      dup2(rl_saved[fd], fd);
      close(rl_saved[fd]);
    }
    if (!rl_captured[fd])
      continue;
    rewind(rl_captured[fd]);
    char chunk[512];
    size_t n, total = 0;
    char text[64];
    while ((n = fread(chunk, 1, sizeof chunk, rl_captured[fd])) > 0) {
      if (total == 0)
        rl_say(fd == 1 ? "prints:" : "prints on stderr:");
      for (size_t i = 0; i < n; ++i) {
        unsigned char c = (unsigned char)chunk[i];
        if (c >= 0x20 && c < 0x7f && c != '\\')
          sprintf(text, "%c", c);
        else
          sprintf(text, "\\x%02x", c);
        rl_say(text);
      }
      total += n;
    }
    if (total)
      rl_say("\n");
    fclose(rl_captured[fd]);
  }
}

/* The state after the call: each object's bytes, a word that may be an address
   written as where it points. */
static int rl_named_at(int k, size_t i, size_t n) {
  for (size_t j = i; rl_named[k] && j < i + n; ++j)
    if (rl_named[k][j])
      return 1;
  return 0;
}
/* Addresses of the traced run that the test did not rebuild (rl_build_<i> sets them):
   a word that still holds one is an address, whatever this process's layout. */
static const uint64_t *rl_stale;
static size_t rl_nstale;
static int rl_is_stale(uint64_t v) {
  size_t lo = 0, hi = rl_nstale;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (rl_stale[mid] == v)
      return 1;
    if (rl_stale[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return 0;
}
static void rl_describe_objects(void) {
  char buf[64];
  for (int k = 0; k < rl_nobj; ++k) {
    sprintf(buf, "o%d%s:", k, rl_freed[k] ? " (freed)" : "");
    rl_say(buf);
    for (size_t i = 0; i < rl_size[k];) {
      uintptr_t w;
      if (rl_named_at(k, i, 1)) { /* said by name already */
        rl_say(" ..");
        ++i;
        continue;
      }
      if (i % 8 == rl_phase[k] && i + 8 <= rl_size[k] && !rl_named_at(k, i, 8)) {
        memcpy(&w, rl_obj[k] + i, 8);
        if (w && rl_is_stale(w)) {
          rl_say(" [ptr]");
          i += 8;
          continue;
        }
        if (w && rl_pointer_like(w)) {
          char where[48];
          rl_pointer_text(where, w);
          sprintf(buf, " [%s]", where);
          rl_say(buf);
          i += 8;
          continue;
        }
      }
      sprintf(buf, " %02x", (unsigned char)rl_obj[k][i]);
      rl_say(buf);
      ++i;
    }
    rl_say("\n");
  }
}
)C";

// A global the test names (an extern symbol, or a static of the function's own unit
// under its C name) rather than holding a copy of.
bool reachableByName(const CarvedObject &o) {
  return o.kind == CarvedObject::Kind::Global &&
         (!o.internal || o.otherUnit || isIdentifier(o.global));
}

// The symbol the test links to for a global it names by symbol: an external one's own,
// or the alias the program's rest gives a static of another unit
// (programWithoutUnitBitcode).
std::string linkedSymbol(const CarvedObject &o) {
  return o.internal ? kStaticAliasPrefix + o.global : o.global;
}

// The C expression for the address of each function the call's state holds, and the
// declarations they need (`c`: the call's prefix): a static of the function's unit by
// its name, any other through its symbol (another unit's static: its alias). "" for a
// static of the unit that linking renamed: no name reaches it.
std::vector<std::string> functionExprs(const CarvedCall &call, const std::string &c,
                                       std::ostringstream &decls) {
  std::vector<std::string> out;
  for (size_t k = 0; k < call.functions.size(); ++k) {
    const CarvedFunction &f = call.functions[k];
    if (f.internal && !f.otherUnit) {
      out.push_back(isIdentifier(f.name) ? "(void *)" + f.name : "");
      continue;
    }
    std::string sym = f.internal ? kStaticAliasPrefix + f.name : f.name;
    decls << "extern char " << c << "fn" << k << "[] __asm__(\"" << sym << "\");\n";
    out.push_back("(void *)" + c + "fn" + std::to_string(k));
  }
  return out;
}

// One carved call: its objects, rl_build_<i> that lays them out, and rl_run_<i> that
// makes the call and describes what it returns and leaves.
// `values`: local Darwin's harness, which reads those values before the call (rl_in,
// rl_fl, rl_read_inputs), lets the call print where it prints (its output is traced)
// and names what it leaves (rl_say_values).
std::string callPart(size_t i, const CarvedCall &call, const llvm::Function &fn,
                     const std::vector<LocalValue> *values = nullptr) {
  std::ostringstream s;
  std::string c = "rl_c" + std::to_string(i) + "_";
  std::vector<std::string> functions = functionExprs(call, c, s);
  size_t n = std::min<size_t>(call.objects.size(), 256);
  for (size_t k = 0; k < n; ++k) {
    const CarvedObject &o = call.objects[k];
    bool named = reachableByName(o);
    if (named) {
      if (!o.internal || o.otherUnit)
        s << "extern char " << c << "global" << k << "[] __asm__(\"" << linkedSymbol(o) << "\");\n";
      continue;
    }
    s << "static const unsigned char " << c << "init" << k << "[" << std::max<uint64_t>(o.size, 1)
      << "] = {\n    " << byteList(o.bytes, 0, o.size) << "};\n";
    if (o.kind != CarvedObject::Kind::Heap)
      s << "static _Alignas(16) char " << c << "stack" << k << "[" << std::max<uint64_t>(o.size, 1)
        << "];\n";
  }
  if (!call.staleAddresses.empty()) {
    s << "static const uint64_t " << c << "stale[] = {";
    for (size_t k = 0; k < call.staleAddresses.size(); ++k)
      s << (k % 4 ? " " : "\n    ") << call.staleAddresses[k] << "u,";
    s << "};\n";
  }
  s << "\n/* The state call " << call.occurrence << " of " << fn.getName().str()
    << "() began with. */\nstatic void rl_build_" << i << "(void) {\n  rl_nobj = " << n << ";\n";
  if (call.staleAddresses.empty())
    s << "  rl_stale = NULL;\n  rl_nstale = 0;\n";
  else
    s << "  rl_stale = " << c << "stale;\n  rl_nstale = " << call.staleAddresses.size() << ";\n";
  for (size_t k = 0; k < n; ++k) {
    const CarvedObject &o = call.objects[k];
    std::string obj = "  rl_obj[" + std::to_string(k) + "]";
    s << "  rl_size[" << k << "] = " << o.size << ";\n";
    s << "  rl_phase[" << k << "] = " << o.firstWord() << ";\n";
    bool named = reachableByName(o);
    if (o.kind == CarvedObject::Kind::Heap) {
      s << obj << " = malloc(" << std::max<uint64_t>(o.size, 1) << ");\n"
        << "  memcpy(rl_obj[" << k << "], " << c << "init" << k << ", " << o.size << ");\n";
    } else if (!named) { // a local, or a static local no C name reaches: a copy
      s << obj << " = " << c << "stack" << k << ";\n"
        << "  memcpy(rl_obj[" << k << "], " << c << "init" << k << ", " << o.size << ");\n";
    } else {
      s << obj << " = (char *)"
        << (o.internal && !o.otherUnit ? "&" + o.global : c + "global" + std::to_string(k))
        << ";\n";
      // Only the bytes the trace gives: the rest keep the program's own initial values. A
      // read-only global is the program's own already (and cannot be written).
      for (size_t b = 0; b < o.size && !o.constant;) {
        if (!o.known[b]) {
          ++b;
          continue;
        }
        size_t e = b;
        while (e < o.size && o.known[e])
          ++e;
        s << "  memcpy(rl_obj[" << k << "] + " << b << ", (const unsigned char[]){"
          << byteList(o.bytes, b, e) << "}, " << (e - b) << ");\n";
        b = e;
      }
    }
  }
  // A read-only global the test names holds the program's own pointers (and cannot be
  // written).
  for (const CarvedPointer &p : call.pointers)
    if (p.object < n && p.target < n &&
        !(reachableByName(call.objects[p.object]) && call.objects[p.object].constant))
      s << "  rl_point(" << p.object << ", " << p.offset << ", " << p.target << ", "
        << p.targetOffset << ");\n";
  for (const CarvedFunctionWord &w : call.functionWords)
    if (w.object < n && !functions[w.function].empty() &&
        !(reachableByName(call.objects[w.object]) && call.objects[w.object].constant))
      s << "  { void *rl_f = " << functions[w.function] << "; memcpy(rl_obj[" << w.object << "] + "
        << w.offset << ", &rl_f, sizeof rl_f); }\n";
  s << "}\n";

  llvm::Type *ret = fn.getReturnType();
  std::string name = fn.getName().str(), args;
  for (unsigned k = 0; k < fn.arg_size(); ++k) {
    std::string arg = argExpr(call, fn, k, functions);
    for (size_t j = 0; values && j < values->size(); ++j)
      if ((*values)[j].arg == k)
        arg = ((*values)[j].isFloat ? "rl_fl[" : "rl_in[") + std::to_string(j) + "]";
    args += (k ? ", " : "") + arg;
  }
  std::string captured = values ? "" : "  rl_capture_end();\n";
  s << "\nstatic void rl_run_" << i << "(void) {\n  char buf[96];\n  rl_build_" << i << "();\n"
    << (values ? "  rl_read_inputs();\n" : "  rl_capture_begin();\n");
  if (ret->isVoidTy()) {
    s << "  " << name << "(" << args << ");\n" << captured << "  rl_say(\"returns\\n\");\n";
  } else if (ret->isPointerTy()) {
    s << "  uintptr_t r = (uintptr_t)" << name << "(" << args << ");\n"
      << captured << "  char where[48];\n  rl_pointer_text(where, r);\n";
    // A string the function returns (a literal, a buffer) is compared by its text, and
    // by where it is when that is a carved object.
    if (returnsCharPointer(fn))
      s << "  if (r && where[0] != '&')\n    rl_say_text(\"returns \", (const char *)r);\n"
        << "  else {\n    sprintf(buf, \"returns %s\", where);\n    rl_say(buf);\n"
        << "    if (r)\n      rl_say_text(\" \", (const char *)r);\n  }\n";
    else
      s << "  sprintf(buf, \"returns %s\", where);\n  rl_say(buf);\n";
    s << "  rl_say(\"\\n\");\n";
  } else if (ret->isFloatTy() || ret->isDoubleTy()) {
    s << "  double r = " << name << "(" << args << ");\n"
      << captured
      // The harness's numbers are read by people: to the last digit, not in hex.
      << "  RL_SAY_NUMBER(\"returns " << (values ? "%.17g" : "%a") << "\\n\", r);\n";
  } else {
    s << "  long long r = (long long)" << name << "(" << args << ");\n"
      << captured << "  RL_SAY_NUMBER(\"returns %lld\\n\", r);\n";
  }
  // The harness names what the call leaves in the values it read or wrote first: a
  // difference there is the first one, and its slice does not hold the description's
  // branches on other bytes (is this word an address?).
  s << (values ? "  rl_say_values();\n" : "") << "  rl_describe_objects();\n}\n";
  return s.str();
}

// `harness`: local Darwin's program (no cmocka; free() hooked by a macro, since the
// runtime of the traced build links free() its own way).
std::string prologue(const llvm::Function &fn, const std::string &what, bool harness = false) {
  std::ostringstream s;
  s << "/* " << what << "\n"
    << " * Build: compile with the flags of " << fn.getName().str() << "'s unit and\n"
    << " *   -DRL_UNIT_SOURCE='\"path/to/its/file.c\"', link with the program's other units\n"
    << " *   (their main renamed rootline_program_main)"
    << (harness ? ". */\n" : ", -lcmocka and -Wl,--wrap=free. */\n");
  if (harness)
    s << "#define RL_HARNESS 1\n#define free rl_free_hook\n";
  // The hook is declared by hand, not by <stdlib.h>: the unit's own feature macros
  // (`#define _POSIX_C_SOURCE 200809L` above its includes, for getopt and optarg) must
  // come before any libc header. <stddef.h> is the compiler's and sets none.
  s << "#define realloc rl_realloc_hook\n#include <stddef.h>\n"
    << "void *rl_realloc_hook(void *, size_t);\n"
    << (harness ? "void rl_free_hook(void *);\n" : "")
    << "#define main rootline_program_main\n#include RL_UNIT_SOURCE\n#undef main\n"
    << (harness ? "#undef free\n" : "") << "#undef realloc\n\n"
    << "#include <setjmp.h>\n#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n"
    << "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <sys/wait.h>\n"
    << "#include <unistd.h>\n\n"
    << (harness ? "" : "#include <cmocka.h>\n") << kObjects
    << (harness ? kHookedFree : kWrappedFree) << kReallocHook << kCommon;
  return s.str();
}

} // namespace

std::string callRecorderSource(const std::vector<const CarvedCall *> &calls,
                               const llvm::Function &fn) {
  std::ostringstream s;
  s << prologue(fn, "rootline: each carved call of " + fn.getName().str() +
                        "() made again, in a child process each; prints what each returns and "
                        "leaves.");
  for (size_t i = 0; i < calls.size(); ++i)
    s << "\n" << callPart(i, *calls[i], fn);
  s << "\nint main(void) {\n";
  for (size_t i = 0; i < calls.size(); ++i)
    s << "  printf(\"=== call " << calls[i]->occurrence << " ===\\n\");\n"
      << "  fflush(stdout);\n"
      << "  if (fork() == 0) {\n    alarm(1); /* a call that does not return within 1 s ends here "
         "*/\n    rl_run_"
      << i << "();\n    fputs(rl_state, stdout);\n    fflush(stdout);\n    _exit(0);\n  }\n"
      << "  {\n    int st = 0;\n    wait(&st);\n"
      << "    if (WIFSIGNALED(st))\n      printf(\"ends with signal %d\\n\", WTERMSIG(st));\n"
      << "    else if (WEXITSTATUS(st) != 0)\n"
      << "      printf(\"ends with exit %d\\n\", WEXITSTATUS(st));\n  }\n";
  s << "  return 0;\n}\n";
  return s.str();
}

std::map<uint64_t, std::string> recordedCalls(const std::string &output) {
  std::map<uint64_t, std::string> out;
  std::optional<uint64_t> current;
  size_t at = 0;
  while (at < output.size()) {
    size_t end = output.find('\n', at);
    std::string line = output.substr(at, end == std::string::npos ? std::string::npos : end - at);
    at = end == std::string::npos ? output.size() : end + 1;
    unsigned long long k = 0;
    if (std::sscanf(line.c_str(), "=== call %llu ===", &k) == 1 && line.ends_with(" ===")) {
      current = k;
      out[k];
      continue;
    }
    if (current)
      out[*current] += line + "\n";
  }
  return out;
}

std::string recordedEnd(const std::string &result) {
  size_t at = result.rfind("ends with ");
  if (at == std::string::npos || (at > 0 && result[at - 1] != '\n'))
    return "returns";
  return result.substr(at, result.find('\n', at) - at);
}

std::string differentialTestSource(const CarvedCall &call, const llvm::Function &fn,
                                   const std::string &origin, const std::string &expected) {
  std::ostringstream s;
  std::string name = fn.getName().str();
  s << prologue(fn, "Differential unit test carved by rootline from " + origin + ":\n * call " +
                        std::to_string(call.occurrence) + " of " + name +
                        "(), made again with the state it began with (its arguments and the " +
                        std::to_string(call.objects.size()) +
                        " object(s) it read, whole, pointers relocated).\n * It passes on the "
                        "old version and fails on the new one.");
  s << "\n" << callPart(0, call, fn);
  std::string testName = "test_" + name + "_call_" + std::to_string(call.occurrence);
  // A call that does not return on the old version (an error raised with no handler
  // set aborts): the test makes it in a child and expects the same end.
  if (std::string how = recordedEnd(expected); how != "returns") {
    s << "\n/* The old version's " << name << " does not return in that state: it " << how
      << ". */\n";
    s << "static void " << testName << "(void **unused) {\n  (void)unused;\n"
      << "  char got[64] = \"returns\";\n  int st = 0;\n  fflush(stdout);\n"
      << "  pid_t pid = fork();\n  if (pid == 0) {\n    alarm(1);\n    rl_run_0();\n"
      << "    _exit(0);\n  }\n  waitpid(pid, &st, 0);\n  if (WIFSIGNALED(st))\n"
      << "    sprintf(got, \"ends with signal %d\", WTERMSIG(st));\n"
      << "  else if (WEXITSTATUS(st) != 0)\n"
      << "    sprintf(got, \"ends with exit %d\", WEXITSTATUS(st));\n"
      << "  assert_string_equal(got, " << cString(how) << ");\n}\n\n";
  } else {
    s << "\n/* What the old version's " << name << " returns and leaves in that state. */\n"
      << "static const char rl_expected[] =\n    " << cString(expected) << ";\n\n";
    s << "static void " << testName << "(void **unused) {\n  (void)unused;\n  rl_run_0();\n"
      << "  assert_string_equal(rl_state, rl_expected);\n}\n\n";
  }
  s << "int main(void) {\n  const struct CMUnitTest tests[] = {cmocka_unit_test(" << testName
    << ")};\n  return cmocka_run_group_tests(tests, NULL, NULL);\n}\n";
  return s.str();
}

namespace {

// A C type of a value's width: int32_t, uint8_t, double.
std::string cType(const LocalValue &v) {
  if (v.isFloat)
    return v.bytes == 4 ? "float" : "double";
  return std::string(v.isSigned ? "int" : "uint") + std::to_string(v.bytes * 8) + "_t";
}

// A floating-point value, exactly, as a C constant.
std::string floatLiteral(const LocalValue &v) {
  double d = 0;
  if (v.bytes == 4) {
    uint32_t bits = static_cast<uint32_t>(v.value);
    float f;
    std::memcpy(&f, &bits, 4);
    d = f;
  } else {
    std::memcpy(&d, &v.value, 8);
  }
  if (std::isnan(d))
    return "__builtin_nan(\"\")";
  if (std::isinf(d))
    return d < 0 ? "-__builtin_inf()" : "__builtin_inf()";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", d);
  return buf;
}

std::string where(const LocalValue &v) {
  return "*(" + cType(v) + " *)(rl_obj[" + std::to_string(v.object) + "] + " +
         std::to_string(v.offset) + ")";
}

} // namespace

std::string localHarnessSource(const CarvedCall &call, const llvm::Function &fn,
                               const std::vector<LocalValue> &values) {
  std::string names;
  for (const auto &v : values)
    if (v.input)
      names += (names.empty() ? "" : ", ") + v.name;
  std::ostringstream s;
  s << prologue(fn,
                "rootline local Darwin: call " + std::to_string(call.occurrence) + " of " +
                    fn.getName().str() +
                    "(), made again with the state it began with, except the values read "
                    "from stdin (one number each, in this order):\n *   " +
                    names + "\n * It prints what the call prints, returns and leaves.",
                true);
  s << "\nenum { RL_VALUES = " << values.size() << " };\n"
    << "static long long rl_in[RL_VALUES + 1] = {";
  for (const auto &v : values)
    s << (v.isFloat ? 0 : v.value) << "LL, ";
  s << "0};\nstatic double rl_fl[RL_VALUES + 1] = {";
  for (const auto &v : values)
    s << (v.isFloat ? floatLiteral(v) : "0") << ", ";
  s << "0};\n\n/* Each input in turn; where the input ends the rest keep their carved values. */\n"
    << "static void rl_read_inputs(void) {\n";
  for (size_t j = 0; j < values.size(); ++j)
    if (values[j].input)
      s << "  if (scanf(\"" << (values[j].isFloat ? "%lf" : "%lld") << "\", &"
        << (values[j].isFloat ? "rl_fl[" : "rl_in[") << j << "]) != 1)\n    goto stored;\n";
  s << "stored:;\n";
  for (size_t j = 0; j < values.size(); ++j) {
    const LocalValue &v = values[j];
    if (v.input && !v.arg)
      s << "  " << where(v) << " = (" << cType(v) << ")" << (v.isFloat ? "rl_fl[" : "rl_in[") << j
        << "]; /* " << v.name << " */\n";
  }
  // The named bytes, left out of the description of the objects.
  std::map<size_t, std::vector<const LocalValue *>> named;
  for (const auto &v : values)
    if (v.output && !v.arg)
      named[v.object].push_back(&v);
  s << "}\n\n";
  for (const auto &[object, list] : named)
    s << "static unsigned char rl_named_" << object << "["
      << std::max<uint64_t>(call.objects[object].size, 1) << "];\n";
  s << "static void rl_name_values(void) {\n";
  for (const auto &[object, list] : named) {
    s << "  rl_named[" << object << "] = rl_named_" << object << ";\n";
    for (const LocalValue *v : list)
      s << "  memset(rl_named_" << object << " + " << v->offset << ", 1, " << v->bytes << ");\n";
  }
  // What the call leaves in each value it read or wrote, by name: the first difference
  // a report names.
  s << "}\n\nstatic void rl_say_values(void) {\n";
  for (const auto &[object, list] : named)
    for (const LocalValue *v : list) {
      if (v->isFloat)
        s << "  RL_SAY_NUMBER(\"leaves " << v->name << " = %.17g\\n\", (double)" << where(*v)
          << ");\n";
      else
        s << "  RL_SAY_NUMBER(\"leaves " << v->name << " = %" << (v->isSigned ? "lld" : "llu")
          << "\\n\", (" << (v->isSigned ? "long long" : "unsigned long long") << ")" << where(*v)
          << ");\n";
    }
  s << "}\n\n" << callPart(0, call, fn, &values);
  s << "\nint main(void) {\n  rl_name_values();\n  rl_run_0();\n  return 0;\n}\n";
  return s.str();
}

OtherNames otherNamesFor(const std::map<std::string, std::string> &renames, bool restIsNew,
                         bool carvedInNew) {
  OtherNames out;
  if (restIsNew == carvedInNew)
    return out; // the test names the carved version's own symbols
  for (const auto &[oldName, newName] : renames)
    if (restIsNew)
      out.emplace(newName, oldName);
    else
      out.emplace(oldName, newName);
  return out;
}

fs::path programWithoutUnitBitcode(const llvm::Module &module, const std::string &moduleKey,
                                   const llvm::Function &fn, const OtherNames &otherNames) {
  const llvm::DICompileUnit *cu = fn.getSubprogram() ? fn.getSubprogram()->getUnit() : nullptr;
  if (!cu)
    throw Error(fn.getName().str() + " has no compile unit in the debug information");
  // A warm cache compiles nothing: the object is kept by module and unit.
  Hasher key;
  key.add("rootline-unit-rest-v6")
      .add(moduleKey)
      .add(cu->getDirectory().str())
      .add(cu->getFilename().str());
  for (const auto &[name, other] : otherNames)
    key.add(name).add(other);
  fs::path dir = cacheRoot() / "unit-rest" / key.hex();
  // Named by its key: linkBitcodeModule takes a name for the content.
  fs::path out = dir / ("rest-" + key.hex() + ".bc");
  if (fs::exists(out))
    return out;
  std::unique_ptr<llvm::Module> rest = llvm::CloneModule(module);
  // The clone has its own copies of the debug metadata: units compare by file.
  auto sameUnit = [&](const llvm::DICompileUnit *u) {
    return u && u->getFilename() == cu->getFilename() && u->getDirectory() == cu->getDirectory();
  };
  auto inUnit = [&](const llvm::DIScope *scope) {
    while (scope) {
      if (auto *u = llvm::dyn_cast<llvm::DICompileUnit>(scope))
        return sameUnit(u);
      if (auto *sp = llvm::dyn_cast<llvm::DISubprogram>(scope))
        return sameUnit(sp->getUnit());
      scope = scope->getScope();
    }
    return false;
  };
  // The unit's definitions come from the test, which includes its source.
  std::vector<llvm::Function *> dropped;
  for (llvm::Function &f : *rest)
    if (!f.isDeclaration() && f.getSubprogram() && sameUnit(f.getSubprogram()->getUnit()))
      dropped.push_back(&f);
  for (llvm::Function *f : dropped) {
    f->deleteBody();
    f->setLinkage(llvm::GlobalValue::ExternalLinkage);
    f->setComdat(nullptr);
  }
  std::vector<llvm::GlobalVariable *> droppedVars;
  for (llvm::GlobalVariable &g : rest->globals()) {
    llvm::SmallVector<llvm::DIGlobalVariableExpression *, 1> dis;
    g.getDebugInfo(dis);
    bool ours = false;
    for (auto *e : dis)
      ours |= e->getVariable() && inUnit(e->getVariable()->getScope());
    if (ours && !g.isDeclaration())
      droppedVars.push_back(&g);
  }
  for (llvm::GlobalVariable *g : droppedVars) {
    g->eraseMetadata(llvm::LLVMContext::MD_dbg); // its debug info stays with the unit
    g->setInitializer(nullptr);
    g->setLinkage(llvm::GlobalValue::ExternalLinkage);
    g->setComdat(nullptr);
  }
  // Declarations of the unit's internal symbols that nothing uses any more go.
  for (auto it = rest->begin(); it != rest->end();) {
    llvm::Function &f = *it++;
    if (f.isDeclaration() && f.use_empty() &&
        std::find(dropped.begin(), dropped.end(), &f) != dropped.end())
      f.eraseFromParent();
  }
  for (auto it = rest->global_begin(); it != rest->global_end();) {
    llvm::GlobalVariable &g = *it++;
    if (g.isDeclaration() && g.use_empty() &&
        std::find(droppedVars.begin(), droppedVars.end(), &g) != droppedVars.end())
      g.eraseFromParent();
  }
  // The other units' statics get an external alias each, so that a test can point at
  // the program's own object (a keyword table whose entries point at string literals)
  // rather than at a copy of the few bytes the call read.
  std::vector<llvm::GlobalValue *> statics; // variables and functions (a callback)
  for (llvm::GlobalVariable &g : rest->globals())
    statics.push_back(&g);
  for (llvm::Function &f : *rest)
    statics.push_back(&f);
  for (llvm::GlobalValue *g : statics) {
    if (!g->hasLocalLinkage() || g->isDeclaration() || !g->hasName() ||
        g->getName().starts_with("llvm."))
      continue;
    auto *alias = llvm::GlobalAlias::create(g->getValueType(), g->getAddressSpace(),
                                            llvm::GlobalValue::ExternalLinkage,
                                            kStaticAliasPrefix + g->getName().str(), g, rest.get());
    alias->setVisibility(llvm::GlobalValue::HiddenVisibility);
  }
  // A symbol the change renamed also answers to the carved version's name, unless this
  // version has a symbol of that name of its own.
  for (const auto &[name, other] : otherNames) {
    llvm::GlobalValue *g = rest->getNamedValue(name);
    if (!g || g->isDeclaration() || g->getName().starts_with("llvm."))
      continue;
    std::string symbol = g->hasLocalLinkage() ? kStaticAliasPrefix + other : other;
    if (rest->getNamedValue(symbol) || rest->getNamedValue(other))
      continue;
    auto *alias =
        llvm::GlobalAlias::create(g->getValueType(), g->getAddressSpace(),
                                  llvm::GlobalValue::ExternalLinkage, symbol, g, rest.get());
    alias->setVisibility(llvm::GlobalValue::HiddenVisibility);
  }
  if (llvm::Function *m = rest->getFunction("main"); m && !m->isDeclaration())
    m->setName("rootline_program_main");
  // The other units' realloc() calls come to the test's hook, as the unit's own do
  // through a macro (kReallocHook).
  if (llvm::Function *r = rest->getFunction("realloc"); r && r->isDeclaration())
    r->setName("rl_realloc_hook");
  fs::create_directories(dir);
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  llvm::WriteBitcodeToFile(*rest, os);
  os.flush();
  writeFileAtomic(out, bytes); // another job may be filling the same cache entry
  return out;
}

fs::path programWithoutUnit(const llvm::Module &module, const std::string &moduleKey,
                            const llvm::Function &fn, double timeoutSeconds,
                            const OtherNames &otherNames) {
  fs::path bc = programWithoutUnitBitcode(module, moduleKey, fn, otherNames);
  fs::path obj = bc.parent_path() / "rest.o";
  if (fs::exists(obj))
    return obj;
  // Temporary names keep their extensions: clang goes by them.
  fs::path tmp = bc.parent_path() / ("rest.tmp" + std::to_string(getpid()) + ".o");
  ProcessSpec spec;
  // No debug info: the unit's static locals, now the test's, would be named in it.
  spec.argv = {clangPath(), "-c", "-O0", "-g0", "-w", bc.string(), "-o", tmp.string()};
  spec.timeoutSeconds = timeoutSeconds;
  ProcessResult r = runProcess(spec);
  std::error_code ec;
  if (!r.exitedWith(0)) {
    fs::remove(tmp, ec);
    throw Error(r.timedOut
                    ? "the budget ended while the program without " + fn.getName().str() +
                          "'s unit was compiled"
                    : "the program without " + fn.getName().str() + "'s unit does not compile",
                ExitBadInput, r.err);
  }
  fs::rename(tmp, obj); // atomic: another job may be filling the same cache entry
  return obj;
}

fs::path buildDifferentialTest(const std::string &source, const UnitSource &unit,
                               const fs::path &restObject, const std::vector<std::string> &libs,
                               const std::vector<std::string> &linkFlags, const fs::path &dir,
                               double timeoutSeconds) {
  fs::create_directories(dir);
  writeFileAtomic(dir / "test.c", source);
  // Built from a copy in the cache named by its content, and cached by the unit's
  // preprocessed text, the rest's object (named by its content) and the link: the
  // changed function's whole unit is compiled again only when something changed.
  fs::path src = buildcache::sourceByContent(
      "differential-test", "rootline-differential-test-source-v1", "test.c", source);
  TranslationUnit tu;
  tu.source = src;
  tu.flags = withInlineKeyword(unit.flags);
  tu.flags.push_back("-DRL_UNIT_SOURCE=\"" + unit.path.string() + "\"");
  tu.workDir = unit.workDir;
  std::vector<std::string> link = {restObject.string(), "-Wl,--wrap=free"};
  link.insert(link.end(), linkFlags.begin(), linkFlags.end());
  for (const auto &l : libs)
    link.push_back("-l" + l);
  link.insert(link.end(), {"-lcmocka", "-lm"});
  Hasher key;
  key.add("rootline-differential-test-v1").add(buildcache::translationUnitKey(tu));
  for (const auto &a : link)
    key.add(a);
  fs::path exe = buildcache::executable(key.hex());
  buildcache::buildOnce(exe, [&] {
    buildcache::prepare(exe);
    fs::path tmp = exe;
    tmp += uniqueTempSuffix();
    ProcessSpec spec;
    spec.argv = {clangPath(), "-O0", "-g", "-w"};
    // The unit is compiled again as its build did, by clang: what gcc only warns about
    // (`getopt` undeclared under `-std=c11`) must not stop it here either.
    spec.argv.insert(spec.argv.end(), lenientDiagnosticFlags().begin(),
                     lenientDiagnosticFlags().end());
    spec.argv.insert(spec.argv.end(), tu.flags.begin(), tu.flags.end());
    spec.argv.push_back(src.string());
    spec.argv.insert(spec.argv.end(), link.begin(), link.end());
    spec.argv.insert(spec.argv.end(), {"-o", tmp.string()});
    spec.workDir = unit.workDir.string();
    spec.timeoutSeconds = timeoutSeconds;
    ProcessResult r = runProcess(spec);
    if (!r.exitedWith(0)) {
      std::error_code ec;
      fs::remove(tmp, ec);
      std::string first = r.timedOut ? "the budget ended" : firstErrorLine(r.err);
      throw Error("the differential unit test does not build: " + first, ExitBadInput, r.err);
    }
    fs::rename(tmp, exe);
  });
  return exe;
}

} // namespace rootline
