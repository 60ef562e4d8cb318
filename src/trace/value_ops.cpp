#include "trace/value_ops.h"

#include "rootline/error.h"

#include <llvm/IR/Instruction.h>
#include <llvm/IR/Intrinsics.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace rootline::ops {

Val truncTo(Val v, unsigned bits) {
  if (bits >= 128)
    return v;
  u128 mask = (static_cast<u128>(1) << bits) - 1;
  return fromU128(toU128(v) & mask);
}

__int128 signedOf(Val v, unsigned bits) {
  u128 x = toU128(truncTo(v, bits));
  if (bits < 128 && bits > 0 && ((x >> (bits - 1)) & 1))
    x |= ~((static_cast<u128>(1) << bits) - 1);
  return static_cast<__int128>(x);
}

uint64_t shiftMask(unsigned bits) { return bits > 32 ? 63 : 31; }

Val intBinary(unsigned opcode, unsigned bits, Val av, Val bv, Fault &fault) {
  fault = Fault::None;
  u128 a = toU128(truncTo(av, bits)), b = toU128(truncTo(bv, bits));
  __int128 sa = signedOf(av, bits), sb = signedOf(bv, bits);
  __int128 smin = bits >= 128 ? static_cast<__int128>(static_cast<u128>(1) << 127)
                              : -(static_cast<__int128>(1) << (bits - 1));
  u128 r = 0;
  switch (opcode) {
  case llvm::Instruction::Add:
    r = a + b;
    break;
  case llvm::Instruction::Sub:
    r = a - b;
    break;
  case llvm::Instruction::Mul:
    r = a * b;
    break;
  case llvm::Instruction::UDiv:
  case llvm::Instruction::URem:
    if (b == 0) {
      fault = Fault::DivideByZero;
      return {};
    }
    r = opcode == llvm::Instruction::UDiv ? a / b : a % b;
    break;
  case llvm::Instruction::SDiv:
  case llvm::Instruction::SRem:
    if (sb == 0) {
      fault = Fault::DivideByZero;
      return {};
    }
    if (sa == smin && sb == -1) { // x86 idiv traps for both quotient and remainder
      fault = Fault::DivideOverflow;
      return {};
    }
    r = static_cast<u128>(opcode == llvm::Instruction::SDiv ? sa / sb : sa % sb);
    break;
  case llvm::Instruction::Shl:
  case llvm::Instruction::LShr:
  case llvm::Instruction::AShr: {
    // x86 masks the count to 5 bits (6 for 64-bit operands); a count still >= the
    // width shifts everything out.
    unsigned count = static_cast<unsigned>(b & shiftMask(bits));
    if (count >= bits)
      r = opcode == llvm::Instruction::AShr && sa < 0 ? ~static_cast<u128>(0) : 0;
    else if (opcode == llvm::Instruction::Shl)
      r = a << count;
    else if (opcode == llvm::Instruction::LShr)
      r = a >> count;
    else
      r = static_cast<u128>(sa >> count);
    break;
  }
  case llvm::Instruction::And:
    r = a & b;
    break;
  case llvm::Instruction::Or:
    r = a | b;
    break;
  case llvm::Instruction::Xor:
    r = a ^ b;
    break;
  default:
    throw Error(std::string("unsupported integer operator ") +
                    llvm::Instruction::getOpcodeName(opcode),
                ExitInternal);
  }
  return truncTo(fromU128(r), bits);
}

bool intCompare(llvm::CmpInst::Predicate pred, unsigned bits, Val av, Val bv) {
  u128 a = toU128(truncTo(av, bits)), b = toU128(truncTo(bv, bits));
  __int128 sa = signedOf(av, bits), sb = signedOf(bv, bits);
  switch (pred) {
  case llvm::CmpInst::ICMP_EQ:
    return a == b;
  case llvm::CmpInst::ICMP_NE:
    return a != b;
  case llvm::CmpInst::ICMP_UGT:
    return a > b;
  case llvm::CmpInst::ICMP_UGE:
    return a >= b;
  case llvm::CmpInst::ICMP_ULT:
    return a < b;
  case llvm::CmpInst::ICMP_ULE:
    return a <= b;
  case llvm::CmpInst::ICMP_SGT:
    return sa > sb;
  case llvm::CmpInst::ICMP_SGE:
    return sa >= sb;
  case llvm::CmpInst::ICMP_SLT:
    return sa < sb;
  case llvm::CmpInst::ICMP_SLE:
    return sa <= sb;
  default:
    throw Error("unsupported integer comparison", ExitInternal);
  }
}

namespace {

template <typename F> F load(Val v) {
  F f;
  unsigned char bytes[16];
  std::memcpy(bytes, &v.lo, 8);
  std::memcpy(bytes + 8, &v.hi, 8);
  std::memcpy(&f, bytes, sizeof(F) < 16 ? sizeof(F) : 16);
  return f;
}

template <typename F> Val store(F f) {
  unsigned char bytes[16] = {};
  std::memcpy(bytes, &f, sizeof(F) == 16 ? 10 : sizeof(F)); // x86 long double: 10 significant bytes
  Val v;
  std::memcpy(&v.lo, bytes, 8);
  std::memcpy(&v.hi, bytes + 8, 8);
  return v;
}

template <typename F> Val binary(unsigned opcode, Val av, Val bv) {
  F a = load<F>(av), b = load<F>(bv);
  switch (opcode) {
  case llvm::Instruction::FAdd:
    return store<F>(a + b);
  case llvm::Instruction::FSub:
    return store<F>(a - b);
  case llvm::Instruction::FMul:
    return store<F>(a * b);
  case llvm::Instruction::FDiv:
    return store<F>(a / b);
  case llvm::Instruction::FRem:
    return store<F>(std::fmod(a, b));
  default:
    throw Error("unsupported floating-point operator", ExitInternal);
  }
}

template <typename F> bool compare(llvm::CmpInst::Predicate pred, Val av, Val bv) {
  F a = load<F>(av), b = load<F>(bv);
  bool unordered = std::isnan(a) || std::isnan(b);
  switch (pred) {
  case llvm::CmpInst::FCMP_FALSE:
    return false;
  case llvm::CmpInst::FCMP_TRUE:
    return true;
  case llvm::CmpInst::FCMP_OEQ:
    return !unordered && a == b;
  case llvm::CmpInst::FCMP_OGT:
    return !unordered && a > b;
  case llvm::CmpInst::FCMP_OGE:
    return !unordered && a >= b;
  case llvm::CmpInst::FCMP_OLT:
    return !unordered && a < b;
  case llvm::CmpInst::FCMP_OLE:
    return !unordered && a <= b;
  case llvm::CmpInst::FCMP_ONE:
    return !unordered && a != b;
  case llvm::CmpInst::FCMP_ORD:
    return !unordered;
  case llvm::CmpInst::FCMP_UNO:
    return unordered;
  case llvm::CmpInst::FCMP_UEQ:
    return unordered || a == b;
  case llvm::CmpInst::FCMP_UGT:
    return unordered || a > b;
  case llvm::CmpInst::FCMP_UGE:
    return unordered || a >= b;
  case llvm::CmpInst::FCMP_ULT:
    return unordered || a < b;
  case llvm::CmpInst::FCMP_ULE:
    return unordered || a <= b;
  case llvm::CmpInst::FCMP_UNE:
    return unordered || a != b;
  default:
    throw Error("unsupported floating-point comparison", ExitInternal);
  }
}

long double toLongDouble(const llvm::Type *t, Val v) {
  if (t->isFloatTy())
    return load<float>(v);
  if (t->isDoubleTy())
    return load<double>(v);
  return load<long double>(v);
}

Val fromLongDouble(const llvm::Type *t, long double x) {
  if (t->isFloatTy())
    return store<float>(static_cast<float>(x));
  if (t->isDoubleTy())
    return store<double>(static_cast<double>(x));
  return store<long double>(x);
}

// x86 cvtt* semantics: NaN and out-of-range conversions give the "integer indefinite"
// value (only the sign bit set) of the 32- or 64-bit conversion.
__int128 floatToSigned(long double x, unsigned bits) {
  unsigned convBits = bits <= 32 ? 32 : 64;
  long double lo = -std::ldexp(1.0L, static_cast<int>(convBits - 1));
  long double hi = std::ldexp(1.0L, static_cast<int>(convBits - 1));
  if (std::isnan(x) || x < lo || x >= hi)
    return static_cast<__int128>(lo);
  return static_cast<__int128>(std::trunc(x));
}

} // namespace

namespace {

template <typename F> bool mathOp(unsigned iid, const Val *args, Val &out) {
  F a = load<F>(args[0]);
  switch (iid) {
  case llvm::Intrinsic::floor:
    out = store<F>(std::floor(a));
    return true;
  case llvm::Intrinsic::ceil:
    out = store<F>(std::ceil(a));
    return true;
  case llvm::Intrinsic::trunc:
    out = store<F>(std::trunc(a));
    return true;
  case llvm::Intrinsic::round:
    out = store<F>(std::round(a));
    return true;
  case llvm::Intrinsic::roundeven:
    out = store<F>(std::nearbyint(a));
    return true;
  case llvm::Intrinsic::rint:
    out = store<F>(std::rint(a));
    return true;
  case llvm::Intrinsic::nearbyint:
    out = store<F>(std::nearbyint(a));
    return true;
  case llvm::Intrinsic::sqrt:
    out = store<F>(std::sqrt(a));
    return true;
  case llvm::Intrinsic::fabs:
    out = store<F>(std::fabs(a));
    return true;
  case llvm::Intrinsic::copysign:
    out = store<F>(std::copysign(a, load<F>(args[1])));
    return true;
  case llvm::Intrinsic::minnum:
    out = store<F>(std::fmin(a, load<F>(args[1])));
    return true;
  case llvm::Intrinsic::maxnum:
    out = store<F>(std::fmax(a, load<F>(args[1])));
    return true;
  case llvm::Intrinsic::pow:
    out = store<F>(std::pow(a, load<F>(args[1])));
    return true;
  case llvm::Intrinsic::fma:
    out = store<F>(std::fma(a, load<F>(args[1]), load<F>(args[2])));
    return true;
  default:
    return false;
  }
}

} // namespace

bool floatIntrinsic(unsigned iid, const llvm::Type *t, const Val *args, Val &out) {
  if (t->isFloatTy())
    return mathOp<float>(iid, args, out);
  if (t->isDoubleTy())
    return mathOp<double>(iid, args, out);
  if (t->isX86_FP80Ty())
    return mathOp<long double>(iid, args, out);
  return false;
}

namespace {
template <typename F> bool inClass(Val v, unsigned mask) {
  F f = load<F>(v);
  bool neg = std::signbit(f);
  switch (std::fpclassify(f)) {
  case FP_NAN: {
    // The quiet bit is the significand's top bit (bit 22 of a float, 51 of a double,
    // 62 of an x86 long double).
    unsigned quietBit = sizeof(F) == 4 ? 22 : sizeof(F) == 8 ? 51 : 62;
    bool quiet = (v.lo >> quietBit) & 1;
    return mask & (quiet ? 0x2 : 0x1);
  }
  case FP_INFINITE:
    return mask & (neg ? 0x4 : 0x200);
  case FP_NORMAL:
    return mask & (neg ? 0x8 : 0x100);
  case FP_SUBNORMAL:
    return mask & (neg ? 0x10 : 0x80);
  default: // zero
    return mask & (neg ? 0x20 : 0x40);
  }
}
} // namespace

bool floatClass(const llvm::Type *t, Val v, unsigned mask) {
  if (t->isFloatTy())
    return inClass<float>(v, mask);
  if (t->isDoubleTy())
    return inClass<double>(v, mask);
  if (t->isX86_FP80Ty())
    return inClass<long double>(v, mask);
  throw Error("unsupported floating-point type", ExitInternal);
}

bool isSupportedFloat(const llvm::Type *t) {
  return t->isFloatTy() || t->isDoubleTy() || t->isX86_FP80Ty();
}

Val floatBinary(unsigned opcode, const llvm::Type *t, Val a, Val b) {
  if (t->isFloatTy())
    return binary<float>(opcode, a, b);
  if (t->isDoubleTy())
    return binary<double>(opcode, a, b);
  if (t->isX86_FP80Ty())
    return binary<long double>(opcode, a, b);
  throw Error("unsupported floating-point type", ExitInternal);
}

Val floatNeg(const llvm::Type *t, Val a) {
  if (t->isFloatTy())
    return store<float>(-load<float>(a));
  if (t->isDoubleTy())
    return store<double>(-load<double>(a));
  if (t->isX86_FP80Ty())
    return store<long double>(-load<long double>(a));
  throw Error("unsupported floating-point type", ExitInternal);
}

bool floatCompare(llvm::CmpInst::Predicate pred, const llvm::Type *t, Val a, Val b) {
  if (t->isFloatTy())
    return compare<float>(pred, a, b);
  if (t->isDoubleTy())
    return compare<double>(pred, a, b);
  if (t->isX86_FP80Ty())
    return compare<long double>(pred, a, b);
  throw Error("unsupported floating-point type", ExitInternal);
}

unsigned scalarBits(const llvm::Type *t, const llvm::DataLayout &dl) {
  if (t->isPointerTy())
    return 64;
  if (t->isIntegerTy())
    return t->getIntegerBitWidth();
  return static_cast<unsigned>(dl.getTypeSizeInBits(const_cast<llvm::Type *>(t)).getFixedValue());
}

Val cast(unsigned opcode, const llvm::Type *from, const llvm::Type *to, Val v,
         const llvm::DataLayout &dl) {
  unsigned fromBits = scalarBits(from, dl), toBits = scalarBits(to, dl);
  switch (opcode) {
  case llvm::Instruction::Trunc:
  case llvm::Instruction::ZExt:
  case llvm::Instruction::PtrToInt:
  case llvm::Instruction::IntToPtr:
    return truncTo(truncTo(v, fromBits), toBits);
  case llvm::Instruction::SExt:
    return truncTo(fromU128(static_cast<u128>(signedOf(v, fromBits))), toBits);
  case llvm::Instruction::BitCast:
  case llvm::Instruction::AddrSpaceCast:
    return v;
  case llvm::Instruction::FPTrunc:
  case llvm::Instruction::FPExt:
    return fromLongDouble(to, toLongDouble(from, v));
  case llvm::Instruction::FPToSI:
    return truncTo(fromU128(static_cast<u128>(floatToSigned(toLongDouble(from, v), toBits))),
                   toBits);
  case llvm::Instruction::FPToUI: {
    long double x = toLongDouble(from, v);
    if (std::isnan(x) || x < 0)
      return truncTo(fromU128(static_cast<u128>(floatToSigned(x, toBits))), toBits);
    if (x >= std::ldexp(1.0L, static_cast<int>(toBits)))
      return {};
    return truncTo(fromU128(static_cast<u128>(std::trunc(x))), toBits);
  }
  case llvm::Instruction::SIToFP:
    return fromLongDouble(to, static_cast<long double>(signedOf(v, fromBits)));
  case llvm::Instruction::UIToFP: {
    u128 x = toU128(truncTo(v, fromBits));
    if (to->isFloatTy())
      return store<float>(static_cast<float>(x));
    if (to->isDoubleTy())
      return store<double>(static_cast<double>(x));
    return store<long double>(static_cast<long double>(x));
  }
  default:
    throw Error(std::string("unsupported cast ") + llvm::Instruction::getOpcodeName(opcode),
                ExitInternal);
  }
}

Val extractBytes(Val image, uint64_t offset, uint64_t size) {
  unsigned char bytes[32] = {};
  std::memcpy(bytes, &image.lo, 8);
  std::memcpy(bytes + 8, &image.hi, 8);
  Val out;
  unsigned char part[16] = {};
  if (offset < 16)
    std::memcpy(part, bytes + offset, std::min<uint64_t>(size, 16 - offset));
  std::memcpy(&out.lo, part, 8);
  std::memcpy(&out.hi, part + 8, 8);
  return out;
}

Val insertBytes(Val image, uint64_t offset, uint64_t size, Val part) {
  unsigned char bytes[16], p[16];
  std::memcpy(bytes, &image.lo, 8);
  std::memcpy(bytes + 8, &image.hi, 8);
  std::memcpy(p, &part.lo, 8);
  std::memcpy(p + 8, &part.hi, 8);
  if (offset < 16)
    std::memcpy(bytes + offset, p, std::min<uint64_t>(size, 16 - offset));
  std::memcpy(&image.lo, bytes, 8);
  std::memcpy(&image.hi, bytes + 8, 8);
  return image;
}

} // namespace rootline::ops
