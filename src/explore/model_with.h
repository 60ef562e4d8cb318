// Models checked by evaluation, without the solver: the searches (float_search.h,
// integer_search.h) try one input's candidate values this way, and ClosestInput puts
// seed values back.
#pragma once

#include <z3++.h>

#include <cstdint>

namespace rootline {

// `base` with `var` (a bit-vector constant of `bits` bits) set to `value`.
inline z3::model modelWith(const z3::model &base, const z3::expr &var, uint64_t value,
                           unsigned bits) {
  z3::context &ctx = var.ctx();
  z3::model m(ctx);
  z3::func_decl d = var.decl();
  for (unsigned i = 0; i < base.num_consts(); ++i) {
    z3::func_decl c = base.get_const_decl(i);
    if (!z3::eq(c, d)) {
      z3::expr interp = base.get_const_interp(c);
      m.add_const_interp(c, interp);
    }
  }
  z3::expr v = ctx.bv_val(value, bits);
  m.add_const_interp(d, v);
  return m;
}

// Whether every formula evaluates to true in `m` (model completion on).
template <typename Formulas> bool holdsAll(const z3::model &m, const Formulas &formulas) {
  for (const z3::expr &f : formulas)
    if (!m.eval(f, true).is_true())
      return false;
  return true;
}

} // namespace rootline
