// Local Darwin's named values (docs/debug.md, "Local Darwin"): read off the function's
// debug types from a carved state built here by hand.
#include "rootline/build.h"
#include "rootline/carve.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <llvm/IR/Module.h>

using namespace rootline;
using namespace rootline::test;

namespace {

// A machine with a union that holds a number or a pointer, reached through a pointer.
const char *kSource = R"(enum kind { K_NUM, K_STR };
struct value { enum kind kind; union { long number; const char *text; struct value *next; } u; };
struct machine { int sp; struct value *stack; double scale; };
int peek(struct machine *m, int depth) {
  struct value *v = &m->stack[m->sp - depth];
  return v->kind == K_NUM ? (int)(v->u.number * m->scale) : -1;
}
int main(void) { return 0; }
)";

CarvedObject object(uint64_t size, const std::vector<std::pair<uint64_t, uint64_t>> &read) {
  CarvedObject o;
  o.size = size;
  o.bytes.assign(size, 0);
  o.known.assign(size, true);
  o.read.assign(size, false);
  o.written.assign(size, false);
  for (auto [from, to] : read)
    for (uint64_t b = from; b < to; ++b)
      o.read[b] = true;
  return o;
}

// The fixture's module, built and loaded.
LoadedModule peekModule(const TempDir &t) {
  return loadModule(buildModule(sourceRecipe(t.path / "main.c", kSource)).bitcode);
}

} // namespace

TEST_CASE("local Darwin names the scalars a call read through its pointer arguments, and never "
          "a union member over a relocated pointer",
          "[localdarwin]") {
  TempDir t;
  LoadedModule loaded = peekModule(t);
  const llvm::Function *peek = loaded.module->getFunction("peek");
  REQUIRE(peek);

  // m (24 bytes: sp, stack, scale) → a stack of two values (16 bytes each). The call
  // read m->sp, m->stack, m->scale, stack[0].u (a pointer the test relocates, to a
  // string it read two bytes of), stack[1].kind and stack[1].u.
  CarvedCall call;
  call.args = {Val{0x1000, 0}, Val{1, 0}};
  call.argTargets = {std::make_pair(size_t{0}, uint64_t{0}), std::nullopt};
  call.objects.push_back(object(24, {{0, 4}, {8, 16}, {16, 24}}));
  call.objects.push_back(object(32, {{8, 16}, {16, 20}, {24, 32}}));
  call.objects.push_back(object(8, {{0, 2}}));
  call.objects[1].bytes[16] = 1;         // stack[1].kind = K_STR
  call.pointers.push_back({0, 8, 1, 0}); // m->stack
  call.pointers.push_back({1, 8, 2, 0}); // stack[0].u.text

  std::vector<LocalValue> values = localValues(call, *peek);
  std::vector<std::string> inputs, printed;
  for (const auto &v : values) {
    if (v.input)
      inputs.push_back(v.name);
    if (v.output)
      printed.push_back(v.name);
  }
  // In parameter order, members in declaration order; through the pointer in stack[0].u
  // to the string's bytes.
  CHECK(inputs == std::vector<std::string>{"m->sp", "m->stack->u.text[0]", "m->stack->u.text[1]",
                                           "m->stack[1].kind", "m->stack[1].u.number", "m->scale",
                                           "depth"});
  // stack[0].u is a relocated pointer: no member of the union is named there.
  CHECK(std::find(printed.begin(), printed.end(), "m->stack->u.number") == printed.end());
  for (const auto &v : values)
    if (v.name == "m->stack[1].kind") {
      REQUIRE(v.enumerators.size() == 2);
      CHECK(v.enumerators[1] == std::make_pair(int64_t{1}, std::string("K_STR")));
      CHECK(v.value == 1);
    } else if (v.name == "m->scale") {
      CHECK(v.isFloat);
      CHECK(v.bytes == 8);
    } else if (v.name == "depth") {
      CHECK(v.arg == 1u);
      CHECK(v.value == 1);
    }
}

TEST_CASE("local Darwin walks the union member whose target is laid out as its struct, a tagged "
          "value holding an object, not a string",
          "[localdarwin]") {
  TempDir t;
  LoadedModule loaded = peekModule(t);
  const llvm::Function *peek = loaded.module->getFunction("peek");
  REQUIRE(peek);
  // stack[0].u points at a 16-byte block: one `struct value`, whose kind the call read.
  CarvedCall call;
  call.args = {Val{0x1000, 0}, Val{2, 0}};
  call.argTargets = {std::make_pair(size_t{0}, uint64_t{0}), std::nullopt};
  call.objects.push_back(object(24, {{0, 4}, {8, 16}}));
  call.objects.push_back(object(16, {{8, 16}}));
  call.objects.push_back(object(16, {{0, 4}}));
  call.pointers.push_back({0, 8, 1, 0}); // m->stack
  call.pointers.push_back({1, 8, 2, 0}); // stack[0].u.next
  std::vector<std::string> inputs;
  for (const auto &v : localValues(call, *peek))
    if (v.input)
      inputs.push_back(v.name);
  CHECK(inputs == std::vector<std::string>{"m->sp", "m->stack->u.next->kind", "depth"});
}

TEST_CASE("local Darwin names the globals a call read or wrote, after its arguments, by their "
          "debug names",
          "[localdarwin]") {
  // State in globals, as many GNU tools keep it: push() takes no argument.
  TempDir t;
  LoadedModule loaded =
      loadModule(buildModule(sourceRecipe(t.path / "main.c", R"(static int limit = 1000;
static int sp;
static int stack[16];
int tok;
const char banner[] = "push";
int push(void) {
  if (sp >= 16)
    return 0;
  stack[sp++] = tok > limit ? limit : tok;
  return 1;
}
int main(void) { return push() + banner[0]; }
)"))
                     .bitcode);
  const llvm::Function *push = loaded.module->getFunction("push");
  REQUIRE(push);
  auto global = [&](const char *name, uint64_t size,
                    std::vector<std::pair<uint64_t, uint64_t>> read) {
    CarvedObject o = object(size, read);
    o.kind = CarvedObject::Kind::Global;
    const llvm::GlobalVariable *g = loaded.module->getGlobalVariable(name, true);
    REQUIRE(g);
    o.global = g->getName().str();
    o.internal = g->hasLocalLinkage();
    o.constant = g->isConstant();
    return o;
  };
  CarvedCall call;
  call.objects.push_back(global("sp", 4, {{0, 4}}));
  call.objects.push_back(global("tok", 4, {{0, 4}}));
  call.objects.push_back(global("limit", 4, {{0, 4}}));
  call.objects.push_back(global("stack", 64, {}));
  call.objects.back().written[0] = call.objects.back().written[1] = true;
  call.objects.back().written[2] = call.objects.back().written[3] = true;
  call.objects.push_back(global("banner", 5, {{0, 1}})); // read-only: never an input
  call.objects[1].bytes[0] = 7;
  call.objects[2].bytes[0] = 5;
  std::vector<LocalValue> values = localValues(call, *push);
  std::vector<std::string> inputs, printed;
  for (const auto &v : values) {
    if (v.input)
      inputs.push_back(v.name);
    if (v.output)
      printed.push_back(v.name);
  }
  CHECK(inputs == std::vector<std::string>{"sp", "tok", "limit"});
  // The element it wrote is printed after the call; the read-only string is not named.
  CHECK(printed == std::vector<std::string>{"sp", "tok", "limit", "stack[0]"});
  for (const auto &v : values)
    if (v.name == "limit")
      CHECK(v.value == 5);
}
