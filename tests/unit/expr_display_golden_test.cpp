// The display of every C operator class against a golden file (tests/golden/
// expr_display.txt): one line per expression, `name: text`. A change to the printer
// shows up as a diff of that file; regenerate it with ROOTLINE_UPDATE_GOLDEN=1.
#include "rootline/expr_text.h"
#include "rootline/fs.h"
#include "symbolic/float_ops.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <sstream>

#include <llvm/IR/Instruction.h>
#include <llvm/IR/LLVMContext.h>

using namespace rootline;

TEST_CASE("every C operator class displays as in the golden file", "[display]") {
  z3::context ctx;
  z3::expr x = ctx.bv_const("x", 32), y = ctx.bv_const("y", 32), z = ctx.bv_const("z", 32);
  z3::expr c = ctx.bv_const("c", 8), n = ctx.bv_const("n", 64);
  z3::expr k2 = ctx.bv_val(2, 32), k3 = ctx.bv_val(3, 32), k10 = ctx.bv_val(10, 32);
  std::vector<std::pair<std::string, z3::expr>> cases = {
      {"multiplicative", x * y / z},
      {"remainder", z3::srem(x, k3) == ctx.bv_val(0, 32)},
      {"additive", x + y - k2},
      {"negation", -x + y},
      {"difference from simplify", (x - y > k3).simplify()},
      {"shift left", z3::shl(x, k2) + y},
      {"arithmetic shift right", z3::ashr(x, k2)},
      {"logical shift right", z3::lshr(x, k2)},
      {"relational", x < y},
      {"relational, constant first", k10 > x},
      {"equality", x == y},
      {"inequality", x != y},
      {"negated relational", !(x <= y)},
      {"bitwise and", (x & y) != ctx.bv_val(0, 32)},
      {"bitwise xor", (x ^ y) == z},
      {"bitwise or", x | (y & z)},
      {"logical and", x > y && y > z},
      {"logical or", x == k2 || x == ctx.bv_val(-2, 32)},
      {"logical and of ors", (x > y || x < y) && x != ctx.bv_val(0, 32)},
      {"logical not", !(x > y && y > x)},
      {"conditional", z3::ite(x > y, x, y)},
      {"unsigned relational", z3::ult(x, y)},
      {"unsigned relational, non-negative sides", z3::ult(z3::zext(c, 24), k10)},
      {"unsigned division", z3::udiv(x, k3)},
      {"unsigned remainder", z3::urem(x, y)},
      {"unsigned against a negative constant", z3::ult(z3::zext(c, 24), ctx.bv_val(-1, 32))},
      {"narrowing cast", n.extract(31, 0) + x},
      {"widened character", z3::sext(c, 24) == ctx.bv_val('a', 32)},
      {"character range", z3::sge(z3::sext(c, 24), ctx.bv_val('0', 32)) &&
                              z3::sle(z3::sext(c, 24), ctx.bv_val('9', 32))},
      {"newline literal", c == ctx.bv_val('\n', 8)},
      {"precedence", (x + y) * k2 - z},
  };
  // Floating point (float_ops.h): doubles d and e, float f, as their bits.
  z3::expr d = ctx.bv_const("d", 64), e = ctx.bv_const("e", 64), f = ctx.bv_const("f", 32);
  auto dbl = [&](double v) { return ctx.bv_val(inputBitsOfFloat(v, 64), 64); };
  auto arith = [](unsigned op, const z3::expr &a, const z3::expr &b) {
    return *floatArithmetic(op, a, b);
  };
  llvm::LLVMContext llvmCtx;
  llvm::Type *dt = llvm::Type::getDoubleTy(llvmCtx), *ft = llvm::Type::getFloatTy(llvmCtx);
  llvm::Type *it = llvm::Type::getInt32Ty(llvmCtx);
  cases.insert(
      cases.end(),
      {{"floating arithmetic",
        floatCompare(llvm::CmpInst::FCMP_OGE,
                     arith(llvm::Instruction::FDiv, d, arith(llvm::Instruction::FMul, e, e)),
                     dbl(30.0))},
       {"floating difference, fraction constant",
        floatCompare(llvm::CmpInst::FCMP_OLT, arith(llvm::Instruction::FSub, d, dbl(0.7)), e)},
       {"floating negated comparison", !floatCompare(llvm::CmpInst::FCMP_OLT, d, dbl(18.5))},
       {"floating constant first", floatCompare(llvm::CmpInst::FCMP_OGT, dbl(-1.5), d)},
       {"floating libm",
        floatCompare(llvm::CmpInst::FCMP_OEQ,
                     *floatFunction("floor", {*floatFunction("sqrt", {d}, 64)}, 64),
                     *floatFunction("fabs", {e}, 64))},
       {"floating conversions",
        *floatCast(llvm::Instruction::FPToSI, *floatCast(llvm::Instruction::FPExt, f, ft, dt), dt,
                   it) == x},
       {"integer to floating",
        floatCompare(llvm::CmpInst::FCMP_OLT, *floatCast(llvm::Instruction::SIToFP, x, it, dt), d)},
       {"floating negation", floatCompare(llvm::CmpInst::FCMP_UNE, floatNegate(d), e)}});
  std::ostringstream out;
  for (const auto &[name, e] : cases)
    out << name << ": " << readableExpr(e) << "\n";
  fs::path golden = fs::path(ROOTLINE_SOURCE_DIR) / "tests" / "golden" / "expr_display.txt";
  if (std::getenv("ROOTLINE_UPDATE_GOLDEN"))
    writeFileAtomic(golden, out.str());
  REQUIRE(fs::exists(golden));
  std::string expected = readFile(golden);
  INFO("regenerate with ROOTLINE_UPDATE_GOLDEN=1 after checking the difference");
  CHECK(out.str() == expected);
}
