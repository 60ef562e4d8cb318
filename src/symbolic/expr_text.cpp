#include "rootline/expr_text.h"

namespace rootline {

namespace {

const char *infix(Z3_decl_kind k) {
  switch (k) {
  case Z3_OP_BADD:
    return "+";
  case Z3_OP_BSUB:
    return "-";
  case Z3_OP_BMUL:
    return "*";
  case Z3_OP_BSDIV:
  case Z3_OP_BSDIV_I:
    return "/";
  case Z3_OP_BUDIV:
  case Z3_OP_BUDIV_I:
    return "/u";
  case Z3_OP_BSREM:
  case Z3_OP_BSREM_I:
    return "%";
  case Z3_OP_BUREM:
  case Z3_OP_BUREM_I:
    return "%u";
  case Z3_OP_BAND:
    return "&";
  case Z3_OP_BOR:
    return "|";
  case Z3_OP_BXOR:
    return "^";
  case Z3_OP_BSHL:
    return "<<";
  case Z3_OP_BLSHR:
    return ">>u";
  case Z3_OP_BASHR:
    return ">>";
  case Z3_OP_SLEQ:
    return "<=";
  case Z3_OP_SLT:
    return "<";
  case Z3_OP_SGEQ:
    return ">=";
  case Z3_OP_SGT:
    return ">";
  case Z3_OP_ULEQ:
    return "<=u";
  case Z3_OP_ULT:
    return "<u";
  case Z3_OP_UGEQ:
    return ">=u";
  case Z3_OP_UGT:
    return ">u";
  case Z3_OP_EQ:
    return "==";
  case Z3_OP_AND:
    return "&&";
  case Z3_OP_OR:
    return "||";
  default:
    return nullptr;
  }
}

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

std::string text(const z3::expr &e, bool top);

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

std::string binary(const z3::expr &e, const char *op, bool top) {
  std::string s;
  for (unsigned i = 0; i < e.num_args(); ++i) {
    if (i)
      s += std::string(" ") + op + " ";
    s += text(e.arg(i), false);
  }
  return top ? s : "(" + s + ")";
}

std::string text(const z3::expr &e, bool top) {
  if (e.is_numeral())
    return numeral(e);
  if (e.is_true())
    return "true";
  if (e.is_false())
    return "false";
  if (!e.is_app())
    return e.to_string();
  z3::func_decl d = e.decl();
  Z3_decl_kind k = d.decl_kind();
  if (k == Z3_OP_UNINTERPRETED && e.num_args() == 0)
    return d.name().str();
  if (k == Z3_OP_NOT) {
    z3::expr a = e.arg(0);
    if (a.is_app() && a.num_args() == 2)
      if (const char *op = negated(a.decl().decl_kind())) {
        std::string s = text(a.arg(0), false) + " " + op + " " + text(a.arg(1), false);
        return top ? s : "(" + s + ")";
      }
    return "!" + text(a, false);
  }
  if (k == Z3_OP_BNEG)
    return "-" + text(e.arg(0), false);
  if (k == Z3_OP_DISTINCT && e.num_args() == 2)
    return binary(e, "!=", top);
  if (const char *op = infix(k))
    return binary(e, op, top);
  if (k == Z3_OP_ITE)
    return "(" + text(e.arg(0), false) + " ? " + text(e.arg(1), false) + " : " +
           text(e.arg(2), false) + ")";
  if (k == Z3_OP_EXTRACT) {
    unsigned hi = static_cast<unsigned>(Z3_get_decl_int_parameter(e.ctx(), d, 0));
    unsigned lo = static_cast<unsigned>(Z3_get_decl_int_parameter(e.ctx(), d, 1));
    return text(e.arg(0), false) + "[" + std::to_string(hi) + ":" + std::to_string(lo) + "]";
  }
  if (k == Z3_OP_SIGN_EXT)
    return "(int" + std::to_string(e.get_sort().bv_size()) + ")" + text(e.arg(0), false);
  if (k == Z3_OP_ZERO_EXT)
    return "(uint" + std::to_string(e.get_sort().bv_size()) + ")" + text(e.arg(0), false);
  std::string s = d.name().str() + "(";
  for (unsigned i = 0; i < e.num_args(); ++i)
    s += (i ? ", " : "") + text(e.arg(i), true);
  return s + ")";
}

} // namespace

std::string readableExpr(const z3::expr &e) { return text(e, true); }

} // namespace rootline
