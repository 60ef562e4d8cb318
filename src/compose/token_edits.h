// One-token edits of a changed line: the revert stage's edit trials (docs/debug.md,
// "Edit evidence"). A relational or logical operator swapped for its usual mistake
// (`==`/`!=`, `<`/`<=`, `>`/`>=`, `&&`/`||`), a decimal integer literal one off (`n - 1`
// → `n - 0`, `n - 2`), or an increment turned (`++`/`--`): mutation testing's ROR, LCR
// and constant-replacement families. An edit of one line that makes the failing
// test pass, with the rest of the change kept, tells that line apart from the others its
// revert unit puts back (the idea of "unified debugging": a repair that works says where
// the fault is).
#pragma once

#include <string>
#include <vector>

namespace rootline::debug {

struct TokenEdit {
  size_t column = 0; // byte offset of the operator or literal in the line
  std::string from, to;
  bool literal = false; // a literal one off (tried after every line's operators)
};

// The edits of one line of C (comments already blanked), conditions' operators first,
// then increments, then literals one off (one less, then one more), each in the line's
// order. None for a preprocessor line, or when the
// line does not read as whole tokens (a string continued from the line before).
std::vector<TokenEdit> tokenEditsOf(const std::string &line);

// `text` with `edit` applied to its line `line` (1-based); `text` unchanged when the
// line does not hold `edit.from` at its column.
std::string withTokenEdit(const std::string &text, unsigned line, const TokenEdit &edit);

// Whether one line of C (comments blanked) opens a control statement whose body it does not
// hold: `if (n > 0)`, `for (i = 0; i < n; i++)`, `else`, `} else {`, `while (p) {`, `do`;
// not `if (n > 0) n--;` nor `} while (p);`, which end on the line.
bool opensControlStatement(const std::string &line);

} // namespace rootline::debug
