// Carving a differential unit test from a failing run (docs/debug.md, "Differential
// unit test"; the idea of Elbaum et al., "Carving differential unit test cases from
// system test cases", FSE 2006). The trace holds every value a call read: the state of
// one call of the changed function is rebuilt from it (its arguments, and every object
// it read, whole, with pointers between them relocated), the call is made again in a
// cmocka test linked against each version's own code, and the test is kept when it
// passes on the old version and fails on the new one.
#pragma once

#include "rootline/analysed_version.h"
#include "rootline/budget.h"
#include "rootline/replay.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Function;
} // namespace llvm

namespace rootline {

// One object of the carved state, as it was when the call began.
struct CarvedObject {
  enum class Kind { Heap, Stack, Global };
  Kind kind = Kind::Heap;
  uint64_t addr = 0, size = 0;
  std::string global;    // Global: its symbol
  bool internal = false; // Global: internal linkage (reachable by name only in its unit)
  // Global: internal to another unit than the carved function's (`static` in kw.c for a
  // function of rexp3.c): no name reaches it from the test, which holds a copy.
  bool otherUnit = false;
  bool constant = false; // Global: read-only (its bytes are the program's own)
  std::vector<uint8_t> bytes;
  std::vector<bool> known;   // bytes whose value the trace gives (others: 0, or the global's
                             // own initial value)
  std::vector<bool> read;    // bytes the call read before writing them
  std::vector<bool> written; // bytes the call wrote

  // The first offset of a word at an 8-aligned address, where the program keeps its
  // pointers (a block uninstrumented code made may begin anywhere).
  uint64_t firstWord() const { return (8 - addr % 8) % 8; }
};

// A pointer word inside the carved state, or an argument, that points into a carved
// object: relocated in the test to the same offset of the rebuilt object.
struct CarvedPointer {
  size_t object = 0;   // holding object (for an argument: unused)
  uint64_t offset = 0; // its offset there
  size_t target = 0;   // object pointed into
  uint64_t targetOffset = 0;
};

// A function whose address the carved state holds (a callback argument, a method
// table's entry): the test takes the address of the same function in its build.
struct CarvedFunction {
  std::string name;
  bool internal = false;  // static: reachable by name only in its unit
  bool otherUnit = false; // static of another unit than the carved function's
};
// A pointer word inside a carved object that holds a function's address.
struct CarvedFunctionWord {
  size_t object = 0;
  uint64_t offset = 0;
  size_t function = 0; // in CarvedCall::functions
};

struct CarvedCall {
  std::string function;
  uint64_t occurrence = 0;
  std::vector<Val> args;
  // For each argument: the object it points into and the offset, when it does.
  std::vector<std::optional<std::pair<size_t, uint64_t>>> argTargets;
  std::vector<CarvedObject> objects;
  std::vector<CarvedPointer> pointers;
  std::vector<CarvedFunction> functions;
  std::vector<std::optional<size_t>> argFunctions; // per argument: the function it points at
  std::vector<CarvedFunctionWord> functionWords;
  // Words that held an address in the traced run into nothing the test rebuilds (freed
  // memory, an object past the carving's bounds), ascending. Their value means nothing
  // in the test's process, whose memory is laid out another way (with address
  // randomization, on every run): the test describes them as addresses, never as bytes.
  std::vector<uint64_t> staleAddresses;
  uint64_t unknownBytes = 0; // bytes the call read whose value the trace does not give
  uint64_t instances = 0;    // instances the call ran, its callees' included
};

// The calls of `function` during which an instruction of `file`:`line` ran (file
// compared by its path's end), each carved: the first 24 of them and the last 24.
// `stdinBytes` gives the values of the bytes the program read from stdin.
std::vector<CarvedCall> carveCalls(const AnalysedVersion &v, const fs::path &trace,
                                   const std::string &function, const std::string &file,
                                   unsigned line, const std::string &stdinBytes,
                                   const Deadline &deadline);

// A named value of a carved call's state (docs/debug.md, "Local Darwin"): a scalar
// argument, or a scalar field or element of an object an argument reaches, named as C
// writes it ("op->kind", "n", "s[2]", "J->stack[2].u.number"). Local Darwin makes the
// values the call read inputs, and names what the call leaves in those it read or wrote.
struct LocalValue {
  std::string name;
  bool isFloat = false;        // a float or double (`bytes` says which); else an integer
  std::optional<unsigned> arg; // an argument passed by value: its index
  size_t object = 0;           // else: the carved object it lies in, and where
  uint64_t offset = 0;
  unsigned bytes = 0; // 1, 2, 4 or 8
  bool isSigned = true;
  int64_t value = 0; // as carved: the integer, or the floating-point value's bits
  // An enum: its enumerators' names by value, for reports ("K_ADD" rather than 1).
  std::vector<std::pair<int64_t, std::string>> enumerators;
  bool input = false;  // the call read it (and the trace gives it): made an input
  bool output = false; // the call read or wrote it, in an object: printed after the call
};

// The call's scalar arguments, and the scalar fields and elements of what its pointer
// arguments reach (three pointers deep) that the call read or wrote, from the function's
// debug types, in parameter order; then the same of the program's globals the call read
// or wrote (by their debug names: `nrules`, `rules[2].prec`), in carved order; at most
// `maxInputs` inputs and `maxValues` in all.
std::vector<LocalValue> localValues(const CarvedCall &call, const llvm::Function &fn,
                                    size_t maxInputs = 24, size_t maxValues = 48);

} // namespace rootline
