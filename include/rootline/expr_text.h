// Formulas as a C developer reads them (docs/symbolic.md, "Display"): infix operators,
// differences, characters, signed decimal constants, and inputs by the names the program
// gives them (`q <= p && (p - q) > 3`) when `names` maps solver names to them.
#pragma once

#include "rootline/symbolic.h"

#include <z3++.h>

#include <map>
#include <string>
#include <vector>

namespace rootline {

// Solver name ("tok@10:i32") -> display name ("q").
using DisplayNames = std::map<std::string, std::string>;

std::string readableExpr(const z3::expr &e, const DisplayNames *names = nullptr);

// A conjunction as text: each conjunct simplified on its own (when it has at most
// `simplifyNodes` nodes: simplifying one conjunction of thousands costs more than the
// replay that built it), `true` dropped, each distinct conjunct once, joined by `&&`.
std::string readableConjunction(const std::vector<PathConstraint> &conjuncts,
                                const DisplayNames *names = nullptr, uint32_t simplifyNodes = 256);

// A byte as a C character literal: 'a', '\n', '\0', '\x80'.
std::string cCharLiteral(unsigned char c);
// `text` as a C string literal: "a\tb\n", other non-printable bytes as octal escapes.
std::string cStringLiteral(const std::string &text);

// The shortest decimal that reads back as the same double (or float, `single`): "30",
// "0.1", "1e+300", "inf", "nan". floatLiteral adds ".0" to an integral one, as C source
// writes a floating-point constant ("30.0").
std::string shortestDecimal(double value, bool single = false);
std::string floatLiteral(double value, bool single = false);

// The display names of a run's inputs (InputVar::display).
DisplayNames displayNamesOf(const std::vector<InputVar> &inputs);

} // namespace rootline
