// The revert stage: "reverting main.c:6 alone makes the test pass" (DESIGN.md 2.8;
// docs/debug.md, "Revert evidence"). Each trial builds the new tree with some units of
// the change put back to the old text and runs the failing test on it. Trees are
// symlink farms under the cache, named by their content, so the build cache serves a
// trial a second time.
#include "compose/debug_stages.h"
#include "compose/delta_debugging.h"
#include "compose/revert_units.h"
#include "compose/token_edits.h"

#include "rootline/c_tokens.h"
#include "rootline/error.h"
#include "rootline/hash.h"
#include "rootline/hunk_patch.h"
#include "rootline/process.h"
#include "rootline/tree_compare.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>
#include <unistd.h>

namespace rootline::debug {

std::string hunkLabel(const RevertEvidence::ChangedFile &f, const DiffHunk &h) {
  if (!h.newLines)
    return f.newPath + ":" + std::to_string(h.newStart) + " (old lines " +
           std::to_string(h.oldStart) + "-" + std::to_string(h.oldStart + h.oldLines - 1) +
           " deleted)";
  std::string s = f.newPath + ":" + std::to_string(h.newStart);
  if (h.newLines > 1)
    s += "-" + std::to_string(h.newStart + h.newLines - 1);
  return s;
}

// The identifiers on some lines of a file's token lines (space-separated tokens).
std::set<std::string> identifiersOn(const std::vector<std::string> &tokenLines, unsigned first,
                                    unsigned count) {
  std::set<std::string> out;
  for (unsigned l = first; l < first + count && l < tokenLines.size(); ++l) {
    size_t start = 0;
    const std::string &line = tokenLines[l];
    while (start < line.size()) {
      size_t end = line.find(' ', start);
      end = end == std::string::npos ? line.size() : end;
      std::string t = line.substr(start, end - start);
      if (!t.empty() && (std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_') &&
          !isCKeyword(t))
        out.insert(t);
      start = end + 1;
    }
  }
  return out;
}

// The identifiers a compiler message quotes ('foo', ‘foo’).
std::set<std::string> quotedIdentifiers(const std::string &message) {
  std::set<std::string> out;
  std::string cur;
  bool in = false;
  for (size_t i = 0; i < message.size(); ++i) {
    char c = message[i];
    if (c == '`') { // the linker's `name'
      in = true;
      cur.clear();
      continue;
    }
    bool quote =
        c == '\'' || message.compare(i, 3, "\u2018") == 0 || message.compare(i, 3, "\u2019") == 0;
    if (quote) {
      if (in && !cur.empty() && (std::isalpha(static_cast<unsigned char>(cur[0])) || cur[0] == '_'))
        out.insert(cur);
      cur.clear();
      in = !in;
      if (c != '\'')
        i += 2;
    } else if (in) {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_')
        cur += c;
      else
        in = false, cur.clear();
    }
  }
  return out;
}

namespace {

constexpr size_t kMaxTreeEntries = 50000;
constexpr unsigned kMaxTrials = 40;
// A yacc or lex file is C around its rules: the build makes the parser from it.
const std::set<std::string> kSourceExtensions = {".c", ".h", ".inc", ".def", ".y", ".l"};

// The files the change touched, with both sides: git's list between commits, else the C
// sources and headers that differ between the two trees.
// Files the program is not compiled from (ChangeLog, docs, tests, another program's
// sources) are left out and counted.
std::vector<RevertEvidence::ChangedFile> changedFiles(const DebugRequest &req, Diffs &diffs,
                                                      const std::set<std::string> &builtFrom,
                                                      size_t &skipped) {
  std::vector<std::pair<std::string, std::string>> pairs;
  if (req.sourceDiff) {
    for (const auto &f : req.sourceDiff->files)
      if (!f.oldPath.empty() && !f.newPath.empty()) {
        bool header = fs::path(f.newPath).extension() == ".h";
        bool source = kSourceExtensions.count(fs::path(f.newPath).extension().string()) > 0;
        bool built =
            builtFrom.empty() || header || builtFrom.count(f.newPath) || builtFrom.count(f.oldPath);
        if (source && built)
          pairs.push_back({f.oldPath, f.newPath});
        else
          ++skipped;
      }
  } else {
    for (const std::string &rel :
         changedTreeFiles(req.oldRoot, req.newRoot, kSourceExtensions, kMaxTreeEntries)) {
      if (builtFrom.empty() || fs::path(rel).extension() == ".h" || builtFrom.count(rel))
        pairs.push_back({rel, rel});
      else
        ++skipped;
    }
  }
  std::vector<RevertEvidence::ChangedFile> out;
  for (const auto &[o, n] : pairs) {
    fs::path oldFile = req.oldRoot / o, newFile = req.newRoot / n;
    if (!fs::is_regular_file(oldFile) || !fs::is_regular_file(newFile))
      continue;
    RevertEvidence::ChangedFile f{o, n, &diffs.semantic(n, true), readFile(newFile)};
    if (!f.diff->changes.hunks.empty())
      out.push_back(std::move(f));
  }
  return out;
}

// The semantic hunks, grouped into units that can be reverted alone and still build: a
// name the change introduced (in no old file) ties the hunk that declares it to the
// hunks that use it, and a name it removed ties the hunks that held it, across files
// (an extracted helper and its calls are one unit); hunks whose braces or parentheses
// balance only together are one unit. Renames are already discounted.
// Hunks that only moved line breaks are in no unit.
std::vector<RevertEvidence::Unit> unitsOf(const std::vector<RevertEvidence::ChangedFile> &files) {
  std::vector<std::pair<size_t, size_t>> hunks;
  for (size_t f = 0; f < files.size(); ++f)
    for (size_t h = 0; h < files[f].diff->changes.hunks.size(); ++h)
      if (!files[f].diff->changes.hunks[h].neutral)
        hunks.push_back({f, h});
  // Names of all old and all new texts of the changed files.
  std::set<std::string> oldNames, newNames;
  std::vector<std::set<std::string>> oldIds(hunks.size()), newIds(hunks.size());
  for (const auto &f : files) {
    auto o = identifiersOn(f.diff->renamedLineTokens, 0, ~0u);
    auto n = identifiersOn(f.diff->newLineTokens, 0, ~0u);
    oldNames.insert(o.begin(), o.end());
    newNames.insert(n.begin(), n.end());
  }
  std::vector<size_t> parent(hunks.size());
  for (size_t i = 0; i < parent.size(); ++i)
    parent[i] = i;
  auto root = [&](size_t i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  };
  std::map<std::string, size_t> firstHolder; // an introduced or removed name -> a hunk
  auto tie = [&](const std::string &name, size_t i) {
    auto [it, fresh] = firstHolder.try_emplace(name, i);
    if (!fresh)
      parent[root(i)] = root(it->second);
  };
  for (size_t i = 0; i < hunks.size(); ++i) {
    const auto &file = files[hunks[i].first];
    const DiffHunk &h = file.diff->changes.hunks[hunks[i].second];
    for (const auto &id : identifiersOn(file.diff->newLineTokens, h.newStart, h.newLines))
      if (!oldNames.count(id))
        tie("+" + id, i);
    for (const auto &id : identifiersOn(file.diff->renamedLineTokens, h.oldStart, h.oldLines))
      if (!newNames.count(id))
        tie("-" + id, i);
  }
  // Braces and parentheses: a hunk that opens a block the next hunk closes (an `if`
  // put around a line the diff kept) builds only with it. Consecutive hunks of a file
  // are tied until their old and new sides balance alike.
  auto balance = [](const std::vector<std::string> &lines, unsigned first, unsigned count) {
    long b = 0;
    for (unsigned l = first; l < first + count && l < lines.size(); ++l)
      for (char c : lines[l])
        b += c == '{' || c == '(' ? 1 : c == '}' || c == ')' ? -1 : 0;
    return b;
  };
  long open = 0;
  for (size_t i = 0; i < hunks.size(); ++i) {
    const auto &file = files[hunks[i].first];
    const DiffHunk &h = file.diff->changes.hunks[hunks[i].second];
    if (i > 0 && hunks[i - 1].first != hunks[i].first)
      open = 0;
    if (open != 0)
      parent[root(i)] = root(i - 1);
    open += balance(file.diff->newLineTokens, h.newStart, h.newLines) -
            balance(file.diff->renamedLineTokens, h.oldStart, h.oldLines);
  }
  std::map<size_t, size_t> unitOfRoot;
  std::vector<RevertEvidence::Unit> units;
  for (size_t i = 0; i < hunks.size(); ++i) {
    auto [it, fresh] = unitOfRoot.try_emplace(root(i), units.size());
    if (fresh)
      units.push_back({});
    RevertEvidence::Unit &u = units[it->second];
    u.hunks.push_back(hunks[i]);
    const auto &file = files[hunks[i].first];
    u.label +=
        (u.label.empty() ? "" : " + ") + hunkLabel(file, file.diff->changes.hunks[hunks[i].second]);
  }
  return units;
}

// A trial build's first error, with paths relative to the tree ("main.c:7: error: ...").
// The project's build names it after "failed: "; a direct build keeps the compiler's
// output as the error's detail.
std::string firstBuildError(const Error &e, const fs::path &tree) {
  std::string what = e.what();
  std::string line = !e.detail().empty() ? firstErrorLine(e.detail())
                     : what.rfind("failed: ") != std::string::npos
                         ? what.substr(what.rfind("failed: ") + 8)
                         : what;
  if (line.empty())
    line = what;
  if (!tree.empty())
    for (std::string dir = tree.string() + "/"; line.find(dir) != std::string::npos;)
      line.erase(line.find(dir), dir.size());
  return line;
}

// The patched files of a trial, as one key: two trials that build the same text give
// the same result.
std::string contentKey(const std::map<std::string, std::string> &patched) {
  Hasher h;
  h.add("rootline-trial-files-v1");
  for (const auto &[path, text] : patched)
    h.add(path).add(text);
  return h.hex();
}

// A screened edit's run gets this many times the longest of the two versions' runs.
constexpr double kEditRunFactor = 10;

class Trials {
public:
  Trials(const DebugRequest &req, const std::vector<RevertEvidence::ChangedFile> &files,
         const std::vector<RevertEvidence::Unit> &units, const fs::path &work,
         const Deadline &deadline, DebugReport &report, OtherProcesses *others)
      : req_(req), files_(files), units_(units), work_(work), deadline_(deadline), report_(report),
        others_(others), groups_(units.size()) {}

  unsigned count() const { return count_; }
  bool exhausted() const { return deadline_.expired() || count_ >= kMaxTrials; }

  // The test on the new version with `reverted` units back at their old text.
  std::string run(const std::set<size_t> &reverted, const std::string &what) {
    auto known = results_.find(reverted);
    if (known != results_.end())
      return known->second; // delta debugging asks some sets twice
    // Another set of units may give the same files (a line's unit is its group's whole
    // hunk; a kept complement is a reverted group): that build and run are not made again.
    std::optional<std::map<std::string, std::string>> patched;
    std::string content;
    try {
      patched = patchedFiles(reverted);
      content = contentKey(*patched);
    } catch (const Error &) {
      // runPatched asks again and reports the trial as not building
    }
    if (auto same = resultsByContent_.find(content); patched && same != resultsByContent_.end()) {
      results_[reverted] = same->second.first;
      if (auto trial = trialByContent_.find(content); trial != trialByContent_.end())
        trialOf_[reverted] = trial->second;
      if (!same->second.second.empty())
        buildErrors_[reverted] = same->second.second;
      return same->second.first;
    }
    ++count_;
    RevertTrial t;
    t.what = what;
    const std::set<size_t> &shown = what == "revert" ? reverted : complement(reverted);
    for (size_t u : shown)
      t.hunks.push_back(units_[u].label);
    std::string errors =
        runPatched(t, [&] { return patched ? std::move(*patched) : patchedFiles(reverted); });
    trialOf_[reverted] = report_.reverts.size() - 1;
    if (t.result == "passes" && what == "revert" && reverted.size() == 1 && others_ &&
        !exe_.empty()) {
      report_.reverts.back().others =
          others_->check(newLinesOf(*reverted.begin()), exe_, deadline_);
    }
    if (t.result == "does not build")
      buildErrors_[reverted] = errors;
    results_[reverted] = t.result;
    if (patched) {
      resultsByContent_[content] = {t.result, t.result == "does not build" ? errors : ""};
      trialByContent_[content] = report_.reverts.size() - 1;
    }
    return t.result;
  }

  // The test on the new version with one file's text replaced (an edit trial, labelled
  // `label`, of the line the test spectrum names `spectrumFile`:`spectrumLine`): `e`'s
  // result, and when it passes, its check on the test's other processes and the whole
  // test's verdict. A repair only when neither says the edit changes what the test saw.
  void runEdit(const std::string &path, const std::string &text, const std::string &label,
               const std::string &spectrumFile, unsigned spectrumLine, RevertEvidence::Edit &e) {
    ++edits_;
    RevertTrial t;
    t.what = "edit";
    t.hunks = {label};
    runPatched(t, [&] { return std::map<std::string, std::string>{{path, text}}; });
    e.result = t.result;
    if (t.result != "passes")
      return;
    if (others_ && !exe_.empty()) {
      e.others = report_.reverts.back().others =
          others_->check({{spectrumFile, spectrumLine}}, exe_, deadline_);
      if (e.others.changed) {
        e.result = "process only";
        return; // the whole test is not needed to say it repairs nothing
      }
    }
    e.wholeTest = report_.reverts.back().wholeTest =
        wholeTestVerdict(req_, {{path, text}}, deadline_);
    // It fixed the failing process and broke the test elsewhere: no repair.
    if (e.wholeTest == "fails")
      e.result = "process only";
  }

  // A trial's files and its place in report.reverts (SIZE_MAX when it made none: another
  // set gave the same files).
  std::map<std::string, std::string> filesOf(const std::set<size_t> &reverted) const {
    try {
      return patchedFiles(reverted);
    } catch (const Error &) {
      return {};
    }
  }
  size_t lastTrial() const { return report_.reverts.size() - 1; }
  // The trial that gave `reverted` its result, if one did (not a set of the same files).
  const RevertTrial *trialFor(const std::set<size_t> &reverted) const {
    size_t t = trialOf(reverted);
    return t < report_.reverts.size() ? &report_.reverts[t] : nullptr;
  }
  size_t trialOf(const std::set<size_t> &reverted) const {
    auto it = trialOf_.find(reverted);
    return it == trialOf_.end() ? SIZE_MAX : it->second;
  }
  unsigned edits() const { return edits_; }

  // A run of the failing input behaves as the old version's (a trial passes), or fails as
  // the new version's did.
  bool passes(const RunSummary &r) const {
    return r.stdoutBytes == report_.expected.stdoutBytes &&
           (report_.expected.outcome.empty() || r.outcome == report_.expected.outcome) &&
           (!report_.stderrCounts || r.stderrBytes == report_.expected.stderrBytes);
  }
  bool sameFailure(const RunSummary &r) const {
    return r.stdoutBytes == report_.newRun.stdoutBytes && r.outcome == report_.newRun.outcome &&
           (!report_.stderrCounts || r.stderrBytes == report_.newRun.stderrBytes);
  }
  // How long a run of the failing input may take on an edited program: an edit can make
  // it loop.
  double editRunSeconds() const {
    double longest = std::max(report_.oldRun.seconds, report_.newRun.seconds);
    return std::min(req_.timeoutSeconds, kEditRunFactor * longest + 0.5);
  }
  const fs::path &work() const { return work_; }

  // The groups not in `s` (the change's partition, not the units tried besides).
  std::set<size_t> complement(const std::set<size_t> &s) const {
    std::set<size_t> out;
    for (size_t u = 0; u < groups_; ++u)
      if (!s.count(u))
        out.insert(u);
    return out;
  }

  void setGroups(size_t groups) { groups_ = groups; }

  // The compiler's message when reverting `reverted` did not build ("" otherwise).
  std::string buildError(const std::set<size_t> &reverted) const {
    auto it = buildErrors_.find(reverted);
    return it == buildErrors_.end() ? "" : it->second;
  }

private:
  // The new-side lines a unit puts back: its line, or its hunks' new lines.
  std::vector<std::pair<std::string, unsigned>> newLinesOf(size_t unit) const {
    const RevertEvidence::Unit &u = units_[unit];
    std::vector<std::pair<std::string, unsigned>> lines;
    for (auto [f, h] : u.hunks) {
      const DiffHunk &hunk = files_[f].diff->changes.hunks[h];
      if (u.newLine) {
        lines.push_back({files_[f].newPath, u.newLine});
        continue;
      }
      for (unsigned l = hunk.newStart; l < hunk.newStart + hunk.newLines; ++l)
        lines.push_back({files_[f].newPath, l});
    }
    return lines;
  }

  // Builds the new version with the files `patch` gives and runs the test on it: `t`'s
  // result and run, added to the report. Returns the build's error lines when it does
  // not build (the names a fix needs: errors and notes, not warnings, which quote types).
  template <typename Patch> std::string runPatched(RevertTrial &t, const Patch &patch) {
    fs::path tree;
    std::string errors;
    exe_.clear();
    try {
      std::map<std::string, std::string> patched = patch();
      fs::path exe;
      if (req_.buildVariant) {
        exe = req_.buildVariant(patched); // the project's own (incremental) build
      } else {
        tree = variantTree(patched);
        BuildRecipe recipe = rebaseRecipe(req_.newRecipe, req_.newRoot, tree);
        exe = buildNative(recipe, buildModule(recipe));
      }
      exe_ = exe;
      t.run =
          runInputNatively(exe, req_.input, work_ / ("revert" + std::to_string(count_ + edits_)),
                           deadline_.clamp(req_.timeoutSeconds, 0.2));
      if (passes(t.run))
        t.result = "passes";
      else if (sameFailure(t.run))
        t.result = "same failure";
      else if (firstDifference(t.run.stdoutBytes) > firstDifference(report_.newRun.stdoutBytes))
        t.result = "later failure"; // the failure's first difference is gone
      else
        t.result = "different failure";
    } catch (const Error &e) {
      t.result = "does not build"; // half a change need not compile: unresolved
      t.error = firstBuildError(e, tree);
      // "'f' declared here" names what a changed call needs.
      errors = t.error;
      for (const std::string &l : splitLinesKeepingEnds(e.detail()))
        if (l.find("error:") != std::string::npos || l.find("note:") != std::string::npos ||
            l.find("undefined reference") != std::string::npos)
          errors += "\n" + l;
    } catch (const fs::filesystem_error &) {
      t.result = "does not build"; // the tree could not be laid out: unresolved too
    }
    report_.reverts.push_back(t);
    return errors;
  }

  // Where stdout first differs from the expected output (its length when it is a
  // prefix of it, one past the end when equal).
  size_t firstDifference(const std::string &out) const {
    const std::string &want = report_.expected.stdoutBytes;
    size_t at = 0;
    while (at < out.size() && at < want.size() && out[at] == want[at])
      ++at;
    return out == want ? want.size() + 1 : at;
  }

  // The files the reverted units touch, as they read with those units reverted.
  std::map<std::string, std::string> patchedFiles(const std::set<size_t> &reverted) const {
    std::map<std::string, std::string> patched = revertedFiles(reverted);
    std::string definitions;
    for (size_t u : reverted)
      definitions += units_[u].oldDefinitions;
    if (!definitions.empty())
      for (auto &[path, text] : patched)
        text = withDefinitions(text, definitions);
    return patched;
  }

  std::map<std::string, std::string> revertedFiles(const std::set<size_t> &reverted) const {
    if (reverted.size() == 1 && units_[*reverted.begin()].newLine)
      return lineReverted(units_[*reverted.begin()]);
    std::map<size_t, std::vector<bool>> takeNew;
    for (size_t u : reverted)
      for (auto [f, h] : units_[u].hunks) {
        auto &v = takeNew.try_emplace(f, files_[f].diff->changes.hunks.size(), true).first->second;
        v[h] = false;
      }
    std::map<std::string, std::string> patched;
    for (const auto &[f, v] : takeNew)
      // Reverted hunks read as the old text with the new names (docs/debug.md).
      // Without comments: the semantic hunks treat comment lines as equal, and a hunk's
      // edge may fall inside a comment that differs between the versions.
      patched[files_[f].newPath] =
          mixVersions(blankComments(files_[f].diff->renamedOld), blankComments(files_[f].newText),
                      files_[f].diff->changes, v);
    return patched;
  }

  // The new file with one line put back to the old lines that became it (renames
  // applied, comments blanked); a line the change added is dropped.
  std::map<std::string, std::string> lineReverted(const RevertEvidence::Unit &u) const {
    const RevertEvidence::ChangedFile &file = files_[u.hunks.front().first];
    const DiffHunk &hunk = file.diff->changes.hunks[u.hunks.front().second];
    std::vector<unsigned> counterpart = lineCounterparts(*file.diff);
    std::vector<std::string> oldLines = splitLinesKeepingEnds(blankComments(file.diff->renamedOld));
    std::vector<std::string> newLines = splitLinesKeepingEnds(file.newText);
    std::string text;
    for (unsigned l = 1; l <= newLines.size(); ++l) {
      if (l != u.newLine) {
        text += newLines[l - 1];
        continue;
      }
      for (unsigned o = hunk.oldStart; o < hunk.oldStart + hunk.oldLines; ++o)
        if (o < counterpart.size() && counterpart[o] == l && o <= oldLines.size())
          text += oldLines[o - 1];
      if (!text.empty() && text.back() != '\n')
        text += '\n';
    }
    return {{file.newPath, text}};
  }

  // The new tree as symlinks, with the patched files written out.
  fs::path variantTree(std::map<std::string, std::string> patched) {
    Hasher key;
    key.add("rootline-variant-v2").add(fs::absolute(req_.newRoot).string());
    for (const auto &[path, text] : patched)
      key.add(path).add(text);
    fs::path dir = cacheRoot() / "variants" / key.hex();
    if (fs::exists(dir / ".rootline-variant"))
      return dir;
    fs::path tmp = dir;
    tmp += uniqueTempSuffix();
    fs::remove_all(tmp);
    fs::create_directories(tmp);
    fs::path root = fs::absolute(req_.newRoot);
    size_t entries = 0;
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
         ++it) {
      if (++entries > kMaxTreeEntries)
        throw Error("the tree is too large for a revert trial", ExitInternal);
      std::string name = it->path().filename().string();
      fs::path rel = it->path().lexically_relative(root);
      // A symlinked directory stays one link (the iterator does not enter it).
      if (it->is_directory() && !it->is_symlink()) {
        if (!name.empty() && name[0] == '.')
          it.disable_recursion_pending();
        else
          fs::create_directories(tmp / rel);
        continue;
      }
      if (patched.count(rel.string()))
        writeFileAtomic(tmp / rel, patched[rel.string()]);
      else
        fs::create_symlink(it->path(), tmp / rel);
    }
    writeFileAtomic(tmp / ".rootline-variant", "");
    std::error_code ec;
    fs::rename(tmp, dir, ec);
    if (ec) // another job made it first
      fs::remove_all(tmp, ec);
    return dir;
  }

  const DebugRequest &req_;
  const std::vector<RevertEvidence::ChangedFile> &files_;
  const std::vector<RevertEvidence::Unit> &units_;
  fs::path work_;
  const Deadline &deadline_;
  DebugReport &report_;
  OtherProcesses *others_;
  fs::path exe_; // the last trial's build, when it built
  unsigned count_ = 0, edits_ = 0;
  size_t groups_ = 0;
  std::map<std::set<size_t>, std::string> results_;
  std::map<std::set<size_t>, std::string> buildErrors_;
  std::map<std::set<size_t>, size_t> trialOf_; // the trial each set's result came from
  // A trial's result and build errors by the files it built (contentKey).
  std::map<std::string, std::pair<std::string, std::string>> resultsByContent_;
  std::map<std::string, size_t> trialByContent_;
};

// What reverting a unit costs to build, roughly: a header edit recompiles every unit
// that includes it, a source edit one unit.
size_t buildCost(const RevertEvidence::Unit &u,
                 const std::vector<RevertEvidence::ChangedFile> &files) {
  std::set<size_t> sources, headers;
  for (auto [f, h] : u.hunks)
    (fs::path(files[f].newPath).extension() == ".h" ? headers : sources).insert(f);
  return sources.size() + 10 * headers.size();
}

// The unit holding a candidate's line, if any: its group, or a smaller unit tried
// when the group did not build (one whose trial built, the smallest).
std::optional<size_t> unitOf(const DebugCandidate &c,
                             const std::vector<RevertEvidence::ChangedFile> &files,
                             const std::vector<RevertEvidence::Unit> &units) {
  bool inNew = c.version == "new";
  std::optional<size_t> group, tried, failed, line, passing;
  for (size_t u = 0; u < units.size(); ++u)
    for (auto [f, h] : units[u].hunks) {
      const RevertEvidence::ChangedFile &file = files[f];
      if ((inNew ? file.newPath : file.oldPath) != c.file)
        continue;
      const DiffHunk &hunk = file.diff->changes.hunks[h];
      unsigned start = inNew ? hunk.newStart : hunk.oldStart;
      unsigned count = inNew ? hunk.newLines : hunk.oldLines;
      if (!count || c.line < start || c.line >= start + count)
        continue;
      if (units[u].newLine) {
        if (inNew && units[u].newLine == c.line && units[u].alone == "passes")
          line = u;
        continue;
      }
      if (!group)
        group = u;
      bool built = !units[u].alone.empty() && units[u].alone != "does not build";
      if (u != *group && built && (!tried || units[u].hunks.size() < units[*tried].hunks.size()))
        tried = u;
      // Nothing holding the line built: its smallest unit's build error says most.
      if (u != *group && !units[u].alone.empty() &&
          (!failed || units[u].hunks.size() < units[*failed].hunks.size()))
        failed = u;
      // A unit that fixes says more of the line than a smaller one that does not (a hunk
      // grown by what its build needs may fix where the hunk's own group did not build).
      if (units[u].alone == "passes" &&
          (!passing || units[u].hunks.size() < units[*passing].hunks.size()))
        passing = u;
    }
  if (line)
    return line;
  if (passing)
    return passing;
  if (group && (units[*group].alone.empty() || units[*group].alone == "does not build"))
    return tried ? tried : failed && !units[*group].alone.empty() ? failed : group;
  return group;
}

// The position in `ranking` of the first candidate whose line the unit holds (new side);
// past the end when none.
// Whether hunk `fh` holds line `line` of `file` on the new side.
bool holdsNewLine(const std::vector<RevertEvidence::ChangedFile> &files,
                  std::pair<size_t, size_t> fh, const std::string &file, unsigned line) {
  const DiffHunk &hunk = files[fh.first].diff->changes.hunks[fh.second];
  return files[fh.first].newPath == file && line >= hunk.newStart &&
         line < hunk.newStart + hunk.newLines;
}

size_t bestHint(const RevertEvidence::Unit &unit,
                const std::vector<RevertEvidence::ChangedFile> &files,
                const std::vector<DebugCandidate> &ranking) {
  for (size_t i = 0; i < ranking.size(); ++i) {
    const DebugCandidate &c = ranking[i];
    if (c.version != "new" || !c.line)
      continue;
    for (auto fh : unit.hunks)
      if (holdsNewLine(files, fh, c.file, c.line))
        return i;
  }
  return ranking.size();
}

// A candidate for a unit the trials single out that no candidate stands on: its first
// line on the new side (or, for a deletion, the old line it removed).
DebugCandidate unitCandidate(const RevertEvidence::Unit &unit,
                             const std::vector<RevertEvidence::ChangedFile> &files,
                             const DebugRequest &req) {
  auto [f, h] = unit.hunks.front();
  const DiffHunk &hunk = files[f].diff->changes.hunks[h];
  DebugCandidate c;
  c.kind = "changed code";
  c.inChangedRegion = true;
  c.distance = ~0u;
  // Its first line with code (not a comment or a blank line the hunk begins with).
  auto firstCode = [](const std::vector<std::string> &tokens, unsigned start, unsigned count) {
    for (unsigned l = start; l < start + count && l < tokens.size(); ++l)
      if (tokens[l].find_first_not_of(' ') != std::string::npos)
        return l;
    return start;
  };
  if (hunk.newLines) {
    c.version = "new";
    c.file = files[f].newPath;
    c.line = firstCode(files[f].diff->newLineTokens, hunk.newStart, hunk.newLines);
    c.source = sourceLine((req.newRoot / c.file).string(), c.line);
  } else {
    c.version = "old";
    c.kind = "missing code";
    c.file = files[f].oldPath;
    c.line = firstCode(files[f].diff->oldLineTokens, hunk.oldStart, hunk.oldLines);
    c.source = sourceLine((req.oldRoot / c.file).string(), c.line);
  }
  c.reasons.push_back("found by reverting hunks of the change, not in the slice");
  return c;
}

} // namespace

namespace {

// Smaller units for a group whose revert did not build or changed the failure: each of
// its hunks alone, and the group with the groups that hold a name the build error quotes
// (a changed signature and its calls).
std::vector<RevertEvidence::Unit> splitUnits(const RevertEvidence &ev, size_t group,
                                             const std::string &buildError) {
  std::vector<RevertEvidence::Unit> out;
  const RevertEvidence::Unit &g = ev.units[group];
  std::set<std::string> named = quotedIdentifiers(buildError);
  auto hunkIds = [&](std::pair<size_t, size_t> fh) {
    const auto &file = ev.files[fh.first];
    const DiffHunk &h = file.diff->changes.hunks[fh.second];
    std::set<std::string> ids = identifiersOn(file.diff->newLineTokens, h.newStart, h.newLines);
    for (const auto &id : identifiersOn(file.diff->renamedLineTokens, h.oldStart, h.oldLines))
      ids.insert(id);
    return ids;
  };
  auto label = [&](std::pair<size_t, size_t> fh) {
    return hunkLabel(ev.files[fh.first], ev.files[fh.first].diff->changes.hunks[fh.second]);
  };
  if (g.hunks.size() > 1)
    for (auto fh : g.hunks) {
      RevertEvidence::Unit one;
      one.hunks = {fh};
      one.label = label(fh);
      out.push_back(std::move(one));
    }
  if (!named.empty()) {
    RevertEvidence::Unit merged = g;
    for (size_t u = 0; u < ev.groups; ++u) {
      if (u == group)
        continue;
      bool needed = false;
      for (auto fh : ev.units[u].hunks)
        for (const auto &id : hunkIds(fh))
          needed = needed || named.count(id);
      if (!needed)
        continue;
      merged.hunks.insert(merged.hunks.end(), ev.units[u].hunks.begin(), ev.units[u].hunks.end());
      merged.label += " + " + ev.units[u].label;
    }
    if (merged.hunks.size() > g.hunks.size()) {
      merged.alone.clear();
      out.push_back(std::move(merged));
    }
  }
  return out;
}

// Line `line` (1-based) of `text`, without its line break ("" past the end).
std::string lineOfText(const std::string &text, unsigned line) {
  std::vector<std::string> lines = splitLinesKeepingEnds(text);
  if (!line || line > lines.size())
    return "";
  std::string l = lines[line - 1];
  while (!l.empty() && (l.back() == '\n' || l.back() == '\r'))
    l.pop_back();
  return l;
}

std::string withoutIndent(const std::string &s) {
  size_t b = s.find_first_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// A line the change added (no old line became it) that opens a control statement whose
// body lies on other lines: `if (n > 0)`, `for (...)`, `else`, `} else {`. Its revert
// drops it, which does not put back the old code: the body it guarded runs
// unconditionally (or two blocks join), a new program that may pass by chance. A whole
// statement on the line (`if (n > 0) n--;`) is dropped with its body, and is tried.
bool dropsOnlyAHeader(const RevertEvidence::ChangedFile &file, const DiffHunk &hunk,
                      unsigned line) {
  std::vector<unsigned> counterpart = lineCounterparts(*file.diff);
  for (unsigned o = hunk.oldStart; o < hunk.oldStart + hunk.oldLines; ++o)
    if (o < counterpart.size() && counterpart[o] == line)
      return false; // its revert puts old lines back
  std::vector<std::string> lines = splitLinesKeepingEnds(blankComments(file.newText));
  if (line == 0 || line > lines.size())
    return false;
  return opensControlStatement(lines[line - 1]);
}

// `order` with, in each of its two parts (the fixing units' lines, then the others), the
// lines `promising` holds of (an edit the screen saw pass) taken in turn with the rest, the
// rest first: a line whose edits the screen cannot hold (`&&`/`||`) keeps a place near
// where it was, and a screened repair does not wait behind them all (diffstat d4's seeded
// `&&` and d2's seeded `!=` both within the rounds' 8 lines).
template <typename Promising>
std::vector<std::pair<const DebugCandidate *, bool>>
interleaved(const std::vector<std::pair<const DebugCandidate *, bool>> &order,
            const Promising &promising) {
  std::vector<std::pair<const DebugCandidate *, bool>> out;
  for (bool part : {true, false}) {
    std::vector<std::pair<const DebugCandidate *, bool>> rest, good;
    for (const auto &o : order)
      if (o.second == part)
        (promising(o.first) ? good : rest).push_back(o);
    for (size_t i = 0; i < std::max(rest.size(), good.size()); ++i) {
      if (i < rest.size())
        out.push_back(rest[i]);
      if (i < good.size())
        out.push_back(good[i]);
    }
  }
  return out;
}

constexpr unsigned kEditLines = 8;      // lines whose edits are tried
constexpr unsigned kEditsPerLine = 3;   // of each line's edits of one family, the first ones
constexpr unsigned kMaxEditTrials = 16; // in all
constexpr unsigned kChaseLines = 6;     // lines upstream of a repair whose edits are tried
constexpr unsigned kChaseTrials = 10;   // edit trials beyond kMaxEditTrials for them
constexpr size_t kScreenedEdits = 512;  // operator edits the edit screen holds at most

// The edit screen's verdict on each edit it ran, by file, line, column and new token.
using ScreenVerdicts = std::map<std::tuple<std::string, unsigned, size_t, std::string>, bool>;

// The operator edits of `order`'s lines (`operatorEdits` gives a line's), at most
// kScreenedEdits, run by the edit screen (edit_screen.cpp) with the trials' own judge;
// the stage's note says how many ran and passed.
ScreenVerdicts
screenLines(const std::vector<std::pair<const DebugCandidate *, bool>> &order,
            const std::function<std::vector<TokenEdit>(const DebugCandidate &)> &operatorEdits,
            const Trials &trials, const DebugRequest &req, const Version &newV,
            const Deadline &deadline, Stages &stages) {
  std::vector<ScreenedEdit> asked;
  std::set<std::pair<std::string, unsigned>> seenLines;
  for (auto [c, inFixing] : order) {
    if (!seenLines.insert({c->file, c->line}).second)
      continue;
    for (const TokenEdit &e : operatorEdits(*c))
      if (asked.size() < kScreenedEdits)
        asked.push_back({c->file, c->line, e});
  }
  std::map<size_t, bool> verdicts = screenEdits(
      newV, asked, [&](const RunSummary &r) { return trials.passes(r); },
      [&](const RunSummary &r) { return trials.sameFailure(r); }, req.input,
      trials.editRunSeconds(), trials.work() / "edit-screen", deadline, stages);
  ScreenVerdicts out;
  size_t passing = 0;
  for (const auto &[k, passes] : verdicts) {
    const ScreenedEdit &e = asked[k];
    out[{e.file, e.line, e.edit.column, e.edit.to}] = passes;
    passing += passes;
  }
  if (!verdicts.empty())
    stages.note("the edit screen ran " + std::to_string(verdicts.size()) + " operator edit(s) of " +
                std::to_string(seenLines.size()) + " line(s) in one build: " +
                std::to_string(passing) + " made the failing process pass");
  return out;
}

// Edit trials (docs/debug.md, "Edit evidence"): one-token edits of the first ranking's
// changed lines on the new version, the rest of the change kept. They are for what
// reverts cannot tell apart: the lines of a unit of several lines whose revert makes the
// test pass (a function the change added, a large hunk), unless a line narrowed from it
// passed with its old text put back (a line the change added is dropped by its revert,
// which can switch the change off as well: that does not count); and
// then, when no line is singled out by then (no one-line revert, no edit passed), the
// first ranking's other changed lines. Within the caps every wanted line is tried: the
// first edit that passes need not be the best (an edit of the line after a wrong bound
// can make up for it), and the ranking orders the lines that have one.
void tryEdits(RevertEvidence &ev, const std::vector<DebugCandidate> &firstRanking, Trials &trials,
              const DebugRequest &req, const Version *newV, const Deadline &deadline,
              Stages &stages) {
  const std::vector<RevertEvidence::Unit> &units = ev.units;
  // The units with a line narrowed from them whose revert put back the old lines that
  // became it (not a line the change added, which its revert drops) and passed: that
  // line is the unit's answer, a repair with the old text. Found once, not per line.
  std::set<size_t> answered;
  for (const RevertEvidence::Unit &k : units) {
    if (!k.newLine || k.alone != "passes")
      continue;
    const RevertEvidence::ChangedFile &file = ev.files[k.hunks.front().first];
    const DiffHunk &hunk = file.diff->changes.hunks[k.hunks.front().second];
    std::vector<unsigned> counterpart = lineCounterparts(*file.diff);
    bool restored = false;
    for (unsigned o = hunk.oldStart; o < hunk.oldStart + hunk.oldLines; ++o)
      restored = restored || (o < counterpart.size() && counterpart[o] == k.newLine);
    if (restored)
      for (size_t u = 0; u < units.size(); ++u)
        if (std::find(units[u].hunks.begin(), units[u].hunks.end(), k.hunks.front()) !=
            units[u].hunks.end())
          answered.insert(u);
  }
  auto wanted = [&](const DebugCandidate &c, bool inFixing) {
    std::optional<size_t> u = unitOf(c, ev.files, units);
    bool fixes = u && (units[*u].alone == "passes" || ev.minimal.count(*u));
    if (!inFixing)
      return !fixes;
    return fixes && !units[*u].newLine && unitLines(ev, *u) > 1 && !answered.count(*u);
  };
  auto lineFound = [&] {
    for (size_t u = 0; u < units.size(); ++u)
      if (units[u].alone == "passes" && !units[u].others.changed &&
          (units[u].newLine || unitLines(ev, u) == 1))
        return true;
    return std::any_of(ev.edits.begin(), ev.edits.end(),
                       [](const auto &e) { return e.result == "passes"; });
  };
  std::vector<std::pair<const DebugCandidate *, bool>> order;
  for (bool inFixing : {true, false})
    for (const DebugCandidate &c : firstRanking)
      if (c.version == "new" && c.line && c.inChangedRegion && wanted(c, inFixing))
        order.push_back({&c, inFixing});
  std::map<std::string, std::vector<std::string>> blanked; // each file's lines, once
  std::set<std::pair<std::string, unsigned>> repaired;     // lines an edit made pass
  // The edit screen's verdicts (edit_screen.cpp): an edit it ran whose failing process
  // did not pass is not built; lines with one that passed are taken in turn with the rest.
  ScreenVerdicts screened;
  auto screenVerdict = [&](const DebugCandidate &c, const TokenEdit &e) -> std::optional<bool> {
    auto it = screened.find({c.file, c.line, e.column, e.to});
    return it == screened.end() ? std::nullopt : std::optional<bool>(it->second);
  };
  std::set<size_t> repairedUnits; // units with such a line: the literals look elsewhere
  // The edits of `c`'s line that `keep` accepts (operators, literals or both), in order.
  auto editsOf = [&](const DebugCandidate &c, auto keep) {
    std::vector<TokenEdit> edits;
    auto file = std::find_if(ev.files.begin(), ev.files.end(),
                             [&](const auto &f) { return f.newPath == c.file; });
    if (file == ev.files.end())
      return edits;
    auto [at, fresh] = blanked.try_emplace(file->newPath);
    if (fresh)
      at->second = splitLinesKeepingEnds(blankComments(file->newText));
    if (c.line > at->second.size())
      return edits;
    for (TokenEdit &e : tokenEditsOf(at->second[c.line - 1]))
      if (keep(e))
        edits.push_back(std::move(e));
    return edits;
  };
  // Tries `edits` of `c`'s line, the first kEditsPerLine of them, up to `cap` edit trials
  // in all; stops at the first that passes. Returns whether one did.
  auto tryLine = [&](const DebugCandidate &c, const std::vector<TokenEdit> &edits, unsigned cap) {
    const auto &file = *std::find_if(ev.files.begin(), ev.files.end(),
                                     [&](const auto &f) { return f.newPath == c.file; });
    for (size_t i = 0; i < edits.size() && i < kEditsPerLine; ++i) {
      if (trials.edits() >= cap || deadline.expired())
        break;
      std::string text = withTokenEdit(file.newText, c.line, edits[i]);
      if (text == file.newText)
        continue;
      stages.update(std::to_string(trials.count()) + " revert trial(s), " +
                    std::to_string(trials.edits()) + " edit trial(s)");
      RevertEvidence::Edit e;
      e.file = c.file;
      e.line = c.line;
      e.column = edits[i].column;
      e.from = edits[i].from;
      e.to = edits[i].to;
      e.source = withoutIndent(lineOfText(text, c.line));
      // An edit that fixed the failing process and changed the test elsewhere is no
      // repair: the line's next edit is tried.
      trials.runEdit(file.newPath, text,
                     e.file + ":" + std::to_string(e.line) + ": `" + e.from + "` → `" + e.to + "`",
                     c.file, c.runsAt ? c.runsAt : c.line, e);
      if (e.result == "passes") {
        e.files = {{file.newPath, text}};
        e.trial = trials.lastTrial();
      }
      ev.edits.push_back(e);
      if (e.result == "passes") {
        repaired.insert({c.file, c.line});
        return true; // one repair of the line is enough
      }
    }
    return false;
  };
  // More lines than the rounds try: the operator edits of every wanted line are screened
  // in one build (interleaved, below). Each line with an edit the screen saw pass adds a
  // line and a trial to the rounds' caps (up to 8): the caps bound trials made blind, and
  // such a trial is not blind.
  unsigned screenedRepairs = 0;
  std::set<std::pair<std::string, unsigned>> wantedLines;
  for (auto [c, inFixing] : order)
    wantedLines.insert({c->file, c->line});
  if (newV && wantedLines.size() > kEditLines && !deadline.expired()) {
    screened = screenLines(
        order,
        [&](const DebugCandidate &c) {
          return editsOf(c, [](const TokenEdit &e) { return !e.literal; });
        },
        trials, req, *newV, deadline, stages);
    std::set<std::pair<std::string, unsigned>> good; // lines with an edit that passed
    for (const auto &[edit, passes] : screened)
      if (passes)
        good.insert({std::get<0>(edit), std::get<1>(edit)});
    order =
        interleaved(order, [&](const DebugCandidate *c) { return good.count({c->file, c->line}); });
    screenedRepairs = static_cast<unsigned>(std::min<size_t>(good.size(), kEditLines));
  }
  // The edits of a line worth a trial: not one the screen ran and saw fail; those it saw
  // pass first.
  auto unscreenedOrPassing = [&](const DebugCandidate &c, std::vector<TokenEdit> edits) {
    std::erase_if(edits, [&](const TokenEdit &e) { return screenVerdict(c, e) == false; });
    std::stable_partition(edits.begin(), edits.end(),
                          [&](const TokenEdit &e) { return screenVerdict(c, e) == true; });
    return edits;
  };
  std::set<std::pair<std::string, unsigned>> tried; // lines whose edits were tried
  // One round over the wanted lines, with the edits of one family: the operators for
  // every line first, then the literals with the trials left, in the units no operator
  // edit repaired. A line with no edit of
  // the round's family does not count as one of its lines.
  auto round = [&](bool literals) {
    std::set<std::pair<std::string, unsigned>> seen;
    unsigned lines = 0;
    std::optional<bool> others; // whether to try the other lines, decided when reached
    for (auto [c, inFixing] : order) {
      if (!inFixing && !others)
        others = !lineFound();
      if (lines >= kEditLines + screenedRepairs ||
          trials.edits() >= kMaxEditTrials + screenedRepairs || deadline.expired() ||
          (!inFixing && !*others))
        break;
      if (!seen.insert({c->file, c->line}).second || repaired.count({c->file, c->line}))
        continue;
      std::optional<size_t> unit = unitOf(*c, ev.files, units);
      if (literals && unit && repairedUnits.count(*unit))
        continue;
      std::vector<TokenEdit> edits = unscreenedOrPassing(
          *c, editsOf(*c, [&](const TokenEdit &e) { return e.literal == literals; }));
      if (edits.empty())
        continue;
      ++lines;
      tried.insert({c->file, c->line});
      if (tryLine(*c, edits, kMaxEditTrials + screenedRepairs) && unit && !literals)
        repairedUnits.insert(*unit); // within a round every wanted line is tried
    }
  };
  // Upstream of a repair (docs/debug.md, "Edit evidence"): an edit that passes may make up
  // for a fault that came before it (a condition after a helper's wrong answer takes the
  // other way). So from each line an edit repaired, the changed lines earlier on the
  // failure's slice are tried too, the nearest first, their operators' edits (as in the
  // first round; a unit with a repair gets no literals), until one passes; and from that
  // one in turn.
  auto chase = [&] {
    std::vector<const DebugCandidate *> repairs; // a work list: a repair found is chased too
    for (const DebugCandidate &c : firstRanking)
      if (c.version == "new" && c.distance != ~0u && repaired.count({c.file, c.line}))
        repairs.push_back(&c);
    for (size_t k = 0; k < repairs.size(); ++k) {
      const DebugCandidate *r = repairs[k];
      std::vector<const DebugCandidate *> upstream;
      for (const DebugCandidate &c : firstRanking)
        if (c.version == "new" && c.line && c.inChangedRegion && c.distance != ~0u &&
            c.distance > r->distance && !tried.count({c.file, c.line}))
          upstream.push_back(&c);
      std::stable_sort(upstream.begin(), upstream.end(),
                       [](auto *a, auto *b) { return a->distance < b->distance; });
      unsigned lines = 0;
      for (const DebugCandidate *c : upstream) {
        if (lines >= kChaseLines ||
            trials.edits() >= kMaxEditTrials + screenedRepairs + kChaseTrials || deadline.expired())
          break;
        std::vector<TokenEdit> edits =
            unscreenedOrPassing(*c, editsOf(*c, [](const TokenEdit &e) { return !e.literal; }));
        if (edits.empty() || !tried.insert({c->file, c->line}).second)
          continue;
        ++lines;
        if (tryLine(*c, edits, kMaxEditTrials + screenedRepairs + kChaseTrials)) {
          repairs.push_back(c);
          break;
        }
      }
    }
  };
  round(false);
  round(true);
  chase();
}

} // namespace

constexpr size_t kDepthFirst = 3; // smaller units of a group tried right after it
// Once a unit of several lines fixes, the part of the stage's share left to the edit
// trials that tell its lines apart (other units come before them, and trials of an
// uncached project build can fill a whole share).
constexpr double kEditReserve = 0.35;

// Whether a unit of several lines fixes: only edit trials can single out a line of it.
// A line elsewhere whose revert alone fixes does not: reverting the call of a function
// the change added switches the new code off (mawk's `return markup_loop_levels(m_ptr)`),
// and the fault may sit in that function, one of the unit's lines.
bool fixWantsEdits(const RevertEvidence &ev) {
  for (size_t u : ev.fixing)
    if (!ev.units[u].newLine && unitLines(ev, u) > 1)
      return true;
  return false;
}

RevertEvidence gatherRevertEvidence(const DebugRequest &req,
                                    const std::vector<DebugCandidate> &firstRanking, Diffs &diffs,
                                    const std::set<std::string> &builtFrom, const fs::path &work,
                                    const Deadline &deadline, DebugReport &report, Stages &stages,
                                    OtherProcesses *others, const Version *newV) {
  RevertEvidence ev;
  ev.files = changedFiles(req, diffs, builtFrom, ev.skippedFiles);
  ev.units = unitsOf(ev.files);
  ev.groups = ev.units.size();
  std::vector<RevertEvidence::Unit> &units = ev.units;
  if (ev.skippedFiles)
    stages.note(std::to_string(ev.skippedFiles) +
                " changed file(s) the program is not built from (docs, tests, other programs) "
                "are not reverted");
  if (units.empty()) {
    stages.note("no hunk of the change can alter behaviour");
    return ev;
  }
  // The first ranking decides which units are tried first; a small change is tried
  // whole.
  std::vector<size_t> order;
  auto want = [&](size_t u) {
    if (std::find(order.begin(), order.end(), u) == order.end())
      order.push_back(u);
  };
  for (const auto &c : firstRanking)
    if (auto u = unitOf(c, ev.files, units))
      want(*u);
  // The rest, when few, cheapest builds first.
  std::vector<size_t> byCost(units.size());
  for (size_t u = 0; u < units.size(); ++u)
    byCost[u] = u;
  std::stable_sort(byCost.begin(), byCost.end(), [&](size_t a, size_t b) {
    return buildCost(units[a], ev.files) < buildCost(units[b], ev.files);
  });
  if (units.size() <= 8)
    for (size_t u : byCost)
      want(u);
  Trials trials(req, ev.files, units, work, deadline, report, others);
  ev.processOnly = req.wholeBehaviour;
  // A unit that passes keeps its files and trial for the whole test (confirmFixes).
  auto keepPassing = [&](size_t u) {
    units[u].files = trials.filesOf({u});
    units[u].trial = trials.trialOf({u});
    if (const RevertTrial *t = trials.trialFor({u}))
      units[u].others = t->others;
  };
  // A unit that fixes but spans several lines (a group, or a hunk of several lines):
  // the first ranking's lines in it, each reverted alone, tell which of them matters
  // (an extracted helper and the wrong call beside it).
  // Done as soon as the unit fixes, before other units: under a short share the line
  // is worth more than another group's trial.
  constexpr size_t kLinesPerUnit = 6;
  auto narrow = [&](size_t u) {
    size_t tried = 0;
    for (const auto &c : firstRanking) {
      if (trials.exhausted() || tried >= kLinesPerUnit)
        break;
      if (c.version != "new" || !c.line || unitOf(c, ev.files, units) != u)
        continue;
      std::optional<std::pair<size_t, size_t>> at;
      unsigned lines = 0;
      for (auto [f, h] : units[u].hunks) {
        const DiffHunk &hunk = ev.files[f].diff->changes.hunks[h];
        lines += hunk.newLines;
        if (ev.files[f].newPath == c.file && c.line >= hunk.newStart &&
            c.line < hunk.newStart + hunk.newLines)
          at = std::make_pair(f, h);
      }
      if (!at || lines < 2)
        continue;
      bool known = false;
      for (size_t k = ev.groups; k < units.size(); ++k)
        known = known || (units[k].newLine == c.line && units[k].hunks.front() == *at);
      if (known)
        continue;
      if (dropsOnlyAHeader(ev.files[at->first], ev.files[at->first].diff->changes.hunks[at->second],
                           c.line))
        continue;
      RevertEvidence::Unit line;
      line.hunks = {*at};
      line.newLine = c.line;
      line.label = ev.files[at->first].newPath + ":" + std::to_string(c.line);
      if (!units[u].oldDefinitions.empty()) { // the macros the unit needed, again
        line.oldDefinitions = units[u].oldDefinitions;
        line.oldDefinitionsNote = units[u].oldDefinitionsNote;
        line.label += line.oldDefinitionsNote;
      }
      units.push_back(std::move(line));
      ++tried;
      size_t last = units.size() - 1;
      units[last].alone = trials.run({last}, "revert");
      // A line whose old text needs what the change removed (a helper, a macro) does not
      // build alone: its hunk is tried again with what its build needs, as a group's
      // hunk is, so that a group that passes as a whole still narrows to it.
      if (units[last].alone == "does not build") {
        RevertEvidence::Unit hunk;
        hunk.hunks = {*at};
        hunk.label =
            hunkLabel(ev.files[at->first], ev.files[at->first].diff->changes.hunks[at->second]) +
            units[last].oldDefinitionsNote;
        hunk.oldDefinitions = units[last].oldDefinitions;
        hunk.oldDefinitionsNote = units[last].oldDefinitionsNote;
        std::string error = units[last].buildError = trials.buildError({last});
        while (!trials.exhausted()) {
          std::optional<RevertEvidence::Unit> grown = grownUnit(ev, hunk, error);
          if (!grown) // nothing of the change helps, or it grew its last time
            break;
          units.push_back(std::move(*grown));
          last = units.size() - 1;
          units[last].alone = trials.run({last}, "revert");
          if (units[last].alone != "does not build")
            break;
          error = units[last].buildError = trials.buildError({last});
          hunk = units[last];
        }
      }
      if (units[last].alone == "passes") {
        ev.fixing.push_back(last);
        keepPassing(last);
      }
    }
  };
  // A group whose revert does not build or changes the failure is tried in smaller
  // units (after the groups the first ranking asked for, before the rest). `units`
  // grows: index, not iterate.
  // Smaller units of the unit tried k-th: the first ranking's best lines first; the best
  // few right away, before the other groups (the line ranked first is then tried within
  // the share), the rest after them (a large group's every hunk must not crowd out the
  // next group).
  auto tryNext = [&](size_t k, std::vector<RevertEvidence::Unit> smaller) {
    std::stable_sort(smaller.begin(), smaller.end(), [&](const auto &a, const auto &b) {
      return bestHint(a, ev.files, firstRanking) < bestHint(b, ev.files, firstRanking);
    });
    std::vector<size_t> next;
    for (auto &s : smaller) {
      units.push_back(std::move(s));
      if (next.size() < kDepthFirst)
        next.push_back(units.size() - 1);
      else
        order.push_back(units.size() - 1);
    }
    order.insert(order.begin() + static_cast<std::ptrdiff_t>(k) + 1, next.begin(), next.end());
  };
  const double share = deadline.remaining();
  for (size_t k = 0; k < order.size(); ++k) {
    size_t u = order[k];
    if (trials.exhausted() ||
        (deadline.limited() && fixWantsEdits(ev) && deadline.remaining() < kEditReserve * share))
      break;
    stages.update(std::to_string(trials.count()) + " revert trial(s), " +
                  std::to_string(ev.groups) + " group(s) of hunks in the change");
    std::set<size_t> asked = {u};
    units[u].alone = trials.run(asked, "revert");
    if (units[u].alone == "passes") {
      ev.fixing.push_back(u);
      keepPassing(u);
      if (ev.groups > 1 && u < ev.groups && !trials.exhausted())
        units[u].appliedAlone = trials.run(trials.complement({u}), "apply alone");
      narrow(u);
    } else if (units[u].alone == "does not build") {
      std::string error = trials.buildError(asked);
      std::vector<RevertEvidence::Unit> smaller;
      units[u].buildError = error;
      if (auto grown = grownUnit(ev, units[u], error))
        smaller.push_back(std::move(*grown));
      if (u < ev.groups)
        for (auto &s : splitUnits(ev, u, error))
          smaller.push_back(std::move(s));
      tryNext(k, std::move(smaller));
    } else if (u < ev.groups && units[u].hunks.size() > 1 &&
               (units[u].alone == "different failure" || units[u].alone == "later failure")) {
      // The group changes the failure: a hunk of it matters, and the others may change
      // behaviour their own way (a grammar file beside the lexer's fix): its hunks alone.
      tryNext(k, splitUnits(ev, u, ""));
    }
  }
  if (ev.fixing.empty() && ev.groups > 1 && !trials.exhausted()) {
    std::vector<size_t> groups;
    for (size_t u : byCost)
      if (u < ev.groups)
        groups.push_back(u);
    // Cheapest builds first, so more trials fit in the stage's share.
    ReducedRevert reduced = reduceRevert(
        groups,
        [&](const std::vector<size_t> &set) {
          return trials.run({set.begin(), set.end()}, "revert") == "passes";
        },
        [&] { return trials.exhausted(); });
    ev.minimal = {reduced.units.begin(), reduced.units.end()};
    ev.minimalIsOneMinimal = reduced.oneMinimal;
    if (ev.minimal.size() == ev.groups)
      ev.minimal.clear(); // the whole change: nothing learnt
    for (size_t u : ev.minimal)
      report.minimalRevert.push_back(units[u].label);
    report.minimalRevertOneMinimal = ev.minimalIsOneMinimal;
  }
  tryEdits(ev, firstRanking, trials, req, newV, deadline, stages);
  std::string edits =
      trials.edits() ? ", " + std::to_string(trials.edits()) + " edit trial(s)" : std::string();
  if (deadline.expired())
    stages.cut("the budget ended after " + std::to_string(trials.count()) + " revert trial(s)" +
               edits);
  else
    stages.update(std::to_string(trials.count()) + " revert trial(s)" + edits);
  return ev;
}

namespace {

// A unit's label for a sentence: its first hunks and how many more ("a.c:3 + a.c:9 + a.c:20
// and 36 more hunks"); the trials in the report list them all.
std::string shortLabel(const std::string &label) {
  constexpr size_t kShown = 3;
  std::string note;
  std::string hunks = label;
  if (size_t at = hunks.find(" (with the old definition"); at != std::string::npos)
    note = hunks.substr(at), hunks.resize(at);
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t end = hunks.find(" + ", start);
    parts.push_back(
        hunks.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos)
      break;
    start = end + 3;
  }
  if (parts.size() <= kShown + 1)
    return label;
  std::string out;
  for (size_t i = 0; i < kShown; ++i)
    out += (i ? " + " : "") + parts[i];
  return out + " and " + std::to_string(parts.size() - kShown) + " more hunks" + note;
}

// The hunks a grown unit added to the unit it grew from, by label.
std::vector<std::string> addedHunks(const RevertEvidence::Unit &u) {
  auto parts = [](std::string label) {
    if (size_t at = label.find(" (with the old definition"); at != std::string::npos)
      label.resize(at);
    std::vector<std::string> out;
    for (size_t start = 0;;) {
      size_t end = label.find(" + ", start);
      out.push_back(label.substr(start, end == std::string::npos ? end : end - start));
      if (end == std::string::npos)
        return out;
      start = end + 3;
    }
  };
  std::vector<std::string> from = parts(u.grownFrom), added;
  for (const std::string &p : parts(u.label))
    if (std::find(from.begin(), from.end(), p) == from.end())
      added.push_back(p);
  return added;
}

// What a grown unit added to the unit it grew from: its hunks and old definitions
// ("diffstat.c:2058 (old lines 2388-2507 deleted); the old definition of `DEL`").
std::string grownBy(const RevertEvidence::Unit &u) {
  std::vector<std::string> added = addedHunks(u);
  std::string out;
  for (size_t i = 0; i < added.size() && i < 3; ++i)
    out += (i ? " + " : "") + added[i];
  if (added.size() > 3)
    out += " and " + std::to_string(added.size() - 3) + " more hunks";
  const std::string &note = u.oldDefinitionsNote; // " (with the old definition of `X` put back)"
  if (note.size() > 21 && note.compare(note.size() - 10, 10, " put back)") == 0)
    out += (out.empty() ? "" : "; ") + note.substr(7, note.size() - 17);
  return out;
}

// Whether a smaller part of a unit (one of its hunks, or one line of them) was reverted
// and built: then its hunks do not "build only together", whatever tied them.
bool partBuilt(const RevertEvidence &ev, size_t unit) {
  const RevertEvidence::Unit &u = ev.units[unit];
  return std::any_of(ev.units.begin(), ev.units.end(), [&](const RevertEvidence::Unit &v) {
    bool smaller = v.hunks.size() < u.hunks.size() || (v.newLine && !u.newLine);
    return &v != &u && smaller && !v.alone.empty() && v.alone != "does not build" &&
           std::all_of(v.hunks.begin(), v.hunks.end(), [&](const auto &h) {
             return std::find(u.hunks.begin(), u.hunks.end(), h) != u.hunks.end();
           });
  });
}

// What a passing trial's check on the test's alike processes says (docs/debug.md, "The
// test's other processes"), `what` being "this line" or "its lines": ", but it changes
// what 3 of the 5 process(es) of the test that behave alike in both versions and run this
// line do, each run alone (`cmd`)"; "; the 59 process(es) … (11 that run this line, 48 that
// the test spectrum did not replay) behave as before with it, each run alone"; "" when
// none ran.
std::string alikeClause(const OthersVerdict &v, const std::string &what) {
  if (!v.alike())
    return "";
  std::string of =
      std::to_string(v.alike()) + " process(es) of the test that behave alike in both versions" +
      (v.unreplayed ? " (" + std::to_string(v.run) + " that run " + what + ", " +
                          std::to_string(v.unreplayed) + " that the test spectrum did not replay)"
                    : " and run " + what);
  if (v.changed)
    return ", but it changes what " + std::to_string(v.changed) + " of the " + of +
           " do, each run alone (`" + v.firstChanged + "`)";
  return "; the " + of + " behave as before with it, each run alone";
}

// A unit's trial results as a candidate's `revert` and its sentence.
std::pair<std::string, std::string> revertOf(const RevertEvidence &ev, size_t unit) {
  const RevertEvidence::Unit &u = ev.units[unit];
  if (ev.minimal.count(unit)) {
    std::string set;
    for (size_t m : ev.minimal)
      set += (set.empty() ? "" : ", ") + ev.units[m].label;
    // Cut by the budget, the set passes but may hold groups it does not need.
    std::string cut = ev.minimalIsOneMinimal
                          ? ""
                          : " (the budget ended before each was tried without the others)";
    return {"fixes with others", "reverting these " + std::to_string(ev.minimal.size()) +
                                     " groups of hunks together " + passPhrase(ev.processOnly, "") +
                                     cut + ": " + set};
  }
  // One group that is the whole change and more than one line: reverting it is the
  // old version, evidence for no line in particular.
  unsigned lines = unitLines(ev, unit);
  size_t allHunks = 0;
  for (size_t g = 0; g < ev.groups; ++g)
    allHunks += ev.units[g].hunks.size();
  // Most of a large change (a group grown by what its build needs to all but a few
  // hunks) says no more about a line than all of it.
  bool most = u.hunks.size() >= 4 && u.hunks.size() * 5 >= allHunks * 4;
  if (!u.newLine && (u.hunks.size() == allHunks || most) && lines > 1) {
    std::string whole = u.hunks.size() == allHunks
                            ? "reverting the whole change (" + shortLabel(u.label) + ")"
                            : "reverting " + std::to_string(u.hunks.size()) + " of the change's " +
                                  std::to_string(allHunks) + " hunks (" + shortLabel(u.label) + ")";
    std::string passes = " " + passPhrase(ev.processOnly, u.wholeTest);
    if (u.alone == "passes" && u.hunks.size() != allHunks)
      return {"whole change",
              whole + passes + "; that is most of the change, evidence for no line in particular"};
    if (u.alone == "passes")
      return {"whole change",
              whole + passes + "; that is the old version, evidence for no line in particular"};
    if (u.alone.empty())
      return {"", ""};
    if (u.alone == "does not build")
      return {"unresolved",
              whole + " does not build" + (u.buildError.empty() ? "" : " (" + u.buildError + ")")};
    return {"unresolved",
            whole +
                (ev.processOnly ? " does not make the failing process behave as in the old "
                                  "version ("
                                : " does not make the test pass (") +
                u.alone + ")"};
  }
  bool built = u.alone != "does not build";
  std::string what = shortLabel(u.label);
  if (u.grown && built && !addedHunks(u).empty())
    what = shortLabel(u.grownFrom) + " with what its build needs (" + grownBy(u) + ")";
  else if (u.hunks.size() > 1)
    what = "the group of " + std::to_string(u.hunks.size()) + " hunks " + what +
           (built && !partBuilt(ev, unit) ? " (they build only together)" : "");
  if (!built) // the build's own words, not "alone": nothing ran
    return {"unresolved", "reverting " + what + " does not build" +
                              (u.buildError.empty() ? "" : " (" + u.buildError + ")")};
  static const std::map<std::string, std::pair<std::string, std::string>> byResult = {
      {"passes", {"fixes", ""}}, // said below: what passed
      {"same failure", {"no effect", " alone leaves the failure as it is"}},
      {"later failure",
       {"fixes first difference",
        " alone removes the failure's first difference (the output then differs only later, "
        "where other hunks of the change show)"}},
      {"different failure", {"changes failure", " alone changes the failure but does not fix it"}}};
  auto it = byResult.find(u.alone);
  if (it == byResult.end())
    return {"", ""}; // not tried
  std::string detail = "reverting " + what + it->second.second;
  std::string revert = it->second.first;
  if (u.alone == "passes") {
    detail = "reverting " + what + " alone " + passPhrase(ev.processOnly, u.wholeTest);
    if (u.wholeTest == "fails")
      revert = "fixes failing process";
    detail += alikeClause(u.others, "its lines");
    if (u.others.changed)
      revert = "fixes failing process";
  }
  // The converse trial: the old version with this unit alone applied.
  if (u.appliedAlone == "same failure")
    detail += ", and applying it alone to the old version brings the same failure";
  else if (!u.appliedAlone.empty() && u.appliedAlone != "does not build")
    detail += "; applied alone to the old version, " +
              std::string(ev.processOnly ? "the failing process " : "the test ") +
              std::string(
                  u.appliedAlone == "passes"
                      ? (ev.processOnly ? "still behaves as in the old version" : "still passes") +
                            std::string(" (other hunks take part)")
                      : "fails otherwise (" + u.appliedAlone + ")");
  return {revert, detail};
}

} // namespace

unsigned unitLines(const RevertEvidence &ev, size_t unit) {
  unsigned lines = 0;
  for (auto [f, h] : ev.units[unit].hunks) {
    const DiffHunk &hunk = ev.files[f].diff->changes.hunks[h];
    lines += std::max(hunk.newLines, hunk.oldLines);
  }
  return lines;
}

namespace {

// A group of hunks that fixes says one of its lines is needed, not which. A smaller unit
// that holds the line (its hunk, grown by what its build needs, when the line alone did
// not build) and removes the first difference says more of this line than of the group's
// others: its sentence, or "" when there is none.
std::string narrowedRevertOf(const RevertEvidence &ev, size_t unit, const DebugCandidate &c) {
  const RevertEvidence::Unit &group = ev.units[unit];
  if (c.version != "new" || !c.line || group.hunks.size() < 2 || group.alone != "passes")
    return "";
  std::optional<size_t> best;
  for (size_t k = 0; k < ev.units.size(); ++k) {
    const RevertEvidence::Unit &u = ev.units[k];
    if (k == unit || u.newLine || u.hunks.size() >= group.hunks.size() ||
        u.alone != "later failure" || (best && u.hunks.size() >= ev.units[*best].hunks.size()))
      continue;
    bool holds = std::any_of(u.hunks.begin(), u.hunks.end(),
                             [&](auto fh) { return holdsNewLine(ev.files, fh, c.file, c.line); });
    if (holds)
      best = k;
  }
  if (!best)
    return "";
  auto [result, detail] = revertOf(ev, *best);
  return result == "fixes first difference" ? detail : "";
}

} // namespace

void applyRevertEvidence(const RevertEvidence &ev, std::vector<DebugCandidate> &candidates,
                         const DebugRequest &req) {
  for (DebugCandidate &c : candidates)
    for (const RevertEvidence::Edit &e : ev.edits) {
      if (c.version != "new" || c.file != e.file || c.line != e.line)
        continue;
      std::string changing = "changing `" + e.from + "` to `" + e.to + "` at " + e.file + ":" +
                             std::to_string(e.line) + " (`" + e.source + "`) alone ";
      const OthersVerdict &v = e.others;
      if (e.result == "passes") {
        c.edit = changing + passPhrase(ev.processOnly, e.wholeTest) +
                 ", the rest of the change kept" + alikeClause(v, "this line");
        if (v.differingRun)
          c.edit += std::string(v.alike() ? ", and" : ";") + " it makes " +
                    (v.restored ? std::to_string(v.restored) : std::string("none")) + " of the " +
                    std::to_string(v.differingRun) +
                    " process(es) of the test whose behaviour differs between the versions and "
                    "that run this line behave as in the old version" +
                    (v.alike() ? "" : ", each run alone");
        c.editRestores = v.restored;
      } else if (e.result == "process only" && c.processOnlyEdit.empty())
        c.processOnlyEdit = changing + passPhrase(ev.processOnly, e.wholeTest) +
                            (v.changed ? alikeClause(v, "this line") : "");
    }
  std::set<size_t> covered;
  for (DebugCandidate &c : candidates)
    if (std::optional<size_t> unit = unitOf(c, ev.files, ev.units)) {
      covered.insert(*unit);
      std::tie(c.revert, c.revertDetail) = revertOf(ev, *unit);
      c.revertLines = unitLines(ev, *unit);
      c.revertUnit = ev.units[*unit].label;
      c.narrowedRevert = narrowedRevertOf(ev, *unit, c);
    }
  // A unit the trials single out that no candidate stands on becomes one.
  std::vector<size_t> singled = ev.fixing;
  singled.insert(singled.end(), ev.minimal.begin(), ev.minimal.end());
  for (size_t u : singled)
    if (covered.insert(u).second) {
      DebugCandidate c = unitCandidate(ev.units[u], ev.files, req);
      std::tie(c.revert, c.revertDetail) = revertOf(ev, u);
      c.revertLines = unitLines(ev, u);
      c.revertUnit = ev.units[u].label;
      if (c.revert != "whole change") // the whole change singles out no line
        candidates.push_back(std::move(c));
    }
}

} // namespace rootline::debug
