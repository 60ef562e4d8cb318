// IEEE-754 operations over the replay's bit-vector values (docs/symbolic.md, "Floating
// point"). Memory and registers keep a float or double as its 32 or 64 bits; each
// operation converts its operands to Z3's floating-point sort, computes there with the
// rounding the program's code uses on x86-64 (nearest-even for arithmetic, truncation
// for conversions to integers) and converts back. A conversion pair that cancels is
// not built, so `a + b * c` stays one floating-point term.
#pragma once

#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/Type.h>
#include <z3++.h>

#include <optional>
#include <string>
#include <vector>

namespace rootline {

// float and double: the widths the replay keeps symbolic (long double stays concrete).
bool isSymbolicFloat(const llvm::Type *t);

// A float's or double's bits as a floating-point term, and back.
z3::expr floatOfBits(const z3::expr &bits);
z3::expr bitsOfFloat(const z3::expr &fp);

// fadd, fsub, fmul, fdiv over the bits; nullopt for frem (C's fmod: Z3's fp.rem is the
// IEEE remainder, a different function).
std::optional<z3::expr> floatArithmetic(unsigned opcode, const z3::expr &a, const z3::expr &b);
z3::expr floatNegate(const z3::expr &a);

// An fcmp predicate as a condition (ordered predicates are false on NaN, unordered true).
z3::expr floatCompare(llvm::CmpInst::Predicate p, const z3::expr &a, const z3::expr &b);

// fptosi, fptoui, sitofp, uitofp, fpext, fptrunc as x86-64 computes them (an
// out-of-range conversion to an integer gives the "integer indefinite" value, as the
// concrete replay does); nullopt for other casts.
std::optional<z3::expr> floatCast(unsigned opcode, const z3::expr &value, const llvm::Type *from,
                                  const llvm::Type *to);

// libm functions and their intrinsics whose result IEEE-754 defines exactly: fabs,
// floor, ceil, trunc, round, rint, nearbyint, sqrt, fmin, fmax, copysign, fma and
// fmuladd (computed unfused, as x86-64 without FMA does). `name` is the C name or the
// intrinsic's base name ("floor", "llvm.floor"); nullopt for anything else.
std::optional<z3::expr> floatFunction(const std::string &name, const std::vector<z3::expr> &args,
                                      unsigned bits);

// The value of a floating-point numeral term; nullopt for anything else.
std::optional<double> floatNumeral(const z3::expr &fp);

} // namespace rootline
