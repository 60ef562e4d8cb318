// The types a `void *` holds per tag value (src/explore/void_payloads.h), read from the
// -O0 IR of real C compiled by clang: the shapes C code tags payloads with.
#include "explore/void_payloads.h"
#include "rootline/build.h"
#include "test_support.h"

#include <catch2/catch.hpp>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Module.h>

using namespace rootline;
using namespace rootline::test;

namespace {

struct Analysed {
  LoadedModule module, unit;
  VoidPayloads payloads;
};

Analysed analyse(const TempDir &t, const std::string &source, const std::string &function) {
  writeText(t.path / "main.c", source);
  BuildRecipe recipe;
  recipe.origin = "test";
  recipe.units.push_back({t.path / "main.c", {}, t.path});
  Analysed a;
  BuiltModule built = buildModule(recipe);
  a.module = loadModule(built.bitcode);
  a.unit = loadModule(built.unitBitcode.front());
  const llvm::Function *f = a.module.module->getFunction(function);
  REQUIRE(f);
  a.payloads = findVoidPayloads(*a.module.module, *f, {a.unit.module.get()});
  return a;
}

// "struct circle *" for a case's pointer type, qualifiers and typedefs named.
std::string spelled(const llvm::DIType *t) {
  std::string out;
  while (auto *d = llvm::dyn_cast_or_null<llvm::DIDerivedType>(t)) {
    if (d->getTag() == llvm::dwarf::DW_TAG_pointer_type)
      out = " *" + out;
    else if (d->getTag() == llvm::dwarf::DW_TAG_const_type)
      out = " const" + out;
    else if (d->getTag() == llvm::dwarf::DW_TAG_typedef)
      return d->getName().str() + out;
    t = d->getBaseType();
  }
  if (auto *c = llvm::dyn_cast_or_null<llvm::DICompositeType>(t))
    return "struct " + c->getName().str() + out;
  if (t)
    return t->getName().str() + out;
  return "void" + out;
}

// Tag values (or "else") -> type, as one line per case.
std::map<std::string, std::string> casesOf(const VoidPayload &p) {
  std::map<std::string, std::string> out;
  for (const PayloadCase &c : p.cases) {
    std::string key = c.otherwise && !c.tags.empty() ? "not" : "";
    for (int64_t v : c.tags)
      key += " " + std::to_string(v);
    out[key.empty() ? "always" : key] = spelled(c.pointer);
  }
  return out;
}

const char *kTypes = "enum kind { NONE, CIRCLE, RECT, TEXT, POINT };\n"
                     "struct circle { int r; };\n"
                     "struct rect { int w, h; };\n"
                     "typedef struct rect rect_t;\n"
                     "struct shape { int id; enum kind kind; void *data; };\n";

} // namespace

TEST_CASE("void payloads: a switch on a sibling member types each case's use of the payload",
          "[explore][unit][payload]") {
  TempDir t;
  std::string src = std::string(kTypes) +
                    "static int rect_area(const rect_t *r) { return r->w * r->h; }\n"
                    "int area(struct shape *s) {\n"
                    "  switch (s->kind) {\n"
                    "  case CIRCLE: { struct circle *c = s->data; return c->r; }\n"
                    "  case RECT: return rect_area(s->data);\n"
                    "  case TEXT: case POINT: return ((char *)s->data)[0];\n"
                    "  default: return *(double *)s->data > 0;\n"
                    "  }\n"
                    "}\n";
  Analysed a = analyse(t, src, "area");
  // `data` is at offset 64 (after two ints), `kind` at 32.
  auto it = a.payloads.members.find({"shape", 64});
  REQUIRE(it != a.payloads.members.end());
  CHECK(it->second.tagged);
  CHECK(it->second.tag == 32);
  auto cases = casesOf(it->second);
  CHECK(cases[" 1"] == "struct circle *");   // a local of that type
  CHECK(cases[" 2"] == "rect_t const *");    // the parameter it is passed to
  CHECK(cases[" 3 4"] == "char *");          // indexed as bytes, both cases
  CHECK(cases["not 1 2 3 4"] == "double *"); // the default: read as a double
  CHECK(cases.size() == 4);
  CHECK(it->second.cases.front().site.find("main.c:") != std::string::npos);
}

TEST_CASE("void payloads: if chains, an inequality, and a tag copied into a local",
          "[explore][unit][payload]") {
  TempDir t;
  std::string src = std::string(kTypes) +
                    "int f(struct shape *s) {\n"
                    "  int k = s->kind;\n"
                    "  if (k == CIRCLE) { struct circle *c = s->data; return c->r; }\n"
                    "  else if (k == RECT) { struct rect *r = s->data; return r->w; }\n"
                    "  return 0;\n"
                    "}\n"
                    "int g(struct shape *s) {\n"
                    "  if (s->kind != RECT) return -1;\n"
                    "  struct rect *r = s->data;\n"
                    "  return r->h;\n"
                    "}\n";
  Analysed a = analyse(t, src, "f");
  auto it = a.payloads.members.find({"shape", 64});
  REQUIRE(it != a.payloads.members.end());
  auto cases = casesOf(it->second);
  CHECK(cases[" 1"] == "struct circle *");
  CHECK(cases[" 2"] == "struct rect *"); // from f and from g's false side of `!=`
  CHECK(cases.size() == 2);
}

TEST_CASE("void payloads: a tag parameter beside a void * parameter, and an untagged context",
          "[explore][unit][payload]") {
  TempDir t;
  std::string src = std::string(kTypes) +
                    "struct counter { int n; };\n"
                    "int visit(void *ctx, int kind, void *item) {\n"
                    "  struct counter *c = ctx;\n"
                    "  c->n++;\n"
                    "  if (kind == CIRCLE) return ((struct circle *)item)->r;\n"
                    "  return 0;\n"
                    "}\n";
  Analysed a = analyse(t, src, "visit");
  REQUIRE(a.payloads.params.count(1));
  CHECK_FALSE(a.payloads.params[1].tagged); // always a counter
  CHECK(casesOf(a.payloads.params[1])["always"] == "struct counter *");
  REQUIRE(a.payloads.params.count(3));
  CHECK(a.payloads.params[3].tagged);
  CHECK(a.payloads.params[3].tag == 2);
  CHECK(casesOf(a.payloads.params[3])[" 1"] == "struct circle *");
  // `struct circle` and `struct counter` have one layout, and the linked module names the
  // cast `%struct.counter`: without the unit's own module the cast is not guessed.
  VoidPayloads linkedOnly =
      findVoidPayloads(*a.module.module, *a.module.module->getFunction("visit"));
  CHECK(linkedOnly.params.count(3) == 0);
  CHECK(casesOf(linkedOnly.params[1])["always"] == "struct counter *");
  // A pointer the code never uses as a type has no entry to build from.
  TempDir u;
  Analysed b = analyse(u, std::string(kTypes) + "int h(void *p) { return p != 0; }\n", "h");
  CHECK(b.payloads.params.count(1) == 0);
}
