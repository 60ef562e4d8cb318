// Small queries on debug-information types, shared by the stages that read C types
// from a module (source names, the unit driver, void * payloads).
#pragma once

#include <string>
#include <vector>

namespace llvm {
class DIType;
class Function;
} // namespace llvm

namespace rootline {

// The type without its typedefs and qualifiers (const, volatile, restrict, _Atomic):
// what a value is, not how a declaration spells it.
const llvm::DIType *strippedType(const llvm::DIType *t);

// The name C code knows a struct or union by: its tag (`shape` for `struct shape`), else
// the typedef naming an anonymous one (`parse_buffer`); "" for other types.
std::string structNameOf(const llvm::DIType *t);

// A function's parameter names, by position, from its debug records ("" where none).
std::vector<std::string> parameterNames(const llvm::Function &fn);

} // namespace rootline
