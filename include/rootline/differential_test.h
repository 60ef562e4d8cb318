// The differential unit test of a carved call (docs/debug.md, "Differential unit test"):
// C source for cmocka that rebuilds the call's state, calls the function and compares
// what it returns and leaves with what the old version's function did; and its build
// against one version's code (that version's unit of the function, through an
// #include of its source, and the program's other units, compiled from the module).
#pragma once

#include "rootline/carve.h"

#include <llvm/IR/Function.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rootline {

// The unit (C file) a function is defined in, and the flags it was compiled with, from
// the command line clang recorded in its debug information.
struct UnitSource {
  fs::path path;
  fs::path workDir;
  std::vector<std::string> flags; // -D, -U, -I, -include, -std and the like
};
std::optional<UnitSource> unitSourceOf(const llvm::Function &fn);

// Why a call of `fn` cannot be made again from C with carved values; none when it can.
std::optional<std::string> untestableSignature(const llvm::Function &fn);

// A program that makes each of `calls` again, each in a child process, and prints
// "=== call N ===" and then what the call returns and leaves ("returns 1", then each
// carved object's bytes, addresses written as where they point).
std::string callRecorderSource(const std::vector<const CarvedCall *> &calls,
                               const llvm::Function &fn);
// The recorder's output, per call occurrence.
std::map<uint64_t, std::string> recordedCalls(const std::string &output);
// How one recorded call ended: its "ends with exit 2" / "ends with signal 6" line, or
// "returns" when it returned.
std::string recordedEnd(const std::string &result);

// The cmocka test of one call: it passes when the call returns and leaves `expected`
// (the old version's recorded result). `origin` says where the call was carved from.
std::string differentialTestSource(const CarvedCall &call, const llvm::Function &fn,
                                   const std::string &origin, const std::string &expected);

// Local Darwin's harness (docs/debug.md, "Local Darwin"): a program that rebuilds the
// call's state, reads the `values` that are inputs from stdin (one number each, in
// order; the carved value where the input ends), makes the call, and prints what it
// prints, returns, leaves in the named values ("leaves m->sp = 2"), then in the rest.
std::string localHarnessSource(const CarvedCall &call, const llvm::Function &fn,
                               const std::vector<LocalValue> &values);

// Names the version whose call was carved gives this version's symbols, where the
// change renamed them: {symbol this module defines → the carved version's name}.
// The rest gives each such symbol its other name too, so that one test source links
// against both versions (a callback `add_word` the new version calls `count_word`).
using OtherNames = std::map<std::string, std::string>;
// The other names of the change's renames (old name → new name) for one version's rest,
// when the call was carved from `carvedInNew`'s version.
OtherNames otherNamesFor(const std::map<std::string, std::string> &renames, bool restIsNew,
                         bool carvedInNew);

// The same as bitcode (with its debug information), named by its content key.
fs::path programWithoutUnitBitcode(const llvm::Module &module, const std::string &moduleKey,
                                   const llvm::Function &fn, const OtherNames &otherNames = {});
// The program `module` (content key `moduleKey`) without the definitions of `fn`'s unit
// and with its main renamed, compiled to an object; cached by key and unit. Throws
// Error when it does not compile within `timeoutSeconds`.
fs::path programWithoutUnit(const llvm::Module &module, const std::string &moduleKey,
                            const llvm::Function &fn, double timeoutSeconds,
                            const OtherNames &otherNames = {});

// Compiles the test (its source written into `dir`) with the unit's flags and links it
// with the rest of the program; returns the executable. Throws Error when it does not
// build, with clang's diagnostics as the detail.
fs::path buildDifferentialTest(const std::string &source, const UnitSource &unit,
                               const fs::path &restObject, const std::vector<std::string> &libs,
                               const std::vector<std::string> &linkFlags, const fs::path &dir,
                               double timeoutSeconds);

} // namespace rootline
