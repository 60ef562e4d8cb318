// Pure functions that compute LLVM operations on concrete bits with x86-64 semantics.
#pragma once

#include "rootline/replay.h"

#include <llvm/IR/DataLayout.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/Type.h>

namespace rootline::ops {

using u128 = unsigned __int128;

inline u128 toU128(Val v) { return (static_cast<u128>(v.hi) << 64) | v.lo; }
inline Val fromU128(u128 x) { return {static_cast<uint64_t>(x), static_cast<uint64_t>(x >> 64)}; }
// Keeps the low `bits` bits.
Val truncTo(Val v, unsigned bits);
// Interprets the low `bits` bits as signed.
__int128 signedOf(Val v, unsigned bits);

// The bits of a shift count that x86 uses for a `bits`-wide shift.
uint64_t shiftMask(unsigned bits);

enum class Fault { None, DivideByZero, DivideOverflow };

// Integer binary operator on `bits`-wide operands. Sets `fault` for x86 division traps.
Val intBinary(unsigned opcode, unsigned bits, Val a, Val b, Fault &fault);
bool intCompare(llvm::CmpInst::Predicate pred, unsigned bits, Val a, Val b);

// Floating point: `type` is float, double or x86_fp80.
Val floatBinary(unsigned opcode, const llvm::Type *type, Val a, Val b);
Val floatNeg(const llvm::Type *type, Val a);
bool floatCompare(llvm::CmpInst::Predicate pred, const llvm::Type *type, Val a, Val b);
bool isSupportedFloat(const llvm::Type *type);

// llvm.floor/ceil/trunc/round/rint/nearbyint/sqrt/fabs (unary) and
// copysign/minnum/maxnum/pow (binary), fma (ternary) on float, double or x86_fp80.
// Returns false for an intrinsic that is not one of these.
bool floatIntrinsic(unsigned intrinsicId, const llvm::Type *type, const Val *args, Val &out);

// llvm.is.fpclass: whether `v` is in one of the classes of `mask` (bit 0 signaling NaN,
// 1 quiet NaN, 2 -inf, 3 -normal, 4 -subnormal, 5 -0, 6 +0, 7 +subnormal, 8 +normal,
// 9 +inf), as clang emits for isnan/isinf/isfinite.
bool floatClass(const llvm::Type *type, Val v, unsigned mask);

Val cast(unsigned opcode, const llvm::Type *from, const llvm::Type *to, Val v,
         const llvm::DataLayout &dl);

// Bit width of a first-class scalar type (pointers: 64).
unsigned scalarBits(const llvm::Type *type, const llvm::DataLayout &dl);

// Reading and writing a part of an aggregate's memory image (at most 16 bytes).
Val extractBytes(Val image, uint64_t offset, uint64_t size);
Val insertBytes(Val image, uint64_t offset, uint64_t size, Val part);

} // namespace rootline::ops
