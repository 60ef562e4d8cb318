// The semantic diff (include/rootline/neutral_edits.h). Renames are inferred per
// function and then per file: a name that disappears while exactly one new name
// appears exactly as often. A rename must be believable as a rename, not a change of
// which variable is used: the new name must be new (absent from the old function, or
// file), and a member name (after `.` or `->`) is never renamed, since its struct is
// elsewhere. Whatever the renames do not explain stays a change.
#include "rootline/neutral_edits.h"

#include "rootline/c_tokens.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <set>

namespace rootline {

namespace {

// A file's tokens and its top-level items (a function with its header, a declaration):
// items end at a `;` or a `}` at file scope.
struct Scan {
  struct Item {
    unsigned firstLine = 0, lastLine = 0;
    std::string name; // a function definition's name, else ""
    std::map<std::string, unsigned> uses;
  };
  std::vector<CToken> tokens;
  std::vector<Item> items;
  std::map<std::string, unsigned> uses; // the whole file's
  std::set<std::string> fileScopeNames; // identifiers outside every brace and parenthesis
  // Identifiers the file declares: after a type (a type keyword, or an identifier naming
  // a type or a struct tag, with any `*` between). Names it only uses (`isupper`, a
  // global of another file) are not the file's to rename.
  std::set<std::string> declared;

  explicit Scan(std::vector<CToken> tokensOfFile) : tokens(std::move(tokensOfFile)) {
    int depth = 0, parens = 0;
    bool open = false;
    std::string candidateName;
    for (size_t i = 0; i < tokens.size(); ++i) {
      const CToken &t = tokens[i];
      if (!open) {
        items.push_back({t.line, t.line, "", {}});
        open = true;
        candidateName.clear();
      }
      Item &item = items.back();
      item.lastLine = t.line;
      if (t.kind == CToken::Identifier && !isCKeyword(t.text)) {
        bool member = i > 0 && (tokens[i - 1].text == "." || tokens[i - 1].text == "->");
        if (!member) {
          ++item.uses[t.text];
          ++uses[t.text];
        }
        if (depth == 0 && parens == 0) { // a parameter is not a file-scope name
          fileScopeNames.insert(t.text);
          if (parens == 0 && i + 1 < tokens.size() && tokens[i + 1].text == "(")
            candidateName = t.text;
        }
      }
      if (t.kind != CToken::Punct)
        continue;
      if (t.text == "(")
        ++parens;
      else if (t.text == ")")
        parens = std::max(0, parens - 1);
      else if (t.text == "{") {
        if (depth == 0 && !candidateName.empty() && item.name.empty()) {
          item.name = candidateName;
        }
        ++depth;
      } else if (t.text == "}") {
        depth = std::max(0, depth - 1);
        if (depth == 0)
          open = false;
      } else if (t.text == ";" && depth == 0)
        open = false;
    }
    static const std::set<std::string> typeWords = {
        "int",      "char",     "short",  "long",  "float", "double",   "void",
        "unsigned", "signed",   "_Bool",  "bool",  "const", "volatile", "static",
        "extern",   "register", "struct", "union", "enum",  "inline",   "restrict"};
    // A statement that starts with a type word declares every name after a `,` at its
    // own nesting too (`int len = 0, pos = 0;`).
    size_t statement = 0;
    int nesting = 0, statementNesting = 0;
    for (size_t i = 1; i < tokens.size(); ++i) {
      const std::string &t = tokens[i].text;
      if (t == ";" || t == "{" || t == "}") {
        statement = i + 1;
        statementNesting = nesting;
      }
      if (t == "(" || t == "[")
        ++nesting;
      else if (t == ")" || t == "]")
        nesting = std::max(0, nesting - 1);
      if (tokens[i].kind != CToken::Identifier || isCKeyword(t))
        continue;
      size_t p = i - 1;
      while (p > 0 && tokens[p].text == "*")
        --p;
      const CToken &before = tokens[p];
      bool member = p > 0 && (tokens[p - 1].text == "." || tokens[p - 1].text == "->");
      bool listed = before.text == "," && nesting == statementNesting &&
                    statement < tokens.size() && typeWords.count(tokens[statement].text);
      if (typeWords.count(before.text) || listed ||
          (before.kind == CToken::Identifier && !isCKeyword(before.text) && !member))
        declared.insert(t);
    }
  }
};

// Pairs each name that disappeared with the one new name used exactly as often.
std::vector<std::pair<std::string, std::string>>
renamesBetween(const std::map<std::string, unsigned> &before,
               const std::map<std::string, unsigned> &after,
               const std::set<std::string> &forbiddenTargets) {
  std::vector<std::pair<std::string, unsigned>> gone, fresh;
  for (const auto &[name, n] : before)
    if (!after.count(name))
      gone.push_back({name, n});
  for (const auto &[name, n] : after)
    if (!before.count(name) && !forbiddenTargets.count(name))
      fresh.push_back({name, n});
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto &[a, n] : gone) {
    auto sameCount = [&](const auto &p) { return p.second == n; };
    if (std::count_if(fresh.begin(), fresh.end(), sameCount) != 1 ||
        std::count_if(gone.begin(), gone.end(), sameCount) != 1)
      continue;
    out.push_back({a, std::find_if(fresh.begin(), fresh.end(), sameCount)->first});
  }
  return out;
}

// The tokens of one line of tokenLines() below.
std::vector<std::string> lineTokens(const std::string &line) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < line.size()) {
    size_t end = line.find(' ', start);
    end = end == std::string::npos ? line.size() : end;
    out.push_back(line.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// How many of the old lines in [oldFirst, oldLast] that use `a` read, with `b` for `a`,
// as a line of the new text in [newFirst, newLast].
size_t linesExplained(const std::string &a, const std::string &b,
                      const std::vector<std::string> &oldLines, unsigned oldFirst, unsigned oldLast,
                      const std::vector<std::string> &newLines, unsigned newFirst,
                      unsigned newLast) {
  std::set<std::string> newSet;
  for (unsigned l = newFirst; l <= newLast && l < newLines.size(); ++l)
    newSet.insert(newLines[l]);
  size_t count = 0;
  for (unsigned l = oldFirst; l <= oldLast && l < oldLines.size(); ++l) {
    std::vector<std::string> words = lineTokens(oldLines[l]);
    bool uses = false;
    for (size_t k = 0; k < words.size(); ++k)
      if (words[k] == a && (k == 0 || (words[k - 1] != "." && words[k - 1] != "->"))) {
        words[k] = b;
        uses = true;
      }
    if (!uses)
      continue;
    std::string line;
    for (const auto &w : words)
      line += (line.empty() ? "" : " ") + w;
    count += newSet.count(line);
  }
  return count;
}

// Where counts do not decide (the change also added or dropped a use), lines do: `a`
// becomes `b` when at least half the function's lines that use `a` read, with `b` for
// `a`, as lines of the new function, and no other new name does as well.
std::vector<std::pair<std::string, std::string>>
renamesByLines(const std::vector<std::string> &gone, const std::vector<std::string> &fresh,
               const std::vector<std::string> &oldLines, unsigned oldFirst, unsigned oldLast,
               const std::vector<std::string> &newLines, unsigned newFirst, unsigned newLast) {
  std::set<std::string> newSet;
  for (unsigned l = newFirst; l <= newLast && l < newLines.size(); ++l)
    newSet.insert(newLines[l]);
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> taken;
  for (const auto &a : gone) {
    std::vector<std::vector<std::string>> uses;
    for (unsigned l = oldFirst; l <= oldLast && l < oldLines.size(); ++l) {
      std::vector<std::string> words = lineTokens(oldLines[l]);
      if (std::find(words.begin(), words.end(), a) != words.end())
        uses.push_back(std::move(words));
    }
    std::string best;
    size_t bestCount = 0;
    bool tie = false;
    for (const auto &b : fresh) {
      if (taken.count(b))
        continue;
      size_t count = 0;
      for (auto words : uses) {
        for (size_t k = 0; k < words.size(); ++k)
          if (words[k] == a && (k == 0 || (words[k - 1] != "." && words[k - 1] != "->")))
            words[k] = b;
        std::string line;
        for (const auto &w : words)
          line += (line.empty() ? "" : " ") + w;
        count += newSet.count(line);
      }
      if (count > bestCount) {
        best = b;
        bestCount = count;
        tie = false;
      } else if (count && count == bestCount) {
        tie = true;
      }
    }
    if (bestCount && !tie && bestCount * 2 >= uses.size()) {
      out.push_back({a, best});
      taken.insert(best);
    }
  }
  return out;
}

// One line per source line: its tokens, space-separated (comments and layout gone).
std::vector<std::string> tokenLines(const std::vector<CToken> &tokens, size_t lineCount) {
  std::vector<std::string> lines(lineCount + 1);
  for (const auto &t : tokens) {
    if (t.line >= lines.size())
      lines.resize(t.line + 1);
    std::string &l = lines[t.line];
    if (!l.empty())
      l += ' ';
    l += t.text;
  }
  return lines; // index 0 unused
}

std::string joinLines(const std::vector<std::string> &lines, size_t count) {
  std::string out;
  for (size_t l = 1; l <= count; ++l)
    out += (l < lines.size() ? lines[l] : std::string()) + "\n";
  return out;
}

std::string hunkTokens(const std::vector<std::string> &lines, unsigned start, unsigned count) {
  std::string out;
  for (unsigned l = start; l < start + count && l < lines.size(); ++l)
    if (!lines[l].empty())
      out += lines[l] + " ";
  return out;
}

} // namespace

std::string applyRenames(const std::string &text,
                         const std::map<std::string, std::string> &renames) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0, n = text.size();
  auto isIdent = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  while (i < n) {
    char c = text[i];
    size_t j = i + 1;
    if (c == '/' && i + 1 < n && (text[i + 1] == '/' || text[i + 1] == '*')) {
      size_t end = text[i + 1] == '/' ? text.find('\n', i) : text.find("*/", i + 2);
      j = end == std::string::npos ? n : (text[i + 1] == '/' ? end : end + 2);
    } else if (c == '"' || c == '\'') {
      while (j < n && text[j] != c && text[j] != '\n')
        j += text[j] == '\\' ? 2 : 1;
      j = std::min(n, j + 1);
    } else if (isIdent(c)) {
      while (j < n && isIdent(text[j]))
        ++j;
      std::string word = text.substr(i, j - i);
      bool member = (i >= 1 && text[i - 1] == '.') || (i >= 2 && text.compare(i - 2, 2, "->") == 0);
      auto it = std::isdigit(static_cast<unsigned char>(c)) || member ? renames.end()
                                                                      : renames.find(word);
      out += it == renames.end() ? word : it->second;
      i = j;
      continue;
    }
    out.append(text, i, j - i);
    i = j;
  }
  return out;
}

std::string SemanticDiff::neutralWhy(bool inNew, unsigned line) const {
  bool rawChanged = inNew ? raw.changedInNew(line) : raw.changedInOld(line);
  bool changed = inNew ? changes.changedInNew(line) : changes.changedInOld(line);
  if (!rawChanged || changed)
    return "";
  // The renames that touch this line (by its old counterpart's range).
  std::optional<unsigned> oldLine = inNew ? changes.oldLineOf(line) : line;
  std::string why;
  for (const auto &r : renames)
    if (oldLine && *oldLine >= r.oldFirst && *oldLine <= r.oldLast) {
      const std::vector<std::string> &lines = inNew ? newLineTokens : oldLineTokens;
      const std::string &name = inNew ? r.to : r.from;
      if (*oldLine < 1 || (inNew ? line : *oldLine) >= lines.size())
        continue;
      std::string padded = " " + lines[inNew ? line : *oldLine] + " ";
      if (padded.find(" " + name + " ") == std::string::npos)
        continue;
      why += (why.empty() ? "rename of `" : ", `") + r.from + "` to `" + r.to + "`";
    }
  return why.empty() ? "whitespace or comments only" : why;
}

std::optional<unsigned> SemanticDiff::replacementOf(unsigned oldLine) const {
  auto words = [](const std::string &line) {
    std::vector<std::string> v = lineTokens(line);
    return std::multiset<std::string>(v.begin(), v.end());
  };
  for (const auto &h : changes.hunks) {
    if (h.neutral || oldLine < h.oldStart || oldLine >= h.oldStart + h.oldLines)
      continue;
    if (!h.newLines)
      return std::nullopt;
    std::multiset<std::string> mine = oldLine < renamedLineTokens.size()
                                          ? words(renamedLineTokens[oldLine])
                                          : std::multiset<std::string>{};
    std::optional<unsigned> best;
    size_t bestShared = 0;
    for (unsigned l = h.newStart; l < h.newStart + h.newLines; ++l) {
      if (l >= newLineTokens.size() || newLineTokens[l].empty())
        continue;
      std::multiset<std::string> theirs = words(newLineTokens[l]), both;
      std::set_intersection(mine.begin(), mine.end(), theirs.begin(), theirs.end(),
                            std::inserter(both, both.begin()));
      if (!best || both.size() > bestShared) {
        best = l;
        bestShared = both.size();
      }
    }
    return best ? best : changes.replacementOf(oldLine);
  }
  return std::nullopt;
}

namespace {
size_t countLines(const std::string &text) { return splitLinesKeepingEnds(text).size(); }
} // namespace

std::map<std::string, std::string>
programRenames(const std::vector<std::pair<std::string, std::string>> &changedFiles) {
  std::map<std::string, std::set<std::string>> proposed; // a -> every b a file renames it to
  std::map<std::string, unsigned> filesUsing, filesRenaming;
  std::set<std::string> oldUsed, newUsed, oldDeclared, newDeclared;
  for (const auto &[oldText, newText] : changedFiles) {
    CTokens o = tokenizeCChecked(oldText), n = tokenizeCChecked(newText);
    if (o.unsure || n.unsure)
      return {}; // a file the lexer cannot read may use any name
    Scan before(std::move(o.tokens)), after(std::move(n.tokens));
    std::set<std::string> forbidden;
    for (const auto &[name, count] : before.uses) {
      oldUsed.insert(name);
      forbidden.insert(name);
      ++filesUsing[name];
    }
    for (const auto &[name, count] : after.uses)
      newUsed.insert(name);
    oldDeclared.insert(before.declared.begin(), before.declared.end());
    newDeclared.insert(after.declared.begin(), after.declared.end());
    // By counts; where several names went with the same count (a header of one-line
    // prototypes), by lines: the old line with the new name is a line of the new file.
    std::vector<std::pair<std::string, std::string>> found =
        renamesBetween(before.uses, after.uses, forbidden);
    std::set<std::string> from, to;
    for (const auto &[a, b] : found)
      from.insert(a), to.insert(b);
    std::vector<std::string> gone, fresh;
    for (const auto &[name, count] : before.uses)
      if (!after.uses.count(name) && !from.count(name))
        gone.push_back(name);
    for (const auto &[name, count] : after.uses)
      if (!before.uses.count(name) && !to.count(name))
        fresh.push_back(name);
    if (!gone.empty() && !fresh.empty()) {
      std::vector<std::string> oldLines = tokenLines(before.tokens, countLines(oldText)),
                               newLines = tokenLines(after.tokens, countLines(newText));
      for (auto r : renamesByLines(gone, fresh, oldLines, 1, static_cast<unsigned>(oldLines.size()),
                                   newLines, 1, static_cast<unsigned>(newLines.size())))
        found.push_back(r);
    }
    for (auto [a, b] : found) {
      proposed[a].insert(b);
      ++filesRenaming[a];
    }
  }
  std::map<std::string, std::string> out;
  for (const auto &[a, bs] : proposed) {
    const std::string &b = *bs.begin();
    // One new name, in every file that used the old one; the old name gone, the new one
    // new, and both declared (the definition or prototype renamed too).
    if (bs.size() == 1 && filesRenaming[a] == filesUsing[a] && !newUsed.count(a) &&
        !oldUsed.count(b) && oldDeclared.count(a) && newDeclared.count(b))
      out[a] = b;
  }
  return out;
}

SemanticDiff diffSemantically(const std::string &oldText, const std::string &newText,
                              const std::map<std::string, std::string> &programRenames) {
  SemanticDiff d;
  d.raw = diffTexts(oldText, newText);
  if (d.raw.hunks.empty()) {
    d.renamedOld = oldText;
    return d;
  }
  CTokens oldTokens = tokenizeCChecked(oldText), newTokens = tokenizeCChecked(newText);
  // Where the lexer is unsure of either text, nothing is called neutral: every edit is
  // ranked (a rename or a layout change is then a candidate, never a hidden cause).
  const bool unsure = oldTokens.unsure || newTokens.unsure;
  Scan before(std::move(oldTokens.tokens)), after(std::move(newTokens.tokens));
  std::vector<std::string> oldLines = splitLinesKeepingEnds(oldText);
  size_t oldCount = oldLines.size(), newCount = splitLinesKeepingEnds(newText).size();
  d.oldLineTokens = tokenLines(before.tokens, oldCount);
  d.newLineTokens = tokenLines(after.tokens, newCount);
  if (unsure) { // every raw hunk is a change
    d.renamedOld = oldText;
    d.renamedLineTokens = d.oldLineTokens;
    d.changes = d.raw;
    return d;
  }
  // A rename renames a declaration: a name the old file only uses (a library function
  // moved into a new helper) turning into another is a change.
  auto declaredBoth = [&](const std::string &a, const std::string &b) {
    if (auto it = programRenames.find(a); it != programRenames.end() && it->second == b)
      return true; // renamed over the whole change (declared in another file)
    return before.declared.count(a) && after.declared.count(b);
  };
  // Renames over the whole change first (each checked against every changed file), then
  // per function (paired by name), then over the whole file for what is left.
  std::set<std::string> renamed;
  if (!unsure)
    for (const auto &[a, b] : programRenames) {
      auto o = before.uses.find(a), n = after.uses.find(b);
      if (o != before.uses.end() && n != after.uses.end() && o->second == n->second &&
          !after.uses.count(a) && !before.uses.count(b)) {
        d.renames.push_back({a, b, 1, ~0u});
        renamed.insert(a);
      }
    }
  for (const auto &o : before.items) {
    if (o.name.empty() || unsure)
      continue;
    for (const auto &n : after.items) {
      if (n.name != o.name)
        continue;
      std::set<std::string> forbidden(before.fileScopeNames);
      for (const auto &[name, count] : o.uses)
        forbidden.insert(name);
      std::set<std::string> targets;
      // Equal counts alone do not make a rename here either: a rewritten function's
      // `rc` (4 uses) is not its new `ch` (4 uses). Some line must read the same with it.
      for (auto [a, b] : renamesBetween(o.uses, n.uses, forbidden))
        if (!after.fileScopeNames.count(a) && !renamed.count(a) && declaredBoth(a, b) &&
            linesExplained(a, b, d.oldLineTokens, o.firstLine, o.lastLine, d.newLineTokens,
                           n.firstLine, n.lastLine) > 0) {
          d.renames.push_back({a, b, o.firstLine, o.lastLine});
          renamed.insert(a);
          targets.insert(b);
        }
      std::vector<std::string> gone, fresh;
      for (const auto &[name, count] : o.uses)
        if (!n.uses.count(name) && !renamed.count(name) && !after.fileScopeNames.count(name))
          gone.push_back(name);
      for (const auto &[name, count] : n.uses)
        if (!forbidden.count(name) && !targets.count(name))
          fresh.push_back(name);
      for (auto [a, b] : renamesByLines(gone, fresh, d.oldLineTokens, o.firstLine, o.lastLine,
                                        d.newLineTokens, n.firstLine, n.lastLine)) {
        if (!declaredBoth(a, b))
          continue;
        d.renames.push_back({a, b, o.firstLine, o.lastLine});
        renamed.insert(a);
      }
      break;
    }
  }
  std::set<std::string> forbidden;
  for (const auto &[name, count] : before.uses)
    forbidden.insert(name);
  // Over the whole file, equal counts are not enough: code that moved to another file
  // takes its names along while new code brings others (`fp` gone, `tab_width` come, as
  // often). Some line using the old name must read as a new line with the new one.
  for (auto [a, b] : renamesBetween(before.uses, after.uses, forbidden))
    if (!unsure && !renamed.count(a) && declaredBoth(a, b) &&
        (programRenames.count(a) ||
         linesExplained(a, b, d.oldLineTokens, 1, static_cast<unsigned>(oldCount), d.newLineTokens,
                        1, static_cast<unsigned>(newCount)) > 0))
      d.renames.push_back({a, b, 1, ~0u});

  for (size_t l = 1; l <= oldLines.size(); ++l) {
    std::map<std::string, std::string> here;
    for (const auto &r : d.renames)
      if (l >= r.oldFirst && l <= r.oldLast)
        here.emplace(r.from, r.to);
    d.renamedOld += here.empty() ? oldLines[l - 1] : applyRenames(oldLines[l - 1], here);
  }
  d.renamedLineTokens = tokenLines(tokenizeC(d.renamedOld), oldCount);
  const std::vector<std::string> &renamedLines = d.renamedLineTokens;
  TextDiff lines =
      diffTexts(joinLines(renamedLines, oldCount), joinLines(d.newLineTokens, newCount));
  // A hunk whose tokens are the same on both sides only moved line breaks: it stays
  // for the line map, marked neutral.
  for (auto &h : lines.hunks)
    h.neutral = !unsure && hunkTokens(renamedLines, h.oldStart, h.oldLines) ==
                               hunkTokens(d.newLineTokens, h.newStart, h.newLines);
  d.changes = std::move(lines);
  return d;
}

} // namespace rootline
