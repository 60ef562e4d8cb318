// Formulas as a C developer reads them: infix operators, signed decimal constants,
// input variables by name (`tok@0:i32 <= tok@2:i32 && tok@0:i32 + tok@2:i32 > 0`).
#pragma once

#include <z3++.h>

#include <string>

namespace rootline {

std::string readableExpr(const z3::expr &e);

} // namespace rootline
