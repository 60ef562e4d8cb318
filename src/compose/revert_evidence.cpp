// The revert stage: "reverting main.c:6 alone makes the test pass" (DESIGN.md 2.8;
// docs/debug.md, "Revert evidence"). Each trial builds the new tree with some units of
// the change put back to the old text and runs the failing test on it. Trees are
// symlink farms under the cache, named by their content, so the build cache serves a
// trial a second time.
#include "compose/debug_stages.h"

#include "rootline/c_tokens.h"
#include "rootline/error.h"
#include "rootline/hash.h"
#include "rootline/hunk_patch.h"
#include "rootline/tree_compare.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>
#include <unistd.h>

namespace rootline::debug {

namespace {

constexpr size_t kMaxTreeEntries = 50000;
constexpr unsigned kMaxTrials = 40;
const std::set<std::string> kSourceExtensions = {".c", ".h", ".inc", ".def"};

// The files the change touched, with both sides: git's list between commits, else the C
// sources and headers that differ between the two trees.
std::vector<RevertEvidence::ChangedFile> changedFiles(const DebugRequest &req, Diffs &diffs) {
  std::vector<std::pair<std::string, std::string>> pairs;
  if (req.sourceDiff) {
    for (const auto &f : req.sourceDiff->files)
      if (!f.oldPath.empty() && !f.newPath.empty())
        pairs.push_back({f.oldPath, f.newPath});
  } else {
    for (const std::string &rel :
         changedTreeFiles(req.oldRoot, req.newRoot, kSourceExtensions, kMaxTreeEntries))
      pairs.push_back({rel, rel});
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

// The semantic hunks, grouped into units that can be reverted alone and still build: a
// name the change introduced (in no old file) ties the hunk that declares it to the
// hunks that use it, and a name it removed ties the hunks that held it, across files
// (an extracted helper and its calls are one unit). Renames are already discounted.
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

class Trials {
public:
  Trials(const DebugRequest &req, const std::vector<RevertEvidence::ChangedFile> &files,
         const std::vector<RevertEvidence::Unit> &units, const fs::path &work,
         const Deadline &deadline, DebugReport &report)
      : req_(req), files_(files), units_(units), work_(work), deadline_(deadline), report_(report) {
  }

  unsigned count() const { return count_; }
  bool exhausted() const { return deadline_.expired() || count_ >= kMaxTrials; }

  // The test on the new version with `reverted` units back at their old text.
  std::string run(const std::set<size_t> &reverted, const std::string &what) {
    auto known = results_.find(reverted);
    if (known != results_.end())
      return known->second; // delta debugging asks some sets twice
    ++count_;
    RevertTrial t;
    t.what = what;
    const std::set<size_t> &shown = what == "revert" ? reverted : complement(reverted);
    for (size_t u : shown)
      t.hunks.push_back(units_[u].label);
    try {
      std::map<std::string, std::string> patched = patchedFiles(reverted);
      fs::path exe;
      if (req_.buildVariant) {
        exe = req_.buildVariant(patched); // the project's own (incremental) build
      } else {
        fs::path tree = variantTree(patched);
        BuildRecipe recipe = rebaseRecipe(req_.newRecipe, req_.newRoot, tree);
        exe = buildNative(recipe, buildModule(recipe));
      }
      t.run = runInputNatively(exe, req_.input, work_ / ("revert" + std::to_string(count_)),
                               deadline_.clamp(req_.timeoutSeconds, 0.2));
      if (passes(t.run))
        t.result = "passes";
      else if (t.run.stdoutBytes == report_.newRun.stdoutBytes &&
               t.run.outcome == report_.newRun.outcome)
        t.result = "same failure";
      else if (firstDifference(t.run.stdoutBytes) > firstDifference(report_.newRun.stdoutBytes))
        t.result = "later failure"; // the failure's first difference is gone
      else
        t.result = "different failure";
    } catch (const Error &) {
      t.result = "does not build"; // half a change need not compile: unresolved
    } catch (const fs::filesystem_error &) {
      t.result = "does not build"; // the tree could not be laid out: unresolved too
    }
    report_.reverts.push_back(t);
    results_[reverted] = t.result;
    return t.result;
  }

  std::set<size_t> complement(const std::set<size_t> &s) const {
    std::set<size_t> out;
    for (size_t u = 0; u < units_.size(); ++u)
      if (!s.count(u))
        out.insert(u);
    return out;
  }

private:
  // Where stdout first differs from the expected output (its length when it is a
  // prefix of it, one past the end when equal).
  size_t firstDifference(const std::string &out) const {
    const std::string &want = report_.expected.stdoutBytes;
    size_t at = 0;
    while (at < out.size() && at < want.size() && out[at] == want[at])
      ++at;
    return out == want ? want.size() + 1 : at;
  }

  bool passes(const RunSummary &r) const {
    return r.stdoutBytes == report_.expected.stdoutBytes &&
           (report_.expected.outcome.empty() || r.outcome == report_.expected.outcome);
  }

  // The files the reverted units touch, as they read with those units reverted.
  std::map<std::string, std::string> patchedFiles(const std::set<size_t> &reverted) const {
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
    tmp += ".tmp." + std::to_string(getpid());
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
  unsigned count_ = 0;
  std::map<std::set<size_t>, std::string> results_;
};

// Delta debugging over the units (Zeller, ESEC/FSE 1999), in revert form: the
// smallest set found whose revert makes the test pass. Reverting every unit is the old
// version (plus neutral edits), which passes.
std::set<size_t> minimalRevert(Trials &trials, size_t unitCount) {
  std::vector<size_t> c(unitCount);
  for (size_t i = 0; i < unitCount; ++i)
    c[i] = i;
  bool confirmed = false; // some trial passed on c (reverting everything is assumed)
  size_t n = 2;
  while (c.size() >= 2 && !trials.exhausted()) {
    size_t chunk = (c.size() + n - 1) / n;
    bool reduced = false;
    for (size_t start = 0; start < c.size() && !reduced && !trials.exhausted(); start += chunk) {
      std::vector<size_t> part(c.begin() + static_cast<long>(start),
                               c.begin() + static_cast<long>(std::min(c.size(), start + chunk)));
      std::vector<size_t> rest;
      for (size_t u : c)
        if (std::find(part.begin(), part.end(), u) == part.end())
          rest.push_back(u);
      for (const auto *candidate : {&part, &rest}) {
        if (candidate->empty() || candidate->size() == c.size() || trials.exhausted())
          continue;
        if (trials.run({candidate->begin(), candidate->end()}, "revert") == "passes") {
          n = candidate == &part ? 2 : std::max<size_t>(n - 1, 2);
          c = *candidate;
          reduced = confirmed = true;
          break;
        }
      }
    }
    if (!reduced) {
      if (n >= c.size())
        break;
      n = std::min(c.size(), n * 2);
    }
  }
  if (!confirmed)
    return {};
  return {c.begin(), c.end()};
}

// The unit holding a candidate's line, if any.
std::optional<size_t> unitOf(const DebugCandidate &c,
                             const std::vector<RevertEvidence::ChangedFile> &files,
                             const std::vector<RevertEvidence::Unit> &units) {
  bool inNew = c.version == "new";
  for (size_t u = 0; u < units.size(); ++u)
    for (auto [f, h] : units[u].hunks) {
      const RevertEvidence::ChangedFile &file = files[f];
      if ((inNew ? file.newPath : file.oldPath) != c.file)
        continue;
      const DiffHunk &hunk = file.diff->changes.hunks[h];
      unsigned start = inNew ? hunk.newStart : hunk.oldStart;
      unsigned count = inNew ? hunk.newLines : hunk.oldLines;
      if (count && c.line >= start && c.line < start + count)
        return u;
    }
  return std::nullopt;
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
  if (hunk.newLines) {
    c.version = "new";
    c.file = files[f].newPath;
    c.line = hunk.newStart;
    c.source = sourceLine((req.newRoot / c.file).string(), c.line);
  } else {
    c.version = "old";
    c.kind = "missing code";
    c.file = files[f].oldPath;
    c.line = hunk.oldStart;
    c.source = sourceLine((req.oldRoot / c.file).string(), c.line);
  }
  c.reasons.push_back("found by reverting hunks of the change, not in the slice");
  return c;
}

} // namespace

RevertEvidence gatherRevertEvidence(const DebugRequest &req,
                                    const std::vector<DebugCandidate> &firstRanking, Diffs &diffs,
                                    const fs::path &work, const Deadline &deadline,
                                    DebugReport &report, Stages &stages) {
  RevertEvidence ev;
  ev.files = changedFiles(req, diffs);
  ev.units = unitsOf(ev.files);
  std::vector<RevertEvidence::Unit> &units = ev.units;
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
  if (units.size() <= 8)
    for (size_t u = 0; u < units.size(); ++u)
      want(u);
  Trials trials(req, ev.files, units, work, deadline, report);
  for (size_t u : order) {
    if (trials.exhausted())
      break;
    stages.update(std::to_string(trials.count()) + " revert trial(s), " +
                  std::to_string(units.size()) + " hunk(s) in the change");
    units[u].alone = trials.run({u}, "revert");
    if (units[u].alone == "passes") {
      ev.fixing.push_back(u);
      if (units.size() > 1 && !trials.exhausted())
        units[u].appliedAlone = trials.run(trials.complement({u}), "apply alone");
    }
  }
  if (ev.fixing.empty() && units.size() > 1 && !trials.exhausted()) {
    ev.minimal = minimalRevert(trials, units.size());
    if (ev.minimal.size() == units.size())
      ev.minimal.clear(); // the whole change: nothing learnt
    for (size_t u : ev.minimal)
      report.minimalRevert.push_back(units[u].label);
  }
  if (deadline.expired())
    stages.cut("the budget ended after " + std::to_string(trials.count()) + " revert trial(s)");
  else
    stages.update(std::to_string(trials.count()) + " revert trial(s)");
  return ev;
}

namespace {

// A unit's trial results as a candidate's `revert` and its sentence.
std::pair<std::string, std::string> revertOf(const RevertEvidence &ev, size_t unit) {
  const RevertEvidence::Unit &u = ev.units[unit];
  if (ev.minimal.count(unit)) {
    std::string set;
    for (size_t m : ev.minimal)
      set += (set.empty() ? "" : ", ") + ev.units[m].label;
    return {"fixes with others", "reverting " + set + " together makes the test pass"};
  }
  static const std::map<std::string, std::pair<std::string, std::string>> byResult = {
      {"passes", {"fixes", " alone makes the test pass"}},
      {"same failure", {"no effect", " alone leaves the failure as it is"}},
      {"later failure",
       {"fixes first difference",
        " alone removes the failure's first difference (the output then differs only later, "
        "where other hunks of the change show)"}},
      {"different failure", {"changes failure", " alone changes the failure but does not fix it"}},
      {"does not build", {"unresolved", " alone does not build"}}};
  auto it = byResult.find(u.alone);
  if (it == byResult.end())
    return {"", ""}; // not tried
  std::string detail = "reverting " + u.label + it->second.second;
  // The converse trial: the old version with this unit alone applied.
  if (u.appliedAlone == "same failure")
    detail += ", and applying it alone to the old version brings the same failure";
  else if (!u.appliedAlone.empty() && u.appliedAlone != "does not build")
    detail += "; applied alone to the old version, the test " +
              std::string(u.appliedAlone == "passes" ? "still passes (other hunks take part)"
                                                     : "fails otherwise (" + u.appliedAlone + ")");
  return {it->second.first, detail};
}

} // namespace

void applyRevertEvidence(const RevertEvidence &ev, std::vector<DebugCandidate> &candidates,
                         const DebugRequest &req) {
  std::set<size_t> covered;
  for (DebugCandidate &c : candidates)
    if (std::optional<size_t> unit = unitOf(c, ev.files, ev.units)) {
      covered.insert(*unit);
      std::tie(c.revert, c.revertDetail) = revertOf(ev, *unit);
    }
  // A unit the trials single out that no candidate stands on becomes one.
  std::vector<size_t> singled = ev.fixing;
  singled.insert(singled.end(), ev.minimal.begin(), ev.minimal.end());
  for (size_t u : singled)
    if (covered.insert(u).second) {
      DebugCandidate c = unitCandidate(ev.units[u], ev.files, req);
      std::tie(c.revert, c.revertDetail) = revertOf(ev, u);
      candidates.push_back(std::move(c));
    }
}

} // namespace rootline::debug
