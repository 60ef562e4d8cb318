// Which types a `void *` holds, per value of a tag (docs/explore.md, "Symbolic types").
//
// C code keeps a payload of several types behind a `void *` and a tag that says which:
// `struct shape { enum kind kind; void *data; }` read as `struct circle *c = s->data`
// where `s->kind == CIRCLE`. With opaque pointers the IR does not type the `void *`
// itself, but each place the code uses it does: a local it is stored into (its debug
// type), a parameter it is passed to, a struct it is indexed as, a scalar it is read as.
// The tag value is the branch that leads there: the nearest dominating comparison or
// switch on another member of the same struct (or another parameter of the function).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class DIType;
class Function;
class Module;
} // namespace llvm

namespace rootline {

// One type the code uses the payload as, and the tag values that lead there.
struct PayloadCase {
  std::vector<int64_t> tags;             // the tag equals one of these ...
  bool otherwise = false;                // ... or none of them (an else side, a default)
  const llvm::DIType *pointer = nullptr; // the pointer type it is used as (`struct circle *`)
  std::string site;                      // "shapes.c:31", the first such use
};

struct VoidPayload {
  bool tagged = false; // else every use is unguarded: one type, always
  uint64_t tag = 0;    // the tag: member offset in bits, or argument number (1-based)
  std::vector<PayloadCase> cases;
};

struct VoidPayloads {
  // By struct name (as C names it: `shape` for `struct shape`) and member offset in bits.
  std::map<std::pair<std::string, uint64_t>, VoidPayload> members;
  // The parameters of `function`, by argument number (1-based).
  std::map<unsigned, VoidPayload> params;
};

// Reads every use of a loaded pointer in the module's functions. `units` are the
// program's units' own modules (BuiltModule::unitBitcode), when at hand: a cast to a struct whose
// layout another struct shares is known by its name there, which the linker merged.
VoidPayloads findVoidPayloads(const llvm::Module &module, const llvm::Function &function,
                              const std::vector<const llvm::Module *> &units = {});

} // namespace rootline
