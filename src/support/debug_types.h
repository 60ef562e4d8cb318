// Small queries on debug-information types, shared by the stages that read C types
// from a module (source names, the unit driver, void * payloads).
#pragma once

#include <string>

namespace llvm {
class DIType;
} // namespace llvm

namespace rootline {

// The type without its typedefs and qualifiers (const, volatile, restrict, _Atomic):
// what a value is, not how a declaration spells it.
const llvm::DIType *strippedType(const llvm::DIType *t);

// The name C code knows a struct or union by: its tag (`shape` for `struct shape`), else
// the typedef naming an anonymous one (`parse_buffer`); "" for other types.
std::string structNameOf(const llvm::DIType *t);

} // namespace rootline
