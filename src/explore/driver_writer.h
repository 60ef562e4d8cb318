// The unit driver generator, shared by its parts (private to src/explore; docs/explore.md,
// "Unit mode"). The function's parameters and the globals of its file are read from the
// debug information of the program's module; each becomes C code in the driver that
// reads its value, or its shape, as a number.
//
// Pointers to structs are initialised lazily in the sense of Khurshid, Pasareanu and
// Visser: a number read when the pointer is built chooses NULL (0), a fresh object (1)
// or an existing object of the same type (k >= 2: the (k-2)-th), within --max-depth and
// --max-objects. The choice is an input like any other, so the exploration forks on it
// exactly where the function's behaviour depends on it (and, with --strategy rsc, only
// there). A function pointer is a number choosing among the file's address-taken
// functions of the same signature: the solver picks the target.
//
// The parts, by idea:
//   unit_harness.cpp     makeUnitHarness: the function, its file's globals, the recipe
//   driver_writer.cpp    DriverWriter::write: the driver's sections, in C's order
//   driver_types.cpp     debug types as the driver sees them: spelled and classified
//   driver_fill.cpp      statements that read a value: scalars, pointers, structs, arrays
//   driver_print.cpp     statements that print a value
//   driver_tags.cpp      values a tag decides: tagged unions, `void *` payloads
//   driver_objects.cpp   lazily built objects: the struct and array helpers
//   driver_runtime.cpp   the driver's fixed part (kDriverRuntime)
#pragma once

#include "void_payloads.h"

#include "rootline/unit_harness.h"

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DebugInfoMetadata.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace rootline::unit_driver {

namespace dw = llvm::dwarf;

// Parameters or globals: each name with its debug type.
using NamedTypes = std::vector<std::pair<std::string, const llvm::DIType *>>;

// The driver's fixed part, written after the function's file (driver_runtime.cpp).
extern const char *const kDriverRuntime;

// ---- Debug types as the driver sees them (driver_types.cpp) ----

bool isQualifier(unsigned tag);
// Typedefs and qualifiers say nothing about what a value is.
const llvm::DIType *stripped(const llvm::DIType *t);
// Qualifiers off, typedef names kept: how a declaration spells the type.
const llvm::DIType *unqualified(const llvm::DIType *t);
// The length of a one-dimensional array type of fixed size; 0 for any other array.
uint64_t fixedLength(const llvm::DICompositeType *array);
std::string identifierOf(std::string s);

// How C spells the type; "" when it cannot (an anonymous struct).
std::string spell(const llvm::DIType *t);
std::string spellOr(const llvm::DIType *t, const std::string &fallback);
// `ret (*name)(params)` for a function type.
std::string declarator(const llvm::DISubroutineType *fn, const std::string &inner);

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

Classified classify(const llvm::DIType *raw);
// Whether a value of the type is numbers only (no pointer anywhere in it).
bool holdsOnlyValues(const llvm::DIType *raw, unsigned nesting = 0);
bool isVoidPointer(const llvm::DIType *raw);
// A type a tag can have: a number the driver reads.
bool isTagType(const llvm::DIType *raw);
// How the driver builds a value of the type, for tests and sidecars (UnitInput::how).
std::string kindText(const llvm::DIType *raw);

// ---- Values a tag decides (driver_tags.cpp) ----

// A tagged union: a struct with an enum member (the tag) and a union member. Each
// enumerator goes with the union member whose name it contains (EXPR_BIN and `bin`),
// else the member at its position, else the first.
struct TaggedUnion {
  const llvm::DIDerivedType *tag = nullptr, *un = nullptr;
  std::vector<std::pair<std::string, const llvm::DIDerivedType *>> cases; // enumerator, member
};

TaggedUnion taggedUnion(const llvm::DICompositeType *comp);
// The lvalue of union member `alt` in struct lvalue `lv`.
std::string unionMember(const std::string &lv, const TaggedUnion &t,
                        const llvm::DIDerivedType *alt);
// `if (lv.tag == A) { ... } else if (lv.tag == B) { ... } else { first member }`.
void forEachTag(std::ostringstream &o, const std::string &lv, const TaggedUnion &t,
                const std::string &indent,
                const std::function<void(const llvm::DIDerivedType *, const std::string &)> &body);
// `tag == SHAPE_RECT || tag == 7`: enumerators by name where the tag is an enum.
std::string tagCondition(const std::string &tagLv, const llvm::DIType *tagType,
                         const std::vector<int64_t> &values);

// A `void *` member whose types a tag member names (void_payloads.h).
struct MemberPayload {
  const llvm::DIDerivedType *member = nullptr, *tag = nullptr; // tag: null when untagged
  const VoidPayload *payload = nullptr;
};

// ---- The writer ----

// Writes one function's driver. The statements that fill and print values come first;
// they discover the struct and array types whose helpers the driver then needs.
class DriverWriter {
public:
  DriverWriter(const llvm::Module &module, const llvm::Function &function,
               const UnitOptions &options, const fs::path &definingSource,
               const std::vector<const llvm::Module *> &units, const llvm::Module &definingUnit);

  // The driver's C text; `inputs` gets what it builds for each global and parameter.
  std::string write(const NamedTypes &params, const NamedTypes &globals,
                    std::vector<UnitInput> &inputs);

  const std::vector<std::string> &notes() const { return notes_; }

private:
  // The driver's generated sections, filled in discovery order and written in C's.
  struct Sections {
    std::ostringstream build;      // rl_build: globals and arguments read
    std::ostringstream state;      // rl_print_state: globals and struct arguments
    std::ostringstream decls;      // the arguments' variables
    std::ostringstream call;       // the call's argument list
    std::ostringstream structs;    // struct helpers' objects and declarations
    std::ostringstream structFill; // struct helpers' definitions
    std::ostringstream arrays;     // array helpers
    std::ostringstream printers;   // rl_print_state: the objects built
  };

  // driver_writer.cpp: set-up, notes, and the sections in order.
  void collectCompleteTypes(const llvm::Module &definingUnit);
  void collectFunctionCandidates();
  void note(const std::string &n);
  void fillGlobals(Sections &s, const NamedTypes &globals, std::vector<UnitInput> &inputs);
  void declareParams(Sections &s, const NamedTypes &params, std::vector<UnitInput> &inputs);
  void buildParams(Sections &s, const NamedTypes &params, std::vector<UnitInput> &inputs);
  void writePreamble(std::ostringstream &out, const std::string &fn);
  void writeCall(std::ostringstream &out, const std::string &fn, const llvm::DIType *ret,
                 const Sections &s);

  // driver_fill.cpp: statements that fill lvalue `lv` of type `raw` (at pointer depth
  // `depth`); `what` names it in notes and chosen targets.
  void fill(std::ostringstream &o, const std::string &lv, const llvm::DIType *raw,
            const std::string &depth, const std::string &indent, const std::string &what,
            unsigned nesting = 0);
  void fillStructPointer(std::ostringstream &o, const std::string &lv, const llvm::DIType *raw,
                         const Classified &c, const std::string &depth, const std::string &indent,
                         const std::string &what);
  void fillFunctionPointer(std::ostringstream &o, const std::string &lv, const llvm::DIType *raw,
                           const std::string &indent, const std::string &what);
  void fillStruct(std::ostringstream &o, const std::string &lv, const llvm::DIType *raw,
                  const Classified &c, const std::string &depth, const std::string &indent,
                  const std::string &what, unsigned nesting);
  void fillUnion(std::ostringstream &o, const std::string &lv, const Classified &c,
                 const std::string &depth, const std::string &indent, const std::string &what,
                 unsigned nesting);
  void fillArray(std::ostringstream &o, const std::string &lv, const Classified &c,
                 const std::string &depth, const std::string &indent, const std::string &what,
                 unsigned nesting);

  // driver_print.cpp: statements printing lvalue `lv` (of type `raw`) as `label = value`
  // lines. The label is the C string expression `prefix` (the object's name, built at
  // run time) followed by the literal `suffix`.
  void print(std::ostringstream &o, const std::string &prefix, const std::string &suffix,
             const std::string &lv, const llvm::DIType *raw, const std::string &indent,
             unsigned nesting = 0);
  void printFunctionPointer(std::ostringstream &o, const std::string &prefix,
                            const std::string &suffix, const std::string &lv,
                            const llvm::DIType *raw, const std::string &indent);
  void printStruct(std::ostringstream &o, const std::string &prefix, const std::string &suffix,
                   const std::string &lv, const llvm::DIType *raw, const Classified &c,
                   const std::string &indent, unsigned nesting);
  void printArray(std::ostringstream &o, const std::string &prefix, const std::string &suffix,
                  const std::string &lv, const Classified &c, const std::string &indent,
                  unsigned nesting);

  // driver_tags.cpp: `void *` payloads, built as the types the code uses them as.
  std::vector<MemberPayload> memberPayloads(const llvm::DIType *raw,
                                            const llvm::DICompositeType *comp);
  const VoidPayload *paramPayload(const NamedTypes &params, size_t i, std::optional<size_t> &tag);
  bool buildableHere(const llvm::DIType *pointer);
  // A payload's cases, sorted by what the driver does on each side of the tag.
  struct PayloadCases {
    std::vector<const PayloadCase *> cases; // built for their tag values
    std::set<int64_t> covered;              // the tag values those name
    std::vector<int64_t> unbuilt;           // used as a type the driver cannot build: NULL
    const PayloadCase *other = nullptr;     // built on the else side
    bool otherUnbuilt = false;              // the else side's type cannot be built: NULL
  };
  PayloadCases payloadCases(const VoidPayload &p, const std::string &what);
  void buildPayload(std::ostringstream &o, const std::string &lv, const PayloadCase &c,
                    const std::string &depth, const std::string &in, const std::string &what,
                    unsigned nesting);
  // Statements building `void *` lvalue `lv` as the type the code uses it as for the
  // tag's value: `if (s.kind == SHAPE_CIRCLE) { struct circle *rl_payload = ...; }`. A
  // tag value the code uses as no type gets NULL or an opaque block (rl_opaque).
  void fillPayload(std::ostringstream &o, const std::string &lv, const std::string &tagLv,
                   const llvm::DIType *tagType, const VoidPayload &p, const std::string &depth,
                   const std::string &indent, const std::string &what, unsigned nesting);

  // driver_objects.cpp: the lazily built structs and arrays, and their helpers.
  std::string structId(const llvm::DIType *structType);
  void needStruct(const llvm::DIType *structType, const std::string &spelled);
  std::string arrayId(const llvm::DIType *pointerType);
  void writeStructHelpers(Sections &s);
  void writeStructHelper(Sections &s, const llvm::DIType *t);
  void writeArrayHelpers(Sections &s);
  void writeArrayHelper(Sections &s, const std::string &spelled, const std::string &id,
                        const llvm::DIType *elem);

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

} // namespace rootline::unit_driver
