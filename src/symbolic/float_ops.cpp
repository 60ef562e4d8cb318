#include "float_ops.h"

#include "rootline/symbolic.h"

#include <llvm/IR/Instruction.h>

#include <cmath>
#include <set>

namespace rootline {

namespace {

z3::sort sortOfWidth(z3::context &ctx, unsigned bits) {
  return bits == 32 ? ctx.fpa_sort(8, 24) : ctx.fpa_sort(11, 53);
}

unsigned widthOf(const z3::expr &fp) {
  return fp.get_sort().fpa_ebits() + fp.get_sort().fpa_sbits();
}

z3::expr rounding(z3::context &ctx, Z3_ast (*mode)(Z3_context)) { return z3::expr(ctx, mode(ctx)); }
z3::expr nearestEven(z3::context &ctx) { return rounding(ctx, Z3_mk_fpa_rne); }

bool isKind(const z3::expr &e, Z3_decl_kind k) { return e.is_app() && e.decl().decl_kind() == k; }

z3::expr numeralOf(z3::context &ctx, double v, unsigned bits) {
  if (bits == 32)
    return z3::expr(ctx, Z3_mk_fpa_numeral_float(ctx, static_cast<float>(v), sortOfWidth(ctx, 32)));
  return z3::expr(ctx, Z3_mk_fpa_numeral_double(ctx, v, sortOfWidth(ctx, 64)));
}

// The value of 2^k in the sort of `like` (exact in both widths for k <= 64).
z3::expr powerOfTwo(const z3::expr &like, int k) {
  return numeralOf(like.ctx(), std::ldexp(1.0, k), widthOf(like));
}

z3::expr isNan(const z3::expr &fp) { return fp.mk_is_nan(); }

z3::expr lessThan(const z3::expr &a, const z3::expr &b) {
  return z3::expr(a.ctx(), Z3_mk_fpa_lt(a.ctx(), a, b));
}
z3::expr atLeast(const z3::expr &a, const z3::expr &b) {
  return z3::expr(a.ctx(), Z3_mk_fpa_geq(a.ctx(), a, b));
}

// x86-64's cvttsd2si: truncation, and the value with only the sign bit set for NaN and
// anything outside the 32- or 64-bit range; narrower results are its low bits.
z3::expr truncateToSigned(const z3::expr &fp, unsigned bits) {
  z3::context &ctx = fp.ctx();
  unsigned conv = bits <= 32 ? 32 : 64;
  int top = static_cast<int>(conv) - 1;
  z3::expr inRange =
      !isNan(fp) && atLeast(fp, -powerOfTwo(fp, top)) && lessThan(fp, powerOfTwo(fp, top));
  z3::expr converted(ctx, Z3_mk_fpa_to_sbv(ctx, rounding(ctx, Z3_mk_fpa_rtz), fp, conv));
  z3::expr r = z3::ite(inRange, converted, ctx.bv_val(static_cast<uint64_t>(1) << top, conv));
  return bits < conv ? r.extract(bits - 1, 0) : r;
}

std::string baseName(const std::string &name) {
  std::string n = name.rfind("llvm.", 0) == 0 ? name.substr(5) : name;
  n = n.substr(0, n.find('.'));
  static const std::set<std::string> known = {
      "fabs", "floor", "ceil",     "trunc", "round",   "rint",   "nearbyint", "sqrt",
      "fmin", "fmax",  "copysign", "fma",   "fmuladd", "minnum", "maxnum"};
  if (!known.count(n) && n.size() > 1 && n.back() == 'f' && known.count(n.substr(0, n.size() - 1)))
    n.pop_back(); // sqrtf, floorf: the float versions
  return known.count(n) ? n : "";
}

} // namespace

bool isSymbolicFloat(const llvm::Type *t) { return t->isFloatTy() || t->isDoubleTy(); }

z3::expr floatOfBits(const z3::expr &bits) {
  z3::context &ctx = bits.ctx();
  if (isKind(bits, Z3_OP_FPA_TO_IEEE_BV))
    return bits.arg(0);
  unsigned width = bits.get_sort().bv_size();
  uint64_t v = 0;
  if (bits.is_numeral() && bits.is_numeral_u64(v))
    return numeralOf(ctx, floatOfInputBits(v, width), width);
  return z3::expr(ctx, Z3_mk_fpa_to_fp_bv(ctx, bits, sortOfWidth(ctx, width)));
}

z3::expr bitsOfFloat(const z3::expr &fp) {
  z3::context &ctx = fp.ctx();
  if (isKind(fp, Z3_OP_FPA_TO_FP) && fp.num_args() == 1 && fp.arg(0).is_bv())
    return fp.arg(0);
  if (auto v = floatNumeral(fp); v && !std::isnan(*v))
    return ctx.bv_val(inputBitsOfFloat(*v, widthOf(fp)), widthOf(fp));
  return z3::expr(ctx, Z3_mk_fpa_to_ieee_bv(ctx, fp));
}

std::optional<z3::expr> floatArithmetic(unsigned opcode, const z3::expr &a, const z3::expr &b) {
  z3::context &ctx = a.ctx();
  z3::expr x = floatOfBits(a), y = floatOfBits(b), rm = nearestEven(ctx);
  Z3_ast r = nullptr;
  switch (opcode) {
  case llvm::Instruction::FAdd:
    r = Z3_mk_fpa_add(ctx, rm, x, y);
    break;
  case llvm::Instruction::FSub:
    r = Z3_mk_fpa_sub(ctx, rm, x, y);
    break;
  case llvm::Instruction::FMul:
    r = Z3_mk_fpa_mul(ctx, rm, x, y);
    break;
  case llvm::Instruction::FDiv:
    r = Z3_mk_fpa_div(ctx, rm, x, y);
    break;
  default:
    return std::nullopt;
  }
  return bitsOfFloat(z3::expr(ctx, r));
}

z3::expr floatNegate(const z3::expr &a) {
  return bitsOfFloat(z3::expr(a.ctx(), Z3_mk_fpa_neg(a.ctx(), floatOfBits(a))));
}

z3::expr floatCompare(llvm::CmpInst::Predicate p, const z3::expr &a, const z3::expr &b) {
  z3::context &ctx = a.ctx();
  z3::expr x = floatOfBits(a), y = floatOfBits(b);
  z3::expr unordered = isNan(x) || isNan(y);
  auto mk = [&](Z3_ast (*f)(Z3_context, Z3_ast, Z3_ast)) { return z3::expr(ctx, f(ctx, x, y)); };
  switch (p) {
  case llvm::CmpInst::FCMP_FALSE:
    return ctx.bool_val(false);
  case llvm::CmpInst::FCMP_TRUE:
    return ctx.bool_val(true);
  case llvm::CmpInst::FCMP_OEQ:
    return mk(Z3_mk_fpa_eq);
  case llvm::CmpInst::FCMP_OGT:
    return mk(Z3_mk_fpa_gt);
  case llvm::CmpInst::FCMP_OGE:
    return mk(Z3_mk_fpa_geq);
  case llvm::CmpInst::FCMP_OLT:
    return mk(Z3_mk_fpa_lt);
  case llvm::CmpInst::FCMP_OLE:
    return mk(Z3_mk_fpa_leq);
  case llvm::CmpInst::FCMP_ONE:
    return mk(Z3_mk_fpa_lt) || mk(Z3_mk_fpa_gt);
  case llvm::CmpInst::FCMP_ORD:
    return !unordered;
  case llvm::CmpInst::FCMP_UNO:
    return unordered;
  case llvm::CmpInst::FCMP_UEQ:
    return unordered || mk(Z3_mk_fpa_eq);
  case llvm::CmpInst::FCMP_UGT:
    return unordered || mk(Z3_mk_fpa_gt);
  case llvm::CmpInst::FCMP_UGE:
    return unordered || mk(Z3_mk_fpa_geq);
  case llvm::CmpInst::FCMP_ULT:
    return unordered || mk(Z3_mk_fpa_lt);
  case llvm::CmpInst::FCMP_ULE:
    return unordered || mk(Z3_mk_fpa_leq);
  default: // FCMP_UNE
    return !mk(Z3_mk_fpa_eq);
  }
}

std::optional<z3::expr> floatCast(unsigned opcode, const z3::expr &value, const llvm::Type *from,
                                  const llvm::Type *to) {
  z3::context &ctx = value.ctx();
  z3::expr rm = nearestEven(ctx);
  switch (opcode) {
  case llvm::Instruction::FPToSI:
    return truncateToSigned(floatOfBits(value), to->getIntegerBitWidth());
  case llvm::Instruction::FPToUI: {
    z3::expr x = floatOfBits(value);
    unsigned bits = to->getIntegerBitWidth();
    z3::expr inRange(ctx, Z3_mk_fpa_to_ubv(ctx, rounding(ctx, Z3_mk_fpa_rtz), x, bits));
    return z3::ite(
        isNan(x) || lessThan(x, numeralOf(ctx, 0.0, widthOf(x))), truncateToSigned(x, bits),
        z3::ite(atLeast(x, powerOfTwo(x, static_cast<int>(bits))), ctx.bv_val(0, bits), inRange));
  }
  case llvm::Instruction::SIToFP:
  case llvm::Instruction::UIToFP: {
    z3::sort s = sortOfWidth(ctx, to->getPrimitiveSizeInBits().getFixedValue());
    Z3_ast r = opcode == llvm::Instruction::SIToFP ? Z3_mk_fpa_to_fp_signed(ctx, rm, value, s)
                                                   : Z3_mk_fpa_to_fp_unsigned(ctx, rm, value, s);
    return bitsOfFloat(z3::expr(ctx, r));
  }
  case llvm::Instruction::FPExt:
  case llvm::Instruction::FPTrunc: {
    if (!isSymbolicFloat(from) || !isSymbolicFloat(to))
      return std::nullopt;
    z3::sort s = sortOfWidth(ctx, to->getPrimitiveSizeInBits().getFixedValue());
    return bitsOfFloat(z3::expr(ctx, Z3_mk_fpa_to_fp_float(ctx, rm, floatOfBits(value), s)));
  }
  default:
    return std::nullopt;
  }
}

std::optional<z3::expr> floatFunction(const std::string &name, const std::vector<z3::expr> &args,
                                      unsigned bits) {
  std::string f = baseName(name);
  if (f.empty() || args.empty() || (bits != 32 && bits != 64))
    return std::nullopt;
  for (const z3::expr &a : args)
    if (!a.is_bv() || a.get_sort().bv_size() != bits)
      return std::nullopt;
  z3::context &ctx = args[0].ctx();
  z3::expr x = floatOfBits(args[0]);
  auto done = [](z3::context &c, Z3_ast r) { return bitsOfFloat(z3::expr(c, r)); };
  auto roundTo = [&](Z3_ast (*mode)(Z3_context)) {
    return done(ctx, Z3_mk_fpa_round_to_integral(ctx, rounding(ctx, mode), x));
  };
  if (f == "fabs")
    return done(ctx, Z3_mk_fpa_abs(ctx, x));
  if (f == "floor")
    return roundTo(Z3_mk_fpa_rtn);
  if (f == "ceil")
    return roundTo(Z3_mk_fpa_rtp);
  if (f == "trunc")
    return roundTo(Z3_mk_fpa_rtz);
  if (f == "round")
    return roundTo(Z3_mk_fpa_rna);
  if (f == "rint" || f == "nearbyint")
    return roundTo(Z3_mk_fpa_rne);
  if (f == "sqrt")
    return done(ctx, Z3_mk_fpa_sqrt(ctx, nearestEven(ctx), x));
  if (args.size() < 2)
    return std::nullopt;
  z3::expr y = floatOfBits(args[1]);
  if (f == "fmin" || f == "minnum")
    return done(ctx, Z3_mk_fpa_min(ctx, x, y));
  if (f == "fmax" || f == "maxnum")
    return done(ctx, Z3_mk_fpa_max(ctx, x, y));
  if (f == "copysign") {
    z3::expr magnitude(ctx, Z3_mk_fpa_abs(ctx, x));
    z3::expr negative = args[1].extract(bits - 1, bits - 1) == ctx.bv_val(1, 1);
    return bitsOfFloat(z3::ite(negative, z3::expr(ctx, Z3_mk_fpa_neg(ctx, magnitude)), magnitude));
  }
  if (args.size() < 3)
    return std::nullopt;
  z3::expr z = floatOfBits(args[2]);
  if (f == "fma")
    return done(ctx, Z3_mk_fpa_fma(ctx, nearestEven(ctx), x, y, z));
  // fmuladd: LLVM may fuse or not; x86-64 code without FMA rounds the product first.
  z3::expr product(ctx, Z3_mk_fpa_mul(ctx, nearestEven(ctx), x, y));
  return done(ctx, Z3_mk_fpa_add(ctx, nearestEven(ctx), product, z));
}

std::optional<double> floatNumeral(const z3::expr &fp) {
  if (!fp.is_fpa() || !fp.is_app())
    return std::nullopt;
  switch (fp.decl().decl_kind()) {
  case Z3_OP_FPA_NUM:
  case Z3_OP_FPA_PLUS_INF:
  case Z3_OP_FPA_MINUS_INF:
  case Z3_OP_FPA_NAN:
  case Z3_OP_FPA_PLUS_ZERO:
  case Z3_OP_FPA_MINUS_ZERO:
    break;
  case Z3_OP_FPA_FP: // fp(sign, exponent, significand) of numerals
    for (unsigned i = 0; i < fp.num_args(); ++i)
      if (!fp.arg(i).is_numeral())
        return std::nullopt;
    break;
  default:
    return std::nullopt;
  }
  z3::expr bits = z3::expr(fp.ctx(), Z3_mk_fpa_to_ieee_bv(fp.ctx(), fp)).simplify();
  uint64_t v = 0;
  if (!bits.is_numeral_u64(v))
    return std::nullopt;
  return floatOfInputBits(v, widthOf(fp));
}

} // namespace rootline
