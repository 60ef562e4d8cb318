#include "rootline/expr_text.h"

#include "symbolic/float_ops.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rootline {

namespace {

// An infix operator: its C spelling (`u` marks the unsigned forms C spells by type) and
// its C precedence (1 binds tightest: postfix 1, unary 2, * / % 3, + - 4, shifts 5,
// relational 6, equality 7, & 8, ^ 9, | 10, && 11, || 12, ?: 13).
struct Operator {
  const char *text = nullptr;
  int precedence = 0;
};

Operator operatorOf(Z3_decl_kind k) {
  switch (k) {
  case Z3_OP_BMUL:
    return {"*", 3};
  case Z3_OP_BSDIV:
  case Z3_OP_BSDIV_I:
    return {"/", 3};
  case Z3_OP_BUDIV:
  case Z3_OP_BUDIV_I:
    return {"/u", 3};
  case Z3_OP_BSREM:
  case Z3_OP_BSREM_I:
    return {"%", 3};
  case Z3_OP_BUREM:
  case Z3_OP_BUREM_I:
    return {"%u", 3};
  case Z3_OP_BADD:
    return {"+", 4};
  case Z3_OP_BSUB:
    return {"-", 4};
  case Z3_OP_BSHL:
    return {"<<", 5};
  case Z3_OP_BLSHR:
    return {">>u", 5};
  case Z3_OP_BASHR:
    return {">>", 5};
  case Z3_OP_SLEQ:
    return {"<=", 6};
  case Z3_OP_SLT:
    return {"<", 6};
  case Z3_OP_SGEQ:
    return {">=", 6};
  case Z3_OP_SGT:
    return {">", 6};
  case Z3_OP_ULEQ:
    return {"<=u", 6};
  case Z3_OP_ULT:
    return {"<u", 6};
  case Z3_OP_UGEQ:
    return {">=u", 6};
  case Z3_OP_UGT:
    return {">u", 6};
  case Z3_OP_EQ:
  case Z3_OP_DISTINCT:
    return {"==", 7};
  case Z3_OP_BAND:
    return {"&", 8};
  case Z3_OP_BXOR:
    return {"^", 9};
  case Z3_OP_BOR:
    return {"|", 10};
  case Z3_OP_AND:
    return {"&&", 11};
  case Z3_OP_OR:
    return {"||", 12};
  case Z3_OP_ITE:
    return {nullptr, 13};
  default:
    return {};
  }
}

const char *infix(Z3_decl_kind k) { return k == Z3_OP_DISTINCT ? nullptr : operatorOf(k).text; }

int precedence(Z3_decl_kind k) { return operatorOf(k).precedence; }

// The comparison that `!(a op b)` is.
const char *negated(Z3_decl_kind k) {
  switch (k) {
  case Z3_OP_SLEQ:
    return ">";
  case Z3_OP_SLT:
    return ">=";
  case Z3_OP_SGEQ:
    return "<";
  case Z3_OP_SGT:
    return "<=";
  case Z3_OP_ULEQ:
    return ">u";
  case Z3_OP_ULT:
    return ">=u";
  case Z3_OP_UGEQ:
    return "<u";
  case Z3_OP_UGT:
    return "<=u";
  case Z3_OP_EQ:
    return "!=";
  default:
    return nullptr;
  }
}

// `limit`: the loosest precedence (operatorOf) the context takes without parentheses.
// kTop takes anything.
constexpr int kTop = 99;
std::string text(const z3::expr &e, int limit);

std::string wrap(const std::string &s, int own, int limit) {
  return own > limit ? "(" + s + ")" : s;
}

// The input names of the expression being printed (readableExpr's argument): the
// printer's functions recurse, and this is the one thing they all read.
thread_local const DisplayNames *shownNames = nullptr;

std::string numeral(const z3::expr &e) {
  if (!e.is_bv())
    return e.to_string();
  unsigned bits = e.get_sort().bv_size();
  std::string dec = e.get_decimal_string(0);
  if (bits <= 64) {
    uint64_t v = std::stoull(dec);
    if (bits < 64 && (v >> (bits - 1)) & 1)
      return std::to_string(static_cast<int64_t>(v | (~0ull << bits)));
    if (bits == 64)
      return std::to_string(static_cast<int64_t>(v));
  }
  return dec;
}

bool isNumeral(const z3::expr &e, int64_t value) {
  return e.is_numeral() && numeral(e) == std::to_string(value);
}

// The value an extension widens, when `e` is one in the shape Z3's simplifier leaves:
// concat(0, x) (zero extension) or concat(x[n:n], ..., x[n:n], x) (sign extension).
std::optional<z3::expr> extended(const z3::expr &e) {
  if (!e.is_app())
    return std::nullopt;
  Z3_decl_kind k = e.decl().decl_kind();
  if (k == Z3_OP_ZERO_EXT || k == Z3_OP_SIGN_EXT)
    return e.arg(0);
  if (k != Z3_OP_CONCAT || e.num_args() < 2)
    return std::nullopt;
  z3::expr last = e.arg(e.num_args() - 1);
  if (e.num_args() == 2 && e.arg(0).is_numeral() && numeral(e.arg(0)) == "0")
    return last;
  if (!last.is_bv())
    return std::nullopt;
  unsigned top = last.get_sort().bv_size() - 1;
  for (unsigned i = 0; i + 1 < e.num_args(); ++i) {
    z3::expr a = e.arg(i);
    if (!a.is_app() || a.decl().decl_kind() != Z3_OP_EXTRACT || !z3::eq(a.arg(0), last))
      return std::nullopt;
    unsigned hi = static_cast<unsigned>(Z3_get_decl_int_parameter(e.ctx(), a.decl(), 0));
    unsigned lo = static_cast<unsigned>(Z3_get_decl_int_parameter(e.ctx(), a.decl(), 1));
    if (hi != top || lo != top)
      return std::nullopt;
  }
  return last;
}

// An input byte, possibly widened: its comparisons show characters.
bool byteOperand(const z3::expr &e) {
  z3::expr x = e;
  while (auto inner = extended(x))
    x = *inner;
  return x.is_app() && x.decl().decl_kind() == Z3_OP_UNINTERPRETED && x.num_args() == 0 &&
         x.is_bv() && x.get_sort().bv_size() == 8;
}

// A numeral compared with an input byte, as a C character literal when it is one.
std::string charOperand(const z3::expr &e, int limit) {
  if (!e.is_numeral())
    return text(e, limit);
  int64_t v = std::stoll(numeral(e));
  if (v < 0 && v >= -128)
    v += 256;
  bool character = (v >= 0x20 && v < 0x7f) || v == '\n' || v == '\t' || v == '\r' || v == 0;
  return character ? cCharLiteral(static_cast<unsigned char>(v)) : numeral(e);
}

// `own`: 6 for a relational operator, 7 for == and !=; operands take arithmetic and
// shifts bare, anything looser in parentheses (`(x & y) != 0`).
// A value whose sign bit is clear: a zero-extended value, or a numeral below the sign bit.
bool nonNegative(const z3::expr &e) {
  if (e.is_numeral())
    return numeral(e)[0] != '-';
  if (!e.is_app())
    return false;
  Z3_decl_kind k = e.decl().decl_kind();
  if (k == Z3_OP_ZERO_EXT)
    return true;
  return k == Z3_OP_CONCAT && e.num_args() == 2 && e.arg(0).is_numeral() &&
         numeral(e.arg(0)) == "0";
}

// The same comparison with its operands swapped: `5 > m` is `m < 5`.
std::string mirrored(const std::string &op) {
  static const std::map<std::string, std::string> mirror = {
      {"<", ">"}, {">", "<"}, {"<=", ">="}, {">=", "<="}};
  std::string base = op.back() == 'u' ? op.substr(0, op.size() - 1) : op;
  auto m = mirror.find(base);
  return m == mirror.end() ? op : m->second + (base.size() < op.size() ? "u" : "");
}

// C's unsigned type of a width, for a cast that makes a comparison unsigned.
std::string unsignedType(unsigned bits) {
  switch (bits) {
  case 8:
    return "unsigned char";
  case 16:
    return "unsigned short";
  case 32:
    return "unsigned";
  case 64:
    return "unsigned long";
  default:
    return "uint" + std::to_string(bits);
  }
}

// An operand of an unsigned operation that may be negative: cast to the unsigned type
// (a numeral shows its unsigned value).
std::string unsignedOperand(const z3::expr &x) {
  return x.is_numeral() ? x.get_decimal_string(0)
                        : "(" + unsignedType(x.get_sort().bv_size()) + ")" + text(x, 2);
}

// A numeral, integer or floating-point.
bool constant(const z3::expr &e) { return e.is_numeral() || floatNumeral(e).has_value(); }

std::string comparison(const z3::expr &a0, const char *op0, const z3::expr &b0, int own,
                       int limit) {
  // A constant goes on the right, as C programmers write it.
  bool swap = constant(a0) && !constant(b0);
  const z3::expr &a = swap ? b0 : a0;
  const z3::expr &b = swap ? a0 : b0;
  std::string o = swap ? mirrored(op0) : op0;
  std::string l = byteOperand(b) ? charOperand(a, 5) : text(a, 5);
  std::string r = byteOperand(a) ? charOperand(b, 5) : text(b, 5);
  // An unsigned comparison reads as C writes it: the plain operator where signed and
  // unsigned agree (both sides non-negative), else with a cast to the unsigned type.
  if (o.size() > 1 && o.back() == 'u' && o[0] != '/' && o[0] != '%') {
    o.pop_back();
    if (!nonNegative(a))
      l = unsignedOperand(a);
    else if (!nonNegative(b))
      r = unsignedOperand(b);
  }
  return wrap(l + " " + o + " " + r, own, limit);
}

bool isComparison(Z3_decl_kind k) {
  switch (k) {
  case Z3_OP_EQ:
  case Z3_OP_DISTINCT:
  case Z3_OP_SLEQ:
  case Z3_OP_SLT:
  case Z3_OP_SGEQ:
  case Z3_OP_SGT:
  case Z3_OP_ULEQ:
  case Z3_OP_ULT:
  case Z3_OP_UGEQ:
  case Z3_OP_UGT:
    return true;
  default:
    return false;
  }
}

// A sum as C writes it: `a - b` for `a + (-1 * b)` and `a + -5`, constants last.
std::string sum(const z3::expr &e, int limit) {
  std::vector<z3::expr> terms, constants;
  for (unsigned i = 0; i < e.num_args(); ++i)
    (e.arg(i).is_numeral() ? constants : terms).push_back(e.arg(i));
  terms.insert(terms.end(), constants.begin(), constants.end());
  std::string s;
  for (size_t i = 0; i < terms.size(); ++i) {
    const z3::expr &t = terms[i];
    bool negated = false;
    std::string body;
    if (t.is_numeral() && numeral(t)[0] == '-') {
      negated = true;
      body = numeral(t).substr(1);
    } else if (t.is_app() && t.decl().decl_kind() == Z3_OP_BMUL && t.num_args() == 2 &&
               isNumeral(t.arg(0), -1)) {
      negated = true;
      body = text(t.arg(1), 3); // `a - (b + c)`
    } else {
      body = text(t, i == 0 ? 4 : 3);
    }
    if (i == 0)
      s = (negated ? "-" : "") + body;
    else
      s += (negated ? " - " : " + ") + body;
  }
  return wrap(s, 4, limit);
}

// `x | (y & z)`: C needs no parentheses there, its readers do (as -Wparentheses says).
bool mixedBitwise(Z3_decl_kind outer, const z3::expr &operand) {
  auto bitwise = [](Z3_decl_kind k) {
    return k == Z3_OP_BAND || k == Z3_OP_BOR || k == Z3_OP_BXOR;
  };
  return bitwise(outer) && operand.is_app() && bitwise(operand.decl().decl_kind()) &&
         operand.decl().decl_kind() != outer;
}

std::string binary(const z3::expr &e, const char *op, int limit) {
  Z3_decl_kind k = e.decl().decl_kind();
  if (k == Z3_OP_BADD)
    return sum(e, limit);
  if (k == Z3_OP_BMUL && e.num_args() == 2 && isNumeral(e.arg(0), -1))
    return wrap("-" + text(e.arg(1), 2), 2, limit);
  int own = precedence(k);
  if (isComparison(k) && e.num_args() == 2)
    return comparison(e.arg(0), op, e.arg(1), own, limit);
  // Left to right: the first operand may have the same precedence, the others must bind
  // tighter unless the operator is associative (+ * & | ^ && ||).
  bool associative = k == Z3_OP_BMUL || k == Z3_OP_BAND || k == Z3_OP_BOR || k == Z3_OP_BXOR ||
                     k == Z3_OP_AND || k == Z3_OP_OR;
  // Unsigned / % >> read as C writes them: the plain operator, with a cast to the
  // unsigned type on an operand that may be negative (a shift's left one only).
  std::string o = op;
  int castAt = -1;
  if (o.size() > 1 && o.back() == 'u') {
    o.pop_back();
    unsigned candidates = k == Z3_OP_BLSHR ? 1 : e.num_args();
    for (unsigned i = 0; i < candidates && castAt < 0; ++i)
      if (!nonNegative(e.arg(i)))
        castAt = static_cast<int>(i);
  }
  std::string s;
  for (unsigned i = 0; i < e.num_args(); ++i) {
    if (i)
      s += " " + o + " ";
    if (static_cast<int>(i) == castAt)
      s += unsignedOperand(e.arg(i));
    else
      s += text(e.arg(i), mixedBitwise(k, e.arg(i)) ? 0 : i == 0 || associative ? own : own - 1);
  }
  return wrap(s, own, limit);
}

// How many more subterms the current display may print: a formula is a DAG, and printed
// as a tree a chain of shared if-then-elses (a pointer the inputs choose) is exponential.
thread_local long printBudget = 0;
constexpr long kMaxPrintedTerms = 2000;

// The C of a floating-point term (float_ops.h builds them): operators, casts and the
// libm functions they are; nullopt for a term that is not one. A negated comparison
// reads as the opposite one (`!(x < 30.0)` as `x >= 30.0`), which differs only for NaN.
std::optional<std::string> floatText(const z3::expr &e, int limit) {
  if (auto v = floatNumeral(e)) {
    std::string n = floatLiteral(*v, e.get_sort().fpa_ebits() == 8);
    return n[0] == '-' ? wrap(n, 2, limit) : n;
  }
  if (!e.is_app())
    return std::nullopt;
  Z3_decl_kind k = e.decl().decl_kind();
  unsigned n = e.num_args();
  auto typeName = [](const z3::expr &x) {
    return x.is_fpa() && x.get_sort().fpa_ebits() == 8 ? std::string("float")
                                                       : std::string("double");
  };
  auto call = [&](const char *f, unsigned from) {
    std::string s = std::string(f) + "(";
    for (unsigned i = from; i < n; ++i)
      s += (i > from ? ", " : "") + text(e.arg(i), kTop);
    return s + ")";
  };
  auto infixOf = [&](const char *op, int own) {
    // Arguments after the rounding mode: (rm, a, b).
    return wrap(text(e.arg(1), own) + " " + op + " " + text(e.arg(2), own - 1), own, limit);
  };
  switch (k) {
  case Z3_OP_FPA_TO_IEEE_BV:
    return text(e.arg(0), limit);
  case Z3_OP_FPA_TO_FP:
    if (n == 1) // a float's bits read as the float
      return text(e.arg(0), limit);
    if (n == 2 && e.arg(1).is_bv()) // from a signed integer
      return wrap("(" + typeName(e) + ")" + text(e.arg(1), 2), 2, limit);
    if (n == 2) // float <-> double
      return wrap("(" + typeName(e) + ")" + text(e.arg(1), 2), 2, limit);
    return std::nullopt;
  case Z3_OP_FPA_TO_FP_UNSIGNED:
    return wrap("(" + typeName(e) + ")" + unsignedOperand(e.arg(1)), 2, limit);
  case Z3_OP_FPA_FP: { // fp(x[63:63], x[62:52], x[51:0]): the bits of x
    std::optional<z3::expr> whole;
    for (unsigned i = 0; i < n; ++i) {
      z3::expr a = e.arg(i);
      if (!a.is_app() || a.decl().decl_kind() != Z3_OP_EXTRACT ||
          (whole && !z3::eq(*whole, a.arg(0))))
        return std::nullopt;
      whole = a.arg(0);
    }
    return whole ? std::optional<std::string>(text(*whole, limit)) : std::nullopt;
  }
  case Z3_OP_FPA_ADD:
    return infixOf("+", 4);
  case Z3_OP_FPA_SUB:
    return infixOf("-", 4);
  case Z3_OP_FPA_MUL:
    return infixOf("*", 3);
  case Z3_OP_FPA_DIV:
    return infixOf("/", 3);
  case Z3_OP_FPA_NEG:
    return wrap("-" + text(e.arg(0), 2), 2, limit);
  case Z3_OP_FPA_ABS:
    return call("fabs", 0);
  case Z3_OP_FPA_SQRT:
    return call("sqrt", 1);
  case Z3_OP_FPA_MIN:
    return call("fmin", 0);
  case Z3_OP_FPA_MAX:
    return call("fmax", 0);
  case Z3_OP_FPA_FMA:
    return call("fma", 1);
  case Z3_OP_FPA_ROUND_TO_INTEGRAL: {
    Z3_decl_kind mode = e.arg(0).decl().decl_kind();
    const char *f = mode == Z3_OP_FPA_RM_TOWARD_NEGATIVE        ? "floor"
                    : mode == Z3_OP_FPA_RM_TOWARD_POSITIVE      ? "ceil"
                    : mode == Z3_OP_FPA_RM_TOWARD_ZERO          ? "trunc"
                    : mode == Z3_OP_FPA_RM_NEAREST_TIES_TO_AWAY ? "round"
                                                                : "rint";
    return call(f, 1);
  }
  case Z3_OP_FPA_TO_SBV:
  case Z3_OP_FPA_TO_UBV: {
    unsigned bits = e.get_sort().bv_size();
    std::string type = k == Z3_OP_FPA_TO_UBV ? unsignedType(bits) : bits <= 32 ? "int" : "long";
    return wrap("(" + type + ")" + text(e.arg(1), 2), 2, limit);
  }
  case Z3_OP_FPA_LT:
    return comparison(e.arg(0), "<", e.arg(1), 6, limit);
  case Z3_OP_FPA_LE:
    return comparison(e.arg(0), "<=", e.arg(1), 6, limit);
  case Z3_OP_FPA_GT:
    return comparison(e.arg(0), ">", e.arg(1), 6, limit);
  case Z3_OP_FPA_GE:
    return comparison(e.arg(0), ">=", e.arg(1), 6, limit);
  case Z3_OP_FPA_EQ:
    return comparison(e.arg(0), "==", e.arg(1), 7, limit);
  case Z3_OP_FPA_IS_NAN:
    return call("isnan", 0);
  case Z3_OP_FPA_IS_INF:
    return call("isinf", 0);
  case Z3_OP_FPA_IS_NEGATIVE:
    return call("signbit", 0);
  case Z3_OP_FPA_IS_ZERO:
    return comparison(e.arg(0),
                      "==", z3::expr(e.ctx(), Z3_mk_fpa_zero(e.ctx(), e.arg(0).get_sort(), false)),
                      7, limit);
  default:
    return std::nullopt;
  }
}

// float_ops' conversion to an integer, `ite(in range, fp.to_sbv(x), indefinite)` (and the
// unsigned one's nest): the C cast it is, without x86's out-of-range value.
std::optional<z3::expr> guardedConversion(const z3::expr &e) {
  if (!e.is_app() || e.decl().decl_kind() != Z3_OP_ITE)
    return std::nullopt;
  auto kind = [](const z3::expr &x) {
    return x.is_app() ? x.decl().decl_kind() : Z3_OP_UNINTERPRETED;
  };
  z3::expr then = e.arg(1), otherwise = e.arg(2);
  if (kind(then) == Z3_OP_FPA_TO_SBV && otherwise.is_numeral())
    return then;
  if (kind(otherwise) == Z3_OP_ITE && otherwise.arg(1).is_numeral() &&
      kind(otherwise.arg(2)) == Z3_OP_FPA_TO_UBV)
    return otherwise.arg(2);
  return std::nullopt;
}

// The comparison that `!(a op b)` of floating-point operands reads as.
const char *negatedFloat(Z3_decl_kind k) {
  switch (k) {
  case Z3_OP_FPA_LT:
    return ">=";
  case Z3_OP_FPA_LE:
    return ">";
  case Z3_OP_FPA_GT:
    return "<=";
  case Z3_OP_FPA_GE:
    return "<";
  case Z3_OP_FPA_EQ:
    return "!=";
  default:
    return nullptr;
  }
}

std::string text(const z3::expr &e, int limit) {
  if (--printBudget < 0)
    return "…";
  if (e.is_numeral()) {
    std::string n = numeral(e);
    return n[0] == '-' ? wrap(n, 2, limit) : n;
  }
  if (e.is_true())
    return "true";
  if (e.is_false())
    return "false";
  if (!e.is_app())
    return e.to_string();
  z3::func_decl d = e.decl();
  Z3_decl_kind k = d.decl_kind();
  if (k == Z3_OP_UNINTERPRETED && e.num_args() == 0) {
    std::string name = d.name().str();
    if (shownNames) {
      auto it = shownNames->find(name);
      if (it != shownNames->end())
        return it->second;
    }
    return name;
  }
  if (auto f = floatText(e, limit))
    return *f;
  if (k == Z3_OP_NOT) {
    z3::expr a = e.arg(0);
    if (a.is_app() && a.num_args() == 2)
      if (const char *op = negatedFloat(a.decl().decl_kind()))
        return comparison(a.arg(0), op, a.arg(1), a.decl().decl_kind() == Z3_OP_FPA_EQ ? 7 : 6,
                          limit);
    if (a.is_app() && a.num_args() == 2)
      if (const char *op = negated(a.decl().decl_kind())) {
        int own = a.decl().decl_kind() == Z3_OP_EQ ? 7 : precedence(a.decl().decl_kind());
        return comparison(a.arg(0), op, a.arg(1), own, limit);
      }
    return wrap("!" + text(a, 2), 2, limit);
  }
  if (k == Z3_OP_BNEG)
    return wrap("-" + text(e.arg(0), 2), 2, limit);
  if (k == Z3_OP_DISTINCT && e.num_args() == 2)
    return comparison(e.arg(0), "!=", e.arg(1), 7, limit);
  if (const char *op = infix(k))
    return binary(e, op, limit);
  if (auto conversion = guardedConversion(e))
    return text(*conversion, limit);
  if (k == Z3_OP_ITE)
    return wrap(text(e.arg(0), 12) + " ? " + text(e.arg(1), 12) + " : " + text(e.arg(2), 13), 13,
                limit);
  // Widened values read as the value: the comparison's signedness says how.
  if (auto inner = extended(e))
    return text(*inner, limit);
  if (k == Z3_OP_EXTRACT) {
    unsigned hi = static_cast<unsigned>(Z3_get_decl_int_parameter(e.ctx(), d, 0));
    unsigned lo = static_cast<unsigned>(Z3_get_decl_int_parameter(e.ctx(), d, 1));
    // The low bits of a wider value are C's narrowing cast: `(int)m` for a long's low 32.
    if (lo == 0 && (hi == 7 || hi == 15 || hi == 31))
      return wrap("(" +
                      std::string(hi == 7    ? "char"
                                  : hi == 15 ? "short"
                                             : "int") +
                      ")" + text(e.arg(0), 2),
                  2, limit);
    return text(e.arg(0), 1) + "[" + std::to_string(hi) + ":" + std::to_string(lo) + "]";
  }
  std::string s = d.name().str() + "(";
  for (unsigned i = 0; i < e.num_args(); ++i)
    s += (i ? ", " : "") + text(e.arg(i), kTop);
  return s + ")";
}

} // namespace

std::string readableExpr(const z3::expr &e, const DisplayNames *names) {
  const DisplayNames *outer = shownNames;
  long outerBudget = printBudget;
  shownNames = names;
  printBudget = kMaxPrintedTerms;
  std::string s = text(e, kTop);
  shownNames = outer;
  printBudget = outerBudget;
  return s;
}

std::string cCharLiteral(unsigned char c) {
  switch (c) {
  case '\n':
    return "'\\n'";
  case '\t':
    return "'\\t'";
  case '\r':
    return "'\\r'";
  case '\0':
    return "'\\0'";
  case '\'':
    return "'\\''";
  case '\\':
    return "'\\\\'";
  default:
    break;
  }
  if (c >= 0x20 && c < 0x7f)
    return std::string("'") + static_cast<char>(c) + "'";
  char buf[8];
  std::snprintf(buf, sizeof buf, "'\\x%02x'", c);
  return buf;
}

std::string cStringLiteral(const std::string &text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    default:
      if (c < 0x20 || c >= 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\%03o", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  return out + "\"";
}

std::string readableConjunction(const std::vector<PathConstraint> &conjuncts,
                                const DisplayNames *names, uint32_t simplifyNodes) {
  std::string text;
  std::set<std::string> seen;
  for (const auto &c : conjuncts) {
    z3::expr e = c.nodes <= simplifyNodes ? c.taken.simplify() : c.taken;
    if (e.is_true())
      continue;
    // Each conjunct as an operand of && (a disjunction gets parentheses).
    const DisplayNames *outer = shownNames;
    long outerBudget = printBudget;
    shownNames = names;
    printBudget = kMaxPrintedTerms;
    std::string t = ::rootline::text(e, conjuncts.size() > 1 ? 11 : kTop);
    shownNames = outer;
    printBudget = outerBudget;
    if (!seen.insert(t).second)
      continue;
    text += (text.empty() ? "" : " && ") + t;
  }
  return text.empty() ? "true" : text;
}

std::string shortestDecimal(double value, bool single) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value < 0 ? "-inf" : "inf";
  char buf[512];
  auto same = [&] {
    double back = std::strtod(buf, nullptr);
    return single ? static_cast<float>(back) == static_cast<float>(value) : back == value;
  };
  // Plain decimals where people write them ("70", "0.001"), else exponents ("1e+300").
  double magnitude = std::fabs(value);
  if (magnitude == 0 || (magnitude >= 1e-4 && magnitude < 1e15))
    for (int decimals = 0; decimals <= 20; ++decimals) {
      std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
      if (same())
        return buf;
    }
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, value);
    if (same())
      break;
  }
  return buf;
}

std::string floatLiteral(double value, bool single) {
  std::string s = shortestDecimal(value, single);
  if (s.find_first_of(".eni") == std::string::npos)
    s += ".0";
  return s;
}

DisplayNames displayNamesOf(const std::vector<InputVar> &inputs) {
  DisplayNames names;
  for (const auto &v : inputs)
    if (!v.display.empty())
      names[v.name] = v.display;
  return names;
}

} // namespace rootline
