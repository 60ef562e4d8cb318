// The HTML report: one file with no external resources, to attach to a bug ticket.
#include "rootline/debug.h"

#include "report/report_text.h"

#include <sstream>

namespace rootline {

namespace {

std::vector<std::string> linesOf(const fs::path &path) {
  std::vector<std::string> lines;
  if (!fs::exists(path))
    return lines;
  std::istringstream in(readFile(path));
  for (std::string l; std::getline(in, l);)
    lines.push_back(l);
  return lines;
}

// Lines around which a pane shows code, and how much around each.
constexpr unsigned kContextAroundMarks = 3;
// A gap between shown windows folds into an expandable block; a long one keeps only
// this many lines at each end (a 5 kLOC file is never inlined whole).
constexpr unsigned kFoldedEnds = 15;

void sourceLine(std::ostringstream &h, const std::string &title, unsigned n,
                const std::string &text, const std::string &cls, int rank) {
  h << "<span class=\"l " << cls << "\" id=\"" << report::htmlEscape(title) << "-" << n << "\"><i>"
    << n << "</i>" << report::htmlEscape(text)
    << (rank ? "  <b>#" + std::to_string(rank) + "</b>" : "") << "</span>";
}

// One version of a file: the candidates, the changed lines and the slice's lines with a
// few lines around them; what lies between folds into <details>.
void pane(std::ostringstream &h, const std::string &title, const fs::path &path,
          const std::set<unsigned> &slice, const std::set<unsigned> &changed,
          const std::map<unsigned, unsigned> &candidates) {
  h << "<div class=pane><h3>" << report::htmlEscape(title) << "</h3><pre>";
  auto lines = linesOf(path);
  auto n = static_cast<unsigned>(lines.size());
  std::vector<bool> shown(n + 2, false);
  auto around = [&](unsigned line) {
    for (unsigned k = line > kContextAroundMarks ? line - kContextAroundMarks : 1;
         k <= std::min(n, line + kContextAroundMarks); ++k)
      shown[k] = true;
  };
  for (unsigned l : slice)
    around(l);
  for (unsigned l : changed)
    around(l);
  for (const auto &[l, rank] : candidates)
    around(l);
  auto emit = [&](unsigned i) {
    auto c = candidates.find(i);
    // A changed line of the slice keeps both marks.
    std::string cls = c != candidates.end()                ? "cand"
                      : changed.count(i) && slice.count(i) ? "chg slice"
                      : changed.count(i)                   ? "chg"
                      : slice.count(i)                     ? "slice"
                                                           : "";
    sourceLine(h, title, i, lines[i - 1], cls,
               c != candidates.end() ? static_cast<int>(c->second) : 0);
  };
  for (unsigned i = 1; i <= n;) {
    if (shown[i]) {
      emit(i++);
      continue;
    }
    unsigned end = i;
    while (end <= n && !shown[end])
      ++end;
    unsigned count = end - i;
    h << "</pre><details><summary>lines " << i << "-" << end - 1 << " (" << count
      << ")</summary><pre>";
    for (unsigned k = i; k < end; ++k) {
      if (count > 2 * kFoldedEnds && k == i + kFoldedEnds) {
        h << "<span class=\"l gap\">  … " << count - 2 * kFoldedEnds
          << " lines not included …</span>";
        k = end - kFoldedEnds;
      }
      sourceLine(h, title, k, lines[k - 1], "", 0);
    }
    h << "</pre></details><pre>";
    i = end;
  }
  h << "</pre></div>";
}

} // namespace

std::string reportHtml(const DebugReport &r) {
  std::ostringstream h;
  h << "<!doctype html><html><head><meta charset=utf-8><title>rootline: "
    << report::htmlEscape(r.oldLabel) << " → " << report::htmlEscape(r.newLabel)
    << "</title><style>"
    << "body{font-family:sans-serif;margin:1em}pre{margin:0}.panes{display:flex;gap:1em}"
       ".pane{flex:1;overflow:auto;border:1px solid #ccc}.l{display:block;white-space:pre}"
       ".l i{display:inline-block;width:3em;color:#888;font-style:normal}.slice{background:#fff6c8}"
       ".cand{background:#ffd0d0}.chg{background:#d8ecff}.chg.slice{box-shadow:inset 4px 0 "
       "#e0b800}.gap{color:#888}"
       "details{border-left:3px solid #ddd;margin:2px "
       "0}summary{color:#666;cursor:pointer}table{border-collapse:collapse}td,th{border:1px solid "
       "#ccc;padding:2px 6px;"
       "text-align:left;vertical-align:top}code{background:#f4f4f4}</style></head><body>";
  h << "<h1>Regression " << report::htmlEscape(r.oldLabel) << " → "
    << report::htmlEscape(r.newLabel) << "</h1>";
  if (r.oldCommit && r.newCommit)
    h << "<p><b>Good:</b> <code>" << report::htmlEscape(commitLine(*r.oldCommit))
      << "</code><br><b>Bad:</b> <code>" << report::htmlEscape(commitLine(*r.newCommit))
      << "</code></p>";
  h << "<p><b>Failure</b> (" << report::htmlEscape(r.failureKind)
    << "): " << report::htmlEscape(r.failure) << ". " << report::htmlEscape(r.direction) << " ("
    << report::htmlEscape(r.condition) << ").</p>";
  if (!r.hangLoop.empty())
    h << "<p><b>Hang:</b> " << report::htmlEscape(r.hangLoop) << ".</p>";
  for (const auto &e : r.memoryErrors)
    h << "<p><b>Memory error:</b> " << report::htmlEscape(e.text)
      << (e.causeLine ? report::htmlEscape("; made possible by " + e.causeFile + ":" +
                                           std::to_string(e.causeLine))
                      : "")
      << (e.confirmed.empty() ? "" : ". " + report::htmlEscape(e.confirmed)) << ".</p>";
  if (r.firstDivergence)
    h << "<p><b>First divergence:</b> " << report::htmlEscape(r.firstDivergence->text) << ".</p>";
  h << "<p>Input:</p><pre>" << report::htmlEscape(r.input.stdinBytes) << "</pre>";
  auto errCell = [&](const RunSummary &run) {
    return r.stderrCounts ? "<td><pre>" + report::htmlEscape(run.stderrBytes) + "</pre></td>"
                          : std::string();
  };
  h << "<table><tr><th>run</th><th>outcome</th><th>stdout</th>"
    << (r.stderrCounts ? "<th>stderr</th>" : "") << "</tr>";
  h << "<tr><td>expected</td><td>" << report::htmlEscape(r.expected.outcome) << "</td><td><pre>"
    << report::htmlEscape(r.expected.stdoutBytes) << "</pre></td>" << errCell(r.expected)
    << "</tr>";
  h << "<tr><td>new</td><td>" << report::htmlEscape(r.newRun.outcome) << "</td><td><pre>"
    << report::htmlEscape(r.newRun.stdoutBytes) << "</pre></td>" << errCell(r.newRun)
    << "</tr></table>";
  h << "<h2>Candidates</h2><table><tr><th>#</th><th>where</th><th>kind</th><th>line</"
       "th><th>alternative input</th>"
       "<th>old</th><th>new</th><th>why</th></tr>";
  for (const auto &c : r.candidates) {
    h << "<tr><td>" << c.rank << "</td><td><a href=\"#" << c.version << "-" << c.line << "\">"
      << report::htmlEscape(c.version) << " " << report::htmlEscape(c.file) << ":" << c.line
      << "</a></td><td>" << report::htmlEscape(c.kind) << "</td><td><code>"
      << report::htmlEscape(c.source) << "</code></td>";
    // The changes against the failing input; the whole input one click away.
    auto alternative = [&] {
      return "<td>" + report::htmlEscape(report::changesText(c.alternativeChanges)) +
             "<details><summary>whole input</summary><pre>" +
             report::htmlEscape(c.alternative.stdinBytes) + "</pre></details>" +
             (c.weakEvidence.empty() ? ""
                                     : "<p><b>weak:</b> " + report::htmlEscape(c.weakEvidence)) +
             "</td>";
    };
    if (c.hasAlternative && !c.ran)
      h << alternative() << "<td colspan=\"2\">not run (budget)</td>";
    else if (c.hasAlternative)
      h << alternative() << "<td>" << report::htmlEscape(c.oldRun.outcome) << "<pre>"
        << report::htmlEscape(c.oldRun.stdoutBytes) << "</pre></td><td>"
        << report::htmlEscape(c.newRun.outcome) << "<pre>"
        << report::htmlEscape(c.newRun.stdoutBytes) << "</pre></td>";
    else
      h << "<td>-</td><td>-</td><td>-</td>";
    h << "<td>";
    for (const auto &reason : c.reasons)
      h << report::htmlEscape(reason) << "<br>";
    for (const auto &e : c.valueEvidence)
      h << "<p class=\"value\"><b>value evidence:</b> "
        << report::htmlEscape(report::valueEvidenceText(e)) << "</p>";
    h << "</td></tr>";
  }
  h << "</table><h2>Sources</h2><p><span class=\"l slice\" style=\"display:inline\">relevant "
       "slice</span> "
       "<span class=\"l cand\" style=\"display:inline\">candidate</span> "
       "<span class=\"l chg\" style=\"display:inline\">changed by the diff</span> (code "
       "far from these is folded)</p>";
  // Each file once, as (old path, new path): renamed files side by side.
  auto newPathOf = [&](const std::string &f) {
    auto it = r.renamedFiles.find(f);
    return it == r.renamedFiles.end() ? f : it->second;
  };
  auto oldPathOf = [&](const std::string &f) {
    for (const auto &[o, n] : r.renamedFiles)
      if (n == f)
        return o;
    return f;
  };
  std::set<std::pair<std::string, std::string>> files;
  for (const auto &[f, l] : r.oldSliceLines)
    files.insert({f, newPathOf(f)});
  for (const auto &[f, l] : r.newSliceLines)
    files.insert({oldPathOf(f), f});
  for (const auto &c : r.candidates)
    files.insert(c.version == "old" ? std::pair(c.file, newPathOf(c.file))
                                    : std::pair(oldPathOf(c.file), c.file));
  for (const auto &[f, l] : r.oldChangedLines)
    files.insert({f, newPathOf(f)});
  for (const auto &[f, l] : r.newChangedLines)
    files.insert({oldPathOf(f), f});
  for (const auto &[oldFile, newFile] : files) {
    std::map<unsigned, unsigned> oldCands, newCands;
    for (const auto &c : r.candidates)
      if (c.file == (c.version == "old" ? oldFile : newFile))
        (c.version == "old" ? oldCands : newCands).emplace(c.line, c.rank);
    static const std::set<unsigned> none;
    auto oldSlice = r.oldSliceLines.find(oldFile), newSlice = r.newSliceLines.find(newFile);
    h << "<h3>" << report::htmlEscape(oldFile == newFile ? newFile : oldFile + " → " + newFile)
      << "</h3><div class=panes>";
    auto oldChanged = r.oldChangedLines.find(oldFile), newChanged = r.newChangedLines.find(newFile);
    pane(h, "old", r.oldRoot / oldFile, oldSlice == r.oldSliceLines.end() ? none : oldSlice->second,
         oldChanged == r.oldChangedLines.end() ? none : oldChanged->second, oldCands);
    pane(h, "new", r.newRoot / newFile, newSlice == r.newSliceLines.end() ? none : newSlice->second,
         newChanged == r.newChangedLines.end() ? none : newChanged->second, newCands);
    h << "</div>";
  }
  h << "<p><small>rootline " << ROOTLINE_VERSION << ": " << r.solverCalls << " solver calls, "
    << r.totalSeconds << " s</small></p></body></html>\n";
  return h.str();
}

} // namespace rootline
