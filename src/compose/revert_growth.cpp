// Revert units that grow by what their build needs (docs/debug.md, "Revert evidence"): a
// hunk whose old text uses a macro, a helper or a local the change removed does not
// build alone; the unit is tried again with what declares it. A unit that brings back a
// definition the change moved grows by the moved copy; one whose reverted text does not
// parse, by the hunks next to it.
#include "compose/revert_units.h"

#include "rootline/c_tokens.h"
#include "rootline/hunk_patch.h"

#include <algorithm>
#include <cctype>
#include <optional>

namespace rootline::debug {

namespace {

// A unit whose revert did not build because its old text uses a name the change took
// away, or uses a name the unit's revert takes away: the same unit with what declares
// that name put back, or with the hunks that use it. A removed macro comes
// back as its old `#define` block (oldMacroBlock); a removed helper, table or global as
// the hunk whose old text declares it at file scope; a removed local as the nearest
// hunk above, in the same file, whose old text holds it. The next build error may name
// another such name: the grown unit grows again, a few times at most.
constexpr unsigned kMaxGrowth = 6;

// The names a C text `#define`s.
std::set<std::string> macroNames(const std::string &text) {
  std::set<std::string> out;
  for (const std::string &line : splitLinesKeepingEnds(text)) {
    size_t at = line.find_first_not_of(" \t");
    if (at == std::string::npos || line[at] != '#')
      continue;
    at = line.find_first_not_of(" \t", at + 1);
    if (at == std::string::npos || line.compare(at, 6, "define") != 0)
      continue;
    at = line.find_first_not_of(" \t", at + 6);
    size_t end = at;
    while (end < line.size() &&
           (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_'))
      ++end;
    if (at != std::string::npos && end > at)
      out.insert(line.substr(at, end - at));
  }
  return out;
}

// The line of the function header above `line` (1-based) in a C text: the nearest line
// that starts in the first column with a name and holds a `(`, or a `{` in the first
// column; 1 when none.
unsigned functionStartAbove(const std::vector<std::string> &raw, unsigned line) {
  for (unsigned l = std::min<size_t>(line, raw.size()); l-- > 1;) {
    const std::string &t = raw[l - 1];
    if (t.empty())
      continue;
    if (t[0] == '{')
      return l;
    if ((std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_') &&
        t.find('(') != std::string::npos)
      return l;
  }
  return 1;
}

// Whether a hunk's new text defines `name` at file scope: a line that starts in its
// first column with something other than `#` and holds the name. `raw`: the file's new
// lines (1-based line l is [l - 1]).
bool hunkDefinesInNew(const SemanticDiff &diff, const DiffHunk &hunk,
                      const std::vector<std::string> &raw, const std::string &name) {
  for (unsigned l = hunk.newStart; l < hunk.newStart + hunk.newLines && l <= raw.size(); ++l) {
    const std::string &text = raw[l - 1];
    bool fileScope =
        !text.empty() && !std::isspace(static_cast<unsigned char>(text[0])) && text[0] != '#';
    if (fileScope && identifiersOn(diff.newLineTokens, l, 1).count(name))
      return true;
  }
  return false;
}

// A build error that says a name is defined twice: the unit's revert brought back the old
// definition of something the change moved, and the moved copy is still there.
bool definedTwice(const std::string &error) {
  for (const char *words : {"redefinition of", "conflicting types for",
                            "follows non-static declaration", "follows static declaration"})
    if (error.find(words) != std::string::npos)
      return true;
  return false;
}

// A build error that names no name the change touched: the reverted text does not parse
// (the unit's hunks cut a function the diff split into pieces, a moved block's braces).
bool syntaxError(const std::string &error) {
  for (const char *words : {"expected ", "extraneous ", "unterminated ", "unmatched ",
                            "is not allowed here", "unexpected "})
    if (error.find(words) != std::string::npos)
      return true;
  return false;
}

// The changed file a compiler message is about ("init.c:492:6: error: ..."), if any.
std::optional<size_t> fileOfError(const RevertEvidence &ev, const std::string &error) {
  size_t colon = error.find(':');
  if (colon == std::string::npos || colon == 0)
    return std::nullopt;
  std::string path = error.substr(0, colon);
  for (size_t f = 0; f < ev.files.size(); ++f) {
    const std::string &p = ev.files[f].newPath;
    if (p == path || (p.size() > path.size() && p.ends_with("/" + path)) ||
        (path.size() > p.size() && path.ends_with("/" + p)))
      return f;
  }
  return std::nullopt;
}

} // namespace

std::optional<RevertEvidence::Unit>
grownUnit(const RevertEvidence &ev, const RevertEvidence::Unit &u, const std::string &buildError) {
  if (u.grown >= kMaxGrowth)
    return std::nullopt;
  RevertEvidence::Unit out = u;
  std::string names;
  bool added = false;
  auto holds = [&](std::pair<size_t, size_t> fh) {
    return std::find(out.hunks.begin(), out.hunks.end(), fh) != out.hunks.end();
  };
  // Each changed file's old lines, split once (1-based line l is [l - 1]).
  std::vector<std::optional<std::vector<std::string>>> oldLines(ev.files.size());
  auto linesOf = [&](size_t f) -> const std::vector<std::string> & {
    if (!oldLines[f])
      oldLines[f] = splitLinesKeepingEnds(ev.files[f].diff->renamedOld);
    return *oldLines[f];
  };
  // The same for the new lines, and whether hunk h of file f defines a name there.
  std::vector<std::optional<std::vector<std::string>>> newLines(ev.files.size());
  auto definesInNew = [&](size_t f, size_t h, const std::string &name) {
    if (!newLines[f])
      newLines[f] = splitLinesKeepingEnds(ev.files[f].newText);
    const SemanticDiff &diff = *ev.files[f].diff;
    return hunkDefinesInNew(diff, diff.changes.hunks[h], *newLines[f], name);
  };
  for (const std::string &name : quotedIdentifiers(buildError)) {
    // Defined twice: the hunk whose new text defines it comes back too (reverting both
    // leaves the old definition alone).
    if (definedTwice(buildError)) {
      for (size_t f = 0; f < ev.files.size(); ++f)
        for (size_t h = 0; h < ev.files[f].diff->changes.hunks.size(); ++h)
          if (!ev.files[f].diff->changes.hunks[h].neutral && !holds({f, h}) &&
              definesInNew(f, h, name)) {
            out.hunks.push_back({f, h});
            added = true;
          }
      continue;
    }
    std::optional<std::string> block;
    for (const auto &file : ev.files)
      if ((block = oldMacroBlock(file.diff->renamedOld, name)))
        break;
    if (block) {
      if (out.oldDefinitions.find(*block) != std::string::npos)
        continue;
      out.oldDefinitions += *block;
      names += (names.empty() ? "`" : ", `") + name + "`";
      added = true;
      continue;
    }
    // Hunks of the change (any group) whose old text declares `name` at file scope:
    // a line that starts in its first column and holds the name.
    std::vector<std::pair<size_t, size_t>> declaring, above;
    for (size_t f = 0; f < ev.files.size(); ++f) {
      const SemanticDiff &diff = *ev.files[f].diff;
      const std::vector<std::string> &raw = linesOf(f);
      for (size_t h = 0; h < diff.changes.hunks.size(); ++h) {
        const DiffHunk &hunk = diff.changes.hunks[h];
        if (hunk.neutral || holds({f, h}))
          continue;
        for (unsigned l = hunk.oldStart; l < hunk.oldStart + hunk.oldLines && l <= raw.size();
             ++l) {
          const std::string &text = raw[l - 1];
          // (`} Symbol;` ends a typedef; a `#define` comes back as a macro, above.)
          bool fileScope =
              !text.empty() && !std::isspace(static_cast<unsigned char>(text[0])) && text[0] != '#';
          if (fileScope && identifiersOn(diff.renamedLineTokens, l, 1).count(name)) {
            declaring.push_back({f, h});
            break;
          }
        }
      }
    }
    // Else a local: the hunks above one of the unit's own, in its function (from the
    // old text's function header on), whose old text holds it.
    if (declaring.empty())
      for (auto [f, h] : u.hunks) {
        const SemanticDiff &diff = *ev.files[f].diff;
        unsigned from = functionStartAbove(linesOf(f), diff.changes.hunks[h].oldStart);
        for (size_t k = h; k-- > 0;) {
          const DiffHunk &hunk = diff.changes.hunks[k];
          if (hunk.oldStart + hunk.oldLines <= from)
            break;
          if (!hunk.neutral && !holds({f, k}) &&
              identifiersOn(diff.renamedLineTokens, hunk.oldStart, hunk.oldLines).count(name))
            above.push_back({f, k});
        }
      }
    // Else a type or a function a header declares: the `#include` lines the change
    // removed from the unit's files may be what brought it.
    std::vector<std::pair<size_t, size_t>> includes;
    if (declaring.empty() && above.empty())
      for (auto [f, h] : u.hunks) {
        const std::vector<std::string> &raw = linesOf(f);
        for (size_t k = 0; k < ev.files[f].diff->changes.hunks.size(); ++k) {
          const DiffHunk &hunk = ev.files[f].diff->changes.hunks[k];
          bool include = false;
          for (unsigned l = hunk.oldStart; l < hunk.oldStart + hunk.oldLines && l <= raw.size();
               ++l) {
            size_t at = raw[l - 1].find_first_not_of(" \t");
            include = include || (at != std::string::npos && raw[l - 1][at] == '#' &&
                                  raw[l - 1].find("include", at) != std::string::npos);
          }
          if (include && !hunk.neutral && !holds({f, k}))
            includes.push_back({f, k});
        }
      }
    // Else a name the unit's revert takes away: its new text defines it at file scope (a
    // helper the change added, `do_sprintf`), and other hunks' new text calls it. Those
    // hunks come back with it (the call sites the change pointed at the new helper).
    std::vector<std::pair<size_t, size_t>> users;
    if (declaring.empty() && above.empty() && includes.empty() &&
        std::any_of(u.hunks.begin(), u.hunks.end(),
                    [&](auto fh) { return definesInNew(fh.first, fh.second, name); }))
      for (size_t f = 0; f < ev.files.size(); ++f) {
        const SemanticDiff &diff = *ev.files[f].diff;
        for (size_t h = 0; h < diff.changes.hunks.size(); ++h) {
          const DiffHunk &hunk = diff.changes.hunks[h];
          if (!hunk.neutral && !holds({f, h}) &&
              identifiersOn(diff.newLineTokens, hunk.newStart, hunk.newLines).count(name))
            users.push_back({f, h});
        }
      }
    for (auto fh : !declaring.empty()  ? declaring
                   : !above.empty()    ? above
                   : !includes.empty() ? includes
                                       : users)
      if (!holds(fh)) {
        out.hunks.push_back(fh);
        added = true;
      }
  }
  // Text that does not parse: the unit's hunks in that file grow by the hunks next to
  // them, the pieces the diff cut the same code into.
  if (!added && syntaxError(buildError))
    if (std::optional<size_t> file = fileOfError(ev, buildError)) {
      std::vector<std::pair<size_t, size_t>> next;
      const auto &hunks = ev.files[*file].diff->changes.hunks;
      for (auto [f, h] : u.hunks) {
        if (f != *file)
          continue;
        for (size_t k = h; k-- > 0;)
          if (!hunks[k].neutral) {
            next.push_back({f, k});
            break;
          }
        for (size_t k = h + 1; k < hunks.size(); ++k)
          if (!hunks[k].neutral) {
            next.push_back({f, k});
            break;
          }
      }
      for (auto fh : next)
        if (!holds(fh)) {
          out.hunks.push_back(fh);
          added = true;
        }
    }
  if (!added)
    return std::nullopt;
  // Every other macro the unit's old text uses that the change removed from its file
  // comes back at once: one build per missing macro would spend the trials.
  std::set<std::string> inUnit; // macros the unit's own old text defines
  for (auto [f, h] : out.hunks) {
    const DiffHunk &hunk = ev.files[f].diff->changes.hunks[h];
    const std::vector<std::string> &raw = linesOf(f);
    std::string text;
    for (unsigned l = hunk.oldStart; l < hunk.oldStart + hunk.oldLines && l <= raw.size(); ++l)
      text += raw[l - 1];
    for (const std::string &name : macroNames(text))
      inUnit.insert(name);
  }
  std::map<size_t, std::set<std::string>> removedIn; // per file: macros the change removed
  for (auto [f, h] : out.hunks) {
    const RevertEvidence::ChangedFile &file = ev.files[f];
    const DiffHunk &hunk = file.diff->changes.hunks[h];
    auto [it, fresh] = removedIn.try_emplace(f);
    std::set<std::string> &removed = it->second;
    if (fresh) {
      removed = macroNames(file.diff->renamedOld);
      for (const std::string &name : macroNames(file.newText))
        removed.erase(name);
      for (const std::string &name : inUnit)
        removed.erase(name);
    }
    for (const std::string &name :
         identifiersOn(file.diff->renamedLineTokens, hunk.oldStart, hunk.oldLines))
      if (removed.count(name))
        if (auto block = oldMacroBlock(file.diff->renamedOld, name);
            block && out.oldDefinitions.find(*block) == std::string::npos) {
          out.oldDefinitions += *block;
          names += (names.empty() ? "`" : ", `") + name + "`";
        }
  }
  std::sort(out.hunks.begin(), out.hunks.end());
  out.label.clear();
  for (auto [f, h] : out.hunks)
    out.label += (out.label.empty() ? "" : " + ") +
                 hunkLabel(ev.files[f], ev.files[f].diff->changes.hunks[h]);
  if (!names.empty())
    out.oldDefinitionsNote =
        u.oldDefinitionsNote.empty()
            ? " (with the old definition of " + names + " put back)"
            : u.oldDefinitionsNote.substr(0, u.oldDefinitionsNote.size() - 10) + ", " + names +
                  " put back)";
  out.label += out.oldDefinitionsNote;
  out.alone.clear();
  out.appliedAlone.clear();
  out.buildError.clear();
  out.newLine = 0;
  out.grown = u.grown + 1;
  if (out.grownFrom.empty())
    out.grownFrom = u.label;
  return out;
}

} // namespace rootline::debug
