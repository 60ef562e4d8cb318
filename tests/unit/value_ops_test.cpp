#include "trace/value_ops.h"

#include <catch2/catch.hpp>

#include <cstring>

#include <llvm/IR/Instruction.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Type.h>

using namespace rootline;
using namespace rootline::ops;

namespace {
Val v(uint64_t x) { return {x, 0}; }
Val run(unsigned op, unsigned bits, uint64_t a, uint64_t b) {
  Fault f;
  return intBinary(op, bits, v(a), v(b), f);
}
} // namespace

TEST_CASE("integer operators follow two's complement C semantics", "[replay][ops]") {
  using I = llvm::Instruction;
  CHECK(run(I::Add, 32, 0x7fffffff, 1).lo == 0x80000000u); // wraps
  CHECK(run(I::Mul, 8, 200, 2).lo == 144);                 // mod 256
  CHECK(run(I::SDiv, 32, static_cast<uint32_t>(-7), 2).lo ==
        static_cast<uint32_t>(-3)); // truncates toward 0
  CHECK(run(I::SRem, 32, static_cast<uint32_t>(-7), 2).lo == static_cast<uint32_t>(-1));
  CHECK(run(I::UDiv, 32, static_cast<uint32_t>(-7), 2).lo == 0x7ffffffcu);
  CHECK(run(I::AShr, 32, 0x80000000u, 4).lo == 0xf8000000u);
  CHECK(run(I::LShr, 32, 0x80000000u, 4).lo == 0x08000000u);
  CHECK(run(I::Shl, 16, 0x8001, 1).lo == 0x0002);
  CHECK(run(I::Shl, 32, 1, 33).lo == 2);      // x86 masks the count to 5 bits
  CHECK(run(I::Shl, 64, 1, 65).lo == 2);      // 6 bits for 64-bit operands
  CHECK(run(I::AShr, 8, 0x80, 9).lo == 0xff); // count 9 >= width 8: sign fill
  CHECK(run(I::LShr, 8, 0x80, 9).lo == 0);

  Fault f;
  intBinary(I::SDiv, 32, v(5), v(0), f);
  CHECK(f == Fault::DivideByZero);
  intBinary(I::SRem, 32, v(0x80000000u), v(0xffffffffu), f);
  CHECK(f == Fault::DivideOverflow);
  intBinary(I::UDiv, 64, v(1), v(0), f);
  CHECK(f == Fault::DivideByZero);
}

TEST_CASE("comparisons distinguish signed and unsigned", "[replay][ops]") {
  CHECK(intCompare(llvm::CmpInst::ICMP_SLT, 32, v(0xffffffffu), v(0)));
  CHECK_FALSE(intCompare(llvm::CmpInst::ICMP_ULT, 32, v(0xffffffffu), v(0)));
  CHECK(intCompare(llvm::CmpInst::ICMP_EQ, 8, v(0x1ff), v(0xff))); // only the low 8 bits count
}

TEST_CASE("casts extend, truncate and convert like x86-64", "[replay][ops]") {
  llvm::LLVMContext ctx;
  llvm::DataLayout dl(
      "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128");
  auto *i8 = llvm::Type::getInt8Ty(ctx), *i32 = llvm::Type::getInt32Ty(ctx),
       *i64 = llvm::Type::getInt64Ty(ctx);
  auto *dbl = llvm::Type::getDoubleTy(ctx), *flt = llvm::Type::getFloatTy(ctx);
  CHECK(cast(llvm::Instruction::SExt, i8, i32, v(0x80), dl).lo == 0xffffff80u);
  CHECK(cast(llvm::Instruction::ZExt, i8, i32, v(0x80), dl).lo == 0x80u);
  CHECK(cast(llvm::Instruction::Trunc, i64, i8, v(0x1234), dl).lo == 0x34u);
  Val minus25 = cast(llvm::Instruction::SIToFP, i32, dbl, v(static_cast<uint32_t>(-25)), dl);
  CHECK(cast(llvm::Instruction::FPToSI, dbl, i32, minus25, dl).lo == static_cast<uint32_t>(-25));
  Val third =
      floatBinary(llvm::Instruction::FDiv, dbl, cast(llvm::Instruction::SIToFP, i32, dbl, v(1), dl),
                  cast(llvm::Instruction::SIToFP, i32, dbl, v(3), dl));
  double d;
  std::memcpy(&d, &third.lo, 8);
  CHECK(d == 1.0 / 3.0);
  Val f = cast(llvm::Instruction::FPTrunc, dbl, flt, third, dl);
  float fv;
  uint32_t bits = static_cast<uint32_t>(f.lo);
  std::memcpy(&fv, &bits, 4);
  CHECK(fv == static_cast<float>(1.0 / 3.0));
  // Out-of-range conversion gives x86's "integer indefinite".
  Val huge = cast(llvm::Instruction::SIToFP, i64, dbl, v(1ull << 62), dl);
  CHECK(cast(llvm::Instruction::FPToSI, dbl, i32, huge, dl).lo == 0x80000000u);
}

TEST_CASE("llvm.is.fpclass sorts floats into the classes of its mask", "[replay][ops]") {
  llvm::LLVMContext ctx;
  llvm::Type *d = llvm::Type::getDoubleTy(ctx), *f = llvm::Type::getFloatTy(ctx);
  auto bits = [](double x) {
    Val out;
    std::memcpy(&out.lo, &x, 8);
    return out;
  };
  auto fbits = [](float x) {
    Val out;
    uint32_t u;
    std::memcpy(&u, &x, 4);
    out.lo = u;
    return out;
  };
  const unsigned nan = 0x3, inf = 0x204, zero = 0x60, normal = 0x108, subnormal = 0x90;
  CHECK(floatClass(d, bits(__builtin_nan("")), nan));
  CHECK(floatClass(d, bits(__builtin_nan("")), 0x2)); // quiet
  CHECK_FALSE(floatClass(d, bits(__builtin_nan("")), 0x1));
  CHECK(floatClass(d, bits(__builtin_nans("")), 0x1)); // signaling
  CHECK(floatClass(d, bits(-__builtin_inf()), 0x4));
  CHECK_FALSE(floatClass(d, bits(-__builtin_inf()), 0x200));
  CHECK(floatClass(d, bits(__builtin_inf()), inf));
  CHECK(floatClass(d, bits(-0.0), 0x20));
  CHECK(floatClass(d, bits(0.0), zero));
  CHECK(floatClass(d, bits(1.5), 0x100));
  CHECK(floatClass(d, bits(-1.5), normal));
  CHECK_FALSE(floatClass(d, bits(1.5), nan | inf | zero | subnormal));
  CHECK(floatClass(d, bits(4.9e-324), 0x80));
  CHECK(floatClass(f, fbits(__builtin_nanf("")), nan));
  CHECK(floatClass(f, fbits(3.0f), normal));
  CHECK_FALSE(floatClass(f, fbits(3.0f), nan));
}
