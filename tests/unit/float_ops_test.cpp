// Floating point on its own: every operation float_ops builds, evaluated at concrete
// inputs, gives the bits x86-64 gives; the display reads as C; the evaluation search
// finds short values past a threshold; float tokens print and parse back.
#include "explore/float_search.h"
#include "symbolic/float_ops.h"

#include "rootline/closest_input.h"
#include "rootline/expr_text.h"

#include <catch2/catch.hpp>

#include <llvm/IR/Instruction.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Type.h>

#include <cmath>
#include <limits>

using namespace rootline;

namespace {

const std::vector<double> kValues = {0.0,
                                     -0.0,
                                     1.0,
                                     -1.0,
                                     0.1,
                                     2.5,
                                     -2.5,
                                     3.5,
                                     1e-310,
                                     7e22,
                                     -1e300,
                                     1e300,
                                     0.7,
                                     123.456,
                                     -0.5,
                                     std::numeric_limits<double>::infinity(),
                                     std::numeric_limits<double>::quiet_NaN(),
                                     2147483648.0,
                                     -2147483649.0,
                                     9.3e18};

uint64_t bitsOf(double d) { return inputBitsOfFloat(d, 64); }

// The value of `e` (over doubles x and y) at x = a, y = b.
uint64_t at(const z3::expr &e, const z3::expr &x, const z3::expr &y, double a, double b) {
  z3::context &ctx = e.ctx();
  z3::expr_vector from(ctx), to(ctx);
  from.push_back(x);
  from.push_back(y);
  to.push_back(ctx.bv_val(bitsOf(a), 64));
  to.push_back(ctx.bv_val(bitsOf(b), 64));
  z3::expr r = z3::expr(e).substitute(from, to).simplify();
  uint64_t v = 0;
  if (r.is_numeral_u64(v))
    return v;
  // IEEE-754 leaves a NaN's bits open: Z3 keeps fp.to_ieee_bv(NaN) unevaluated.
  REQUIRE(r.is_app());
  REQUIRE(r.decl().decl_kind() == Z3_OP_FPA_TO_IEEE_BV);
  REQUIRE(r.arg(0).decl().decl_kind() == Z3_OP_FPA_NAN);
  return bitsOf(std::numeric_limits<double>::quiet_NaN());
}

bool same(uint64_t got, double want) {
  double g = floatOfInputBits(got, 64);
  return std::isnan(want) ? std::isnan(g) : got == bitsOf(want);
}

} // namespace

TEST_CASE("float_ops: arithmetic, comparisons and libm functions give x86-64's bits", "[float]") {
  z3::context ctx;
  z3::expr x = ctx.bv_const("x", 64), y = ctx.bv_const("y", 64);
  auto add = *floatArithmetic(llvm::Instruction::FAdd, x, y);
  auto sub = *floatArithmetic(llvm::Instruction::FSub, x, y);
  auto mul = *floatArithmetic(llvm::Instruction::FMul, x, y);
  auto div = *floatArithmetic(llvm::Instruction::FDiv, x, y);
  CHECK_FALSE(floatArithmetic(llvm::Instruction::FRem, x, y).has_value());
  auto lt =
      z3::ite(floatCompare(llvm::CmpInst::FCMP_OLT, x, y), ctx.bv_val(1, 64), ctx.bv_val(0, 64));
  auto une =
      z3::ite(floatCompare(llvm::CmpInst::FCMP_UNE, x, y), ctx.bv_val(1, 64), ctx.bv_val(0, 64));
  auto fl = *floatFunction("llvm.floor.f64", {x}, 64);
  auto rnd = *floatFunction("round", {x}, 64);
  auto sq = *floatFunction("sqrt", {x}, 64);
  auto fmin = *floatFunction("fmin", {x, y}, 64);
  auto cps = *floatFunction("copysign", {x, y}, 64);
  CHECK_FALSE(floatFunction("pow", {x, y}, 64).has_value());
  for (double a : kValues)
    for (double b : kValues) {
      INFO(a << " " << b);
      CHECK(same(at(add, x, y, a, b), a + b));
      CHECK(same(at(sub, x, y, a, b), a - b));
      CHECK(same(at(mul, x, y, a, b), a * b));
      CHECK(same(at(div, x, y, a, b), a / b));
      CHECK(at(lt, x, y, a, b) == (a < b ? 1u : 0u));
      CHECK(at(une, x, y, a, b) == (a != b ? 1u : 0u));
      CHECK(same(at(fl, x, y, a, b), std::floor(a)));
      CHECK(same(at(rnd, x, y, a, b), std::round(a)));
      CHECK(same(at(sq, x, y, a, b), std::sqrt(a)));
      if (!(a == 0 && b == 0)) // fmin(-0, +0) may be either zero
        CHECK(same(at(fmin, x, y, a, b), std::fmin(a, b)));
      CHECK(same(at(cps, x, y, a, b), std::copysign(a, b)));
    }
}

TEST_CASE("float_ops: conversions follow x86-64, out-of-range ones included", "[float]") {
  z3::context ctx;
  llvm::LLVMContext llvmCtx;
  llvm::Type *dbl = llvm::Type::getDoubleTy(llvmCtx), *flt = llvm::Type::getFloatTy(llvmCtx);
  llvm::Type *i32 = llvm::Type::getInt32Ty(llvmCtx), *i64 = llvm::Type::getInt64Ty(llvmCtx);
  z3::expr x = ctx.bv_const("x", 64), y = ctx.bv_const("y", 64);
  auto toInt = *floatCast(llvm::Instruction::FPToSI, x, dbl, i32);
  auto toFloat = *floatCast(llvm::Instruction::FPTrunc, x, dbl, flt);
  for (double a : kValues) {
    INFO(a);
    // cvttsd2si: the "integer indefinite" 0x80000000 outside int's range and for NaN.
    bool inRange = !std::isnan(a) && a >= -2147483648.0 && a < 2147483648.0;
    uint64_t want = inRange ? static_cast<uint32_t>(static_cast<int32_t>(a)) : 0x80000000u;
    CHECK(at(z3::zext(toInt, 32), x, y, a, 0) == want);
    float f = static_cast<float>(a);
    uint64_t fb = at(toFloat, x, y, a, 0); // NaN: checked to be fp.to_ieee_bv(NaN) there
    if (!std::isnan(f))
      CHECK(fb == inputBitsOfFloat(f, 32));
  }
  z3::expr n = ctx.bv_const("n", 64);
  auto fromInt = *floatCast(llvm::Instruction::SIToFP, n, i64, dbl);
  for (int64_t v : {0LL, -7LL, 123456789LL, (1LL << 53) + 1, -(1LL << 62)}) {
    z3::expr_vector from(ctx), to(ctx);
    from.push_back(n);
    to.push_back(ctx.bv_val(static_cast<uint64_t>(v), 64));
    uint64_t got = 0;
    REQUIRE(z3::expr(fromInt).substitute(from, to).simplify().is_numeral_u64(got));
    CHECK(got == bitsOf(static_cast<double>(v)));
  }
}

TEST_CASE("float_ops: formulas read as C", "[float][display]") {
  z3::context ctx;
  z3::expr w = ctx.bv_const("tok@0:f64", 64), h = ctx.bv_const("tok@3:f64", 64);
  DisplayNames names{{"tok@0:f64", "weight"}, {"tok@3:f64", "height"}};
  z3::expr h2 = *floatArithmetic(llvm::Instruction::FMul, h, h);
  z3::expr bmi = *floatArithmetic(llvm::Instruction::FDiv, w, h2);
  z3::expr thirty = ctx.bv_val(bitsOf(30.0), 64);
  CHECK(readableExpr(floatCompare(llvm::CmpInst::FCMP_OLT, bmi, thirty), &names) ==
        "weight / (height * height) < 30.0");
  CHECK(readableExpr(!floatCompare(llvm::CmpInst::FCMP_OLT, bmi, thirty), &names) ==
        "weight / (height * height) >= 30.0");
  CHECK(readableExpr(floatCompare(llvm::CmpInst::FCMP_OGT, thirty, w), &names) == "weight < 30.0");
  z3::expr fl = *floatFunction(
      "floor", {*floatArithmetic(llvm::Instruction::FSub, w, ctx.bv_val(bitsOf(0.5), 64))}, 64);
  CHECK(readableExpr(floatCompare(llvm::CmpInst::FCMP_OEQ, fl, thirty), &names) ==
        "floor(weight - 0.5) == 30.0");
  llvm::LLVMContext llvmCtx;
  z3::expr asInt = *floatCast(llvm::Instruction::FPToSI, w, llvm::Type::getDoubleTy(llvmCtx),
                              llvm::Type::getInt32Ty(llvmCtx));
  CHECK(readableExpr(asInt > ctx.bv_val(3, 32), &names).find("(int)weight") != std::string::npos);
}

TEST_CASE("shortest decimals: plain where people write them, exact always", "[float]") {
  CHECK(shortestDecimal(70.0) == "70");
  CHECK(shortestDecimal(0.1) == "0.1");
  CHECK(shortestDecimal(-2.8899999999999997) == "-2.8899999999999997");
  CHECK(shortestDecimal(1e300) == "1e+300");
  CHECK(shortestDecimal(0.8f, true) == "0.8");
  CHECK(floatLiteral(30.0) == "30.0");
  CHECK(floatLiteral(0.25) == "0.25");
  for (double v : kValues)
    if (!std::isnan(v)) {
      INFO(v);
      CHECK(std::strtod(shortestDecimal(v).c_str(), nullptr) == v);
    }
}

TEST_CASE("float search: a threshold over a scaled input is passed by a short value", "[float]") {
  z3::context ctx;
  z3::expr w = ctx.bv_const("w", 64), h = ctx.bv_const("h", 64);
  auto dbl = [&](double d) { return ctx.bv_val(bitsOf(d), 64); };
  // w / 2.89 >= 25 && h > 0, seed w = 20, h = 1.7: only w needs to move.
  z3::expr ratio = *floatArithmetic(llvm::Instruction::FDiv, w, dbl(2.89));
  std::vector<z3::expr> formulas = {floatCompare(llvm::CmpInst::FCMP_OGE, ratio, dbl(25.0)),
                                    floatCompare(llvm::CmpInst::FCMP_OGT, h, dbl(0.0))};
  z3::model base(ctx);
  z3::expr w0 = dbl(20.0), h0 = dbl(1.7);
  z3::func_decl wd = w.decl(), hd = h.decl();
  base.add_const_interp(wd, w0);
  base.add_const_interp(hd, h0);
  Deadline deadline = Deadline::in(10.0);
  auto m = searchOneFloat(base, formulas, {{h, 64, bitsOf(1.7)}, {w, 64, bitsOf(20.0)}}, deadline);
  REQUIRE(m);
  for (const auto &f : formulas)
    CHECK(m->eval(f, true).is_true());
  uint64_t wb = 0, hb = 0;
  REQUIRE(m->eval(w, true).is_numeral_u64(wb));
  REQUIRE(m->eval(h, true).is_numeral_u64(hb));
  CHECK(hb == bitsOf(1.7)); // h is not needed, and stays
  double wv = floatOfInputBits(wb, 64);
  CHECK(wv / 2.89 >= 25.0);
  CHECK(shortestDecimal(wv).size() <= 3); // "80", not 72.25000000000001
  // Unsatisfiable by one input: nothing, within the evaluation limit.
  std::vector<z3::expr> none = {floatCompare(llvm::CmpInst::FCMP_OLT, w, dbl(0.0)),
                                floatCompare(llvm::CmpInst::FCMP_OGT, w, dbl(1.0))};
  CHECK_FALSE(searchOneFloat(base, none, {{w, 64, bitsOf(20.0)}}, deadline, 200).has_value());
}

TEST_CASE("float tokens print and parse back exactly", "[float]") {
  InputVar v;
  v.kind = InputVar::Kind::Token;
  v.conv = 'f';
  v.bits = 64;
  v.offset = 0;
  v.length = 4;
  v.name = "tok@0:f64";
  ProgramInput seed{"1.70 x", {}};
  auto was = valueIn(seed, v);
  REQUIRE(was);
  CHECK(floatOfInputBits(*was, 64) == 1.7);
  // An unchanged value keeps its text; a changed one is the shortest exact decimal.
  CHECK(applyValues(seed, {v}, [&](const InputVar &) { return was; }).stdinBytes == "1.70 x");
  ProgramInput moved = applyValues(
      seed, {v}, [&](const InputVar &) { return std::optional<uint64_t>(bitsOf(72.25)); });
  CHECK(moved.stdinBytes == "72.25 x");
  v.bits = 32;
  ProgramInput single = applyValues(seed, {v}, [&](const InputVar &) {
    return std::optional<uint64_t>(inputBitsOfFloat(0.8f, 32));
  });
  CHECK(single.stdinBytes == "0.8 x");
}
