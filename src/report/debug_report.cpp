// Report formats of rootline debug: JSON (schema in docs/report-schema.md), Markdown
// for a bug ticket, and a short terminal summary.
#include "rootline/debug.h"

#include "report/report_text.h"

#include <sstream>

namespace rootline {

using nlohmann::json;

using report::changesText;
using report::inputJson;
using report::oneLine;
using report::runJson;

using report::markdownFence;

json reportJson(const DebugReport &r) {
  json cands = json::array();
  for (const auto &c : r.candidates) {
    json j = {{"rank", c.rank},         {"version", c.version},
              {"kind", c.kind},         {"file", c.file},
              {"line", c.line},         {"function", c.function},
              {"source", c.source},     {"in_changed_region", c.inChangedRegion},
              {"distance", c.distance}, {"reasons", c.reasons}};
    j["other_version_line"] = c.otherLine ? json(*c.otherLine) : json(nullptr);
    if (!c.condition.empty()) {
      j["condition"] = c.condition;
      j["condition_smt"] = c.conditionSmt;
    }
    j["evidence_level"] = c.evidenceLevel();
    // Everything about this line that a user can run and see (docs/report-schema.md).
    json runnable = json::array();
    if (c.ran && c.weakEvidence.empty() && (c.removesFailure || c.changesFailure))
      runnable.push_back("alternative input");
    if (c.revert == "fixes" || c.revert == "fixes with others" ||
        c.revert == "fixes first difference")
      runnable.push_back("revert");
    if (!c.edit.empty())
      runnable.push_back("edit");
    if (!c.unitTest.empty())
      runnable.push_back("unit test");
    if (!c.agreesWhere.empty())
      j["agrees_where"] = c.agreesWhere;
    if (!c.localAlternative.empty())
      runnable.push_back("local alternative");
    j["runnable_evidence"] = runnable;
    if (!c.revert.empty()) {
      j["revert"] = {{"result", c.revert},
                     {"detail", c.revertDetail},
                     {"unit", c.revertUnit},
                     {"lines", c.revertLines}};
      if (!c.narrowedRevert.empty())
        j["revert"]["narrowed"] = c.narrowedRevert;
    }
    j["edit"] = c.edit.empty() ? json(nullptr) : json(c.edit);
    if (!c.processOnlyEdit.empty())
      j["process_only_edit"] = c.processOnlyEdit;
    if (!c.newWarning.empty())
      j["new_warning"] = c.newWarning;
    if (!c.aligned.empty())
      j["aligned"] = {
          {"result", c.aligned}, {"detail", c.alignedDetail}, {"origin", c.alignedOrigin}};
    if (!c.memoryError.empty())
      j["memory_error"] = c.memoryError;
    if (!c.memoryCheck.empty())
      j["memory_check"] = c.memoryCheck;
    if (c.sharedOutputs >= 0)
      j["shared_outputs"] = {{"holding", c.sharedOutputs}, {"of", c.sharedOutputsOf}};
    if (c.testSpectrumKnown)
      j["test_spectrum"] = {{"differing", c.testSpectrum.failing},
                            {"differing_of", c.testSpectrumOf.failing},
                            {"alike", c.testSpectrum.alike},
                            {"alike_of", c.testSpectrumOf.alike},
                            {"differing_among", c.testSpectrumAmong.failing},
                            {"alike_among", c.testSpectrumAmong.alike}};
    j["unit_test"] = c.unitTest.empty() ? json(nullptr) : json(c.unitTest);
    j["local_alternative"] = c.localAlternative.empty() ? json(nullptr) : json(c.localAlternative);
    if (c.hasAlternative) {
      j["alternative_input"] = inputJson(c.alternative);
      j["alternative_changes"] = c.alternativeChanges;
      if (!c.demonstrates.empty())
        j["demonstrates"] = c.demonstrates;
    }
    if (!c.valueEvidence.empty()) {
      j["value_evidence"] = json::array();
      for (const auto &e : c.valueEvidence)
        j["value_evidence"].push_back(report::valueEvidenceJson(e));
    }
    if (c.ran)
      j["evidence"] = {{"old", runJson(c.oldRun)},
                       {"new", runJson(c.newRun)},
                       {"removes_failure", c.removesFailure},
                       {"changes_failure", c.changesFailure},
                       {"weak", c.weakEvidence.empty() ? json(nullptr) : json(c.weakEvidence)},
                       {"misses_criterion",
                        c.missesCriterion.empty() ? json(nullptr) : json(c.missesCriterion)}};
    cands.push_back(j);
  }
  json memory = json::array();
  for (const auto &e : r.memoryErrors)
    memory.push_back(
        {{"kind", e.kind},
         {"file", e.file},
         {"line", e.line},
         {"access", e.write ? "write" : "read"},
         {"size", e.accessSize},
         {"offset", e.offset},
         {"object", e.object},
         {"object_size", e.objectSize},
         {"object_file", e.objectFile},
         {"object_line", e.objectLine},
         {"freed_at", e.freedAt},
         {"reaches_failure", e.reachesFailure},
         {"cause", e.causeLine
                       ? json{{"file", e.causeFile}, {"line", e.causeLine}, {"why", e.cause}}
                       : json(nullptr)},
         {"confirmed", e.confirmed},
         {"text", e.text}});
  json stages = json::array();
  for (const auto &st : r.stages)
    stages.push_back(
        {{"name", st.name}, {"seconds", st.seconds}, {"complete", st.complete}, {"note", st.note}});
  json neutral = json::array();
  for (const auto &n : r.neutralEdits)
    neutral.push_back({{"file", n.file},
                       {"old_start", n.oldStart},
                       {"old_lines", n.oldLines},
                       {"new_start", n.newStart},
                       {"new_lines", n.newLines},
                       {"why", n.why}});
  json reverts = json::array();
  for (const auto &t : r.reverts) {
    reverts.push_back(
        {{"what", t.what}, {"hunks", t.hunks}, {"result", t.result}, {"run", runJson(t.run)}});
    if (!t.error.empty())
      reverts.back()["error"] = t.error;
    if (!t.wholeTest.empty())
      reverts.back()["whole_test"] = t.wholeTest;
    if (const OthersVerdict &v = t.others; v.alike() || v.differingRun) {
      json &o = reverts.back()["other_processes"];
      o = {{"run", v.run}, {"unreplayed", v.unreplayed}, {"changed", v.changed}};
      if (v.changed)
        o["first_changed"] = v.firstChanged;
      if (v.differingRun) {
        o["differing_run"] = v.differingRun;
        o["restored"] = v.restored;
      }
    }
  }
  json sameValues = json::array();
  for (const auto &l : r.sameValueLines)
    sameValues.push_back({{"file", l.file}, {"line", l.line}, {"why", l.why}});
  json unitTest = nullptr;
  if (r.unitTest)
    unitTest = {{"function", r.unitTest->function},    {"occurrence", r.unitTest->occurrence},
                {"version", r.unitTest->version},      {"call", r.unitTest->call},
                {"old_result", r.unitTest->oldResult}, {"new_result", r.unitTest->newResult},
                {"passes_old", r.unitTest->passesOld}, {"fails_new", r.unitTest->failsNew},
                {"file", r.unitTest->fileName},        {"summary", r.unitTest->summary}};
  json local = nullptr;
  if (const auto &lc = r.localComposition) {
    json inputs = json::array(), alternatives = json::array();
    for (const auto &[name, value] : lc->inputs)
      inputs.push_back({{"name", name}, {"value", value}});
    for (const auto &a : lc->alternatives)
      alternatives.push_back({{"file", a.file},
                              {"line", a.line},
                              {"changes", a.changes},
                              {"stdin", a.stdinText},
                              {"old_result", a.oldResult},
                              {"new_result", a.newResult},
                              {"versions_agree", a.agree},
                              {"text", a.text}});
    local = {{"function", lc->function},
             {"occurrence", lc->occurrence},
             {"version", lc->version},
             {"call", lc->call},
             {"inputs", inputs},
             {"stdin", lc->stdinText},
             {"old_result", lc->oldResult},
             {"new_result", lc->newResult},
             {"direction", lc->direction},
             {"decided", lc->decided},
             {"old_constraints", lc->oldConstraints},
             {"new_constraints", lc->newConstraints},
             {"alternatives", alternatives},
             {"harness", lc->harnessFile},
             {"summary", lc->summary}};
  }
  json divergence = nullptr;
  if (r.firstDivergence)
    divergence = {
        {"version", r.firstDivergence->version},     {"file", r.firstDivergence->file},
        {"line", r.firstDivergence->line},           {"iteration", r.firstDivergence->iteration},
        {"execution", r.firstDivergence->execution}, {"text", r.firstDivergence->text}};
  json commits = nullptr;
  if (r.oldCommit && r.newCommit)
    commits = {{"repository", r.repository.string()},
               {"old", commitJson(*r.oldCommit)},
               {"new", commitJson(*r.newCommit)}};
  return {{"schema", "rootline.debug/1"},
          {"versions", {{"old", r.oldLabel}, {"new", r.newLabel}}},
          {"commits", commits},
          {"test", {{"input", inputJson(r.input)}, {"expected", runJson(r.expected)}}},
          {"failure",
           {{"summary", r.failure},
            {"kind", r.failureKind},
            {"hang_loop", r.hangLoop.empty() ? json(nullptr) : json(r.hangLoop)},
            {"run_timeout_seconds", r.runTimeoutSeconds},
            {"old", runJson(r.oldRun)},
            {"new", runJson(r.newRun)},
            {"old_criterion", r.oldCriterion},
            {"new_criterion", r.newCriterion}}},
          {"composition",
           {{"condition", r.condition},
            {"old_constraints", r.oldConstraints},
            {"new_constraints", r.newConstraints},
            {"direction", r.direction}}},
          {"candidates", cands},
          {"alignment",
           {{"complete", r.aligned},
            {"first_divergence", divergence},
            {"slice_executions", r.sliceExecutions},
            {"dual_slice_executions", r.dualSliceExecutions},
            {"same_values", sameValues}}},
          {"memory_errors", memory},
          {"unit_test", unitTest},
          {"local_darwin", local},
          {"neutral_edits", neutral},
          {"revert_trials", reverts},
          {"minimal_revert", r.minimalRevert},
          {"minimal_revert_one_minimal", r.minimalRevertOneMinimal},
          {"stats",
           {{"solver_calls", r.solverCalls},
            {"formula_nodes", r.formulaNodes},
            {"solver_seconds", r.solverSeconds},
            {"seconds", r.totalSeconds},
            {"budget_seconds", r.budgetSeconds}}},
          {"stages", stages},
          {"notes", r.notes}};
}

// How much of a long report the Markdown keeps, so it fits a ticket.
constexpr unsigned kMarkdownDetailed = 5; // candidates shown in full
constexpr size_t kMarkdownListed = 12;    // rows of a list (neutral edits, revert trials)

namespace {

constexpr size_t kMarkdownStateLines = 8; // a unit test's differing state lines per side
constexpr size_t kMarkdownStateWidth = 160;

// What a differential unit test's call returns and leaves: the lines where the versions
// differ, each cut to a ticket's width, then the whole state of both folded (a carved
// interpreter call leaves dozens of objects of hundreds of bytes).
void markdownUnitResults(std::ostringstream &md, const std::string &oldResult,
                         const std::string &newResult) {
  report::DifferingLines d = report::differingLines(oldResult, newResult);
  auto side = [&](const char *name, const std::vector<std::string> &lines) {
    md << name << ":\n";
    std::string text;
    for (size_t i = 0; i < lines.size() && i < kMarkdownStateLines; ++i)
      text += oneLine(lines[i], kMarkdownStateWidth) + "\n";
    if (lines.size() > kMarkdownStateLines)
      text += "… and " + std::to_string(lines.size() - kMarkdownStateLines) +
              " more line(s) that differ (below)\n";
    md << markdownFence(text.empty() ? "(nothing that differs)" : text);
  };
  md << "What the call returns and leaves where the versions differ"
     << (d.alike ? " (" + std::to_string(d.alike) + " line(s) alike are left out)" : "")
     << (d.unpaired ? " (" + std::to_string(d.unpaired) +
                          " line(s) of state face a version that left none)"
                    : "")
     << ".\n\n";
  side("old version", d.old);
  side("new version", d.now);
  md << "\n<details><summary>Everything the call returns and leaves, in both versions"
     << "</summary>\n\nold version:\n"
     << markdownFence(oldResult) << "new version:\n"
     << markdownFence(newResult) << "\n</details>\n\n";
}

} // namespace

std::string reportMarkdown(const DebugReport &r) {
  std::ostringstream md;
  md << "## Regression: " << r.oldLabel << " → " << r.newLabel << "\n\n";
  if (r.oldCommit && r.newCommit)
    md << "- good: " << commitLine(*r.oldCommit) << "\n- bad: " << commitLine(*r.newCommit)
       << "\n\n";
  md << "**Failure** (" << r.failureKind << "). " << r.failure << ".\n\n";
  if (!r.hangLoop.empty())
    md << "**Hang.** " << r.hangLoop << ".\n\n";
  md << "Input (stdin):\n" << markdownFence(r.input.stdinBytes);
  if (!r.input.args.empty()) {
    md << "Arguments:";
    for (const auto &a : r.input.args)
      md << " `" << a << "`";
    md << "\n\n";
  }
  // A test command's failing process is judged on stderr too: show it.
  md << (r.stderrCounts ? "| | outcome | stdout | stderr |\n|---|---|---|---|\n"
                        : "| | outcome | stdout |\n|---|---|---|\n");
  auto errCell = [&](const RunSummary &run) {
    return r.stderrCounts ? " `" + oneLine(run.stderrBytes) + "` |" : std::string();
  };
  md << "| expected | " << (r.expected.outcome.empty() ? "-" : r.expected.outcome) << " | `"
     << oneLine(r.expected.stdoutBytes) << "` |" << errCell(r.expected) << "\n";
  md << "| " << r.newLabel << " | " << r.newRun.outcome << " | `" << oneLine(r.newRun.stdoutBytes)
     << "` |" << errCell(r.newRun) << "\n\n";
  md << "Criterion: in the new version " << r.newCriterion << "; in the old version "
     << r.oldCriterion << ".\n";
  md << "Composition over "
     << (r.condition == "rsc" ? "relevant slice conditions" : "path conditions") << " ("
     << r.oldConstraints << " constraints old, " << r.newConstraints << " new): " << r.direction
     << ".\n\n";
  if (r.firstDivergence)
    md << "**First divergence** of the aligned runs on the slice: " << r.firstDivergence->text
       << ".\n\n";
  for (const auto &e : r.memoryErrors) {
    md << "**Memory error** ("
       << (e.reachesFailure ? "reaches the failure" : "elsewhere in the run") << "): " << e.text;
    if (e.causeLine)
      md << "; made possible by `" << e.causeFile << ":" << e.causeLine << "` (" << e.cause << ")";
    if (!e.confirmed.empty())
      md << ". " << e.confirmed;
    md << ".\n\n";
  }
  if (r.candidates.empty())
    md << "No candidate root cause was found.\n\n";
  // A ticket gets the first candidates in full and a line for each of the rest; long
  // lists are cut (the JSON and HTML reports have everything).
  for (const auto &c : r.candidates) {
    if (c.rank > kMarkdownDetailed) {
      if (c.rank == kMarkdownDetailed + 1)
        md << "Other candidates:\n";
      md << "- " << c.rank << ". `" << c.file << ":" << c.line << "` (" << c.version << ", "
         << c.kind << ")\n";
      if (&c == &r.candidates.back())
        md << "\n";
      continue;
    }
    md << "### " << c.rank << ". `" << c.file << ":" << c.line << "` (" << c.version << " version, "
       << c.kind << ", in `" << c.function << "`)\n\n";
    md << markdownFence(c.source);
    if (!c.condition.empty())
      md << "Condition on the failing run: `" << c.condition << "`\n\n";
    if (!c.edit.empty())
      md << "**Edit:** " << c.edit << ".\n\n";
    if (!c.revertDetail.empty())
      md << "**Revert:** " << c.revertDetail << ".\n\n";
    if (!c.memoryError.empty())
      md << "**Memory error:** " << c.memoryError << ".\n\n";
    if (!c.alignedDetail.empty())
      md << "**Aligned runs:** " << c.alignedDetail << ".\n\n";
    if (!c.unitTest.empty())
      md << "**Unit test:** " << c.unitTest << ".\n\n";
    if (!c.localAlternative.empty())
      md << "**Local alternative:** " << c.localAlternative << ".\n\n";
    if (c.hasAlternative) {
      md << "Alternative input"
         << (c.ran ? "" : " (found by the solver; the budget left no time to run it)") << ": "
         << changesText(c.alternativeChanges) << "\n\n";
      if (!c.demonstrates.empty())
        md << "It shows: " << c.demonstrates << ".\n\n";
      md << "<details><summary>the whole alternative input</summary>\n\n"
         << markdownFence(c.alternative.stdinBytes) << "</details>\n\n";
    }
    if (c.ran) {
      md << "- old: " << c.oldRun.outcome << ", stdout `" << oneLine(c.oldRun.stdoutBytes) << "`\n";
      md << "- new: " << c.newRun.outcome << ", stdout `" << oneLine(c.newRun.stdoutBytes) << "`\n";
      if (!c.weakEvidence.empty())
        md << "- **weak evidence:** " << c.weakEvidence << "\n";
      md << "\n";
    }
    if (!c.valueEvidence.empty()) {
      md << "**Value evidence** (inputs of the failing input's partition):\n";
      for (const auto &e : c.valueEvidence)
        md << "- " << report::valueEvidenceText(e) << "\n";
      md << "\n";
    }
    md << "Why ranked here: ";
    for (size_t i = 0; i < c.reasons.size(); ++i)
      md << (i ? "; " : "") << c.reasons[i];
    md << ".\n\n";
  }
  if (!r.minimalRevert.empty()) {
    // With --test the trials run the failing process alone (stderrCounts).
    std::string passes = r.stderrCounts ? "makes the failing process behave as in the old version"
                                        : "makes the test pass";
    md << (r.minimalRevertOneMinimal ? "Smallest set of hunks whose revert " + passes + ":"
                                     : "A set of hunks whose revert " + passes +
                                           " (the budget ended before it was reduced further):");
    for (const auto &h : r.minimalRevert)
      md << " `" << h << "`";
    md << ".\n\n";
  }
  if (!r.neutralEdits.empty()) {
    md << "### Neutral edits (not ranked)\n\n";
    size_t shown = 0;
    for (const auto &n : r.neutralEdits) {
      if (++shown > kMarkdownListed) {
        md << "- and " << r.neutralEdits.size() - kMarkdownListed << " more\n";
        break;
      }
      md << "- `" << n.file;
      if (n.newLines)
        md << ":" << n.newStart
           << (n.newLines > 1 ? "-" + std::to_string(n.newStart + n.newLines - 1) : "");
      else if (n.oldLines)
        md << "` (old lines " << n.oldStart << "-" << n.oldStart + n.oldLines - 1 << ")";
      md << (n.newLines || !n.oldLines ? "`" : "") << ": " << n.why << "\n";
    }
    md << "\n";
  }
  if (!r.sameValueLines.empty()) {
    md << "### Changed lines that compute the same values (behaviour-neutral for this failure)\n\n";
    for (const auto &l : r.sameValueLines)
      md << "- `" << l.file << ":" << l.line << "`: " << l.why << "\n";
    md << "\n";
  }
  if (r.unitTest) {
    md << "### Differential unit test\n\n`" << r.unitTest->fileName << "` calls `"
       << r.unitTest->call << "` (call " << r.unitTest->occurrence << " of `"
       << r.unitTest->function << "` in the failing run of the " << r.unitTest->version
       << " version) with the state that call began with. Built against each version "
       << "and run: it passes on the old version and fails on the new one.\n\n";
    markdownUnitResults(md, r.unitTest->oldResult, r.unitTest->newResult);
  }
  if (const auto &lc = r.localComposition) {
    md << "### Local Darwin\n\n`" << lc->harnessFile << "` makes call " << lc->occurrence << " of `"
       << lc->function << "` (`" << lc->call << "`, in the failing run of the " << lc->version
       << " version) again with these values read from its input:";
    for (const auto &[name, value] : lc->inputs)
      md << " `" << name << "` = " << value << ";";
    md << " both versions' relevant slice conditions over them were composed: " << lc->direction
       << ".\n\n";
    for (const auto &a : lc->alternatives)
      md << "- `" << a.file << ":" << a.line << "`: " << a.text << "\n";
    md << (lc->alternatives.empty() ? "No alternative ran on both versions.\n\n" : "\n");
  }
  if (!r.reverts.empty()) {
    md << "### Revert trials\n\n| trial | hunks | result |\n|---|---|---|\n";
    size_t shown = 0;
    for (const auto &t : r.reverts) {
      if (++shown > kMarkdownListed) {
        md << "| and " << r.reverts.size() - kMarkdownListed << " more | | |\n";
        break;
      }
      std::string hunks;
      for (const auto &h : t.hunks)
        hunks += (hunks.empty() ? "" : ", ") + h;
      md << "| " << t.what << " | " << hunks << " | " << t.result
         << (t.others.alike() ? "; " + std::to_string(t.others.changed) + " of " +
                                    std::to_string(t.others.alike()) + " alike process(es) changed"
                              : "")
         << (t.wholeTest.empty() ? "" : "; the whole test " + t.wholeTest) << " |\n";
    }
    md << "\n";
  }
  for (size_t i = 0; i < r.notes.size(); ++i) {
    if (i == kMarkdownListed) {
      md << "> And " << r.notes.size() - i << " more notes (report.json has them).\n";
      break;
    }
    md << "> Note: " << r.notes[i] << ".\n";
  }
  md << "\n_rootline: " << r.solverCalls << " solver calls, " << r.totalSeconds << " s._\n";
  return md.str();
}

nlohmann::json commitJson(const CommitInfo &c) {
  return {{"hash", c.hash}, {"short", c.shortHash}, {"author", c.author},  {"email", c.email},
          {"date", c.date}, {"subject", c.subject}, {"parents", c.parents}};
}

std::string commitLine(const CommitInfo &c) {
  return c.shortHash + " " + c.subject + " (" + c.author + ", " + c.date + ")";
}

std::string reportSummary(const DebugReport &r) {
  std::ostringstream s;
  if (r.oldCommit && r.newCommit)
    s << "rootline: good " << commitLine(*r.oldCommit) << "\nrootline: bad  "
      << commitLine(*r.newCommit) << "\n";
  s << "rootline: " << r.failure << "\n";
  if (!r.hangLoop.empty())
    s << "rootline: " << r.hangLoop << "\n";
  s << "rootline: " << r.direction << " (" << r.condition << ": " << r.oldConstraints << " old / "
    << r.newConstraints << " new constraints)\n";
  if (r.firstDivergence)
    s << "rootline: first divergence: " << r.firstDivergence->text << "\n";
  for (const auto &e : r.memoryErrors)
    // What the replay's checker saw is a claim only with the sanitizer build's word on it.
    s << "rootline: memory error: " << e.text << " ("
      << (e.confirmed.empty() ? std::string("not checked by a sanitizer build") : e.confirmed)
      << ")\n";
  for (const auto &c : r.candidates) {
    s << "  " << c.rank << ". " << c.file << ":" << c.line << " [" << c.version << ", " << c.kind
      << "] " << c.source << "\n";
    if (c.ran)
      s << "     alternative input (" << oneLine(changesText(c.alternativeChanges), 60) << "): old "
        << c.oldRun.outcome << " `" << oneLine(c.oldRun.stdoutBytes, 30) << "`, new "
        << c.newRun.outcome << " `" << oneLine(c.newRun.stdoutBytes, 30) << "`"
        << (!c.weakEvidence.empty() ? " (weak: " + c.weakEvidence + ")"
            : c.removesFailure      ? (c.agreesWhere.empty() ? " (versions agree)"
                                                             : " (versions agree where the test failed)")
                                    : "")
        << "\n";
    if (!c.revertDetail.empty())
      s << "     " << c.revertDetail << "\n";
    if (!c.localAlternative.empty())
      s << "     " << c.localAlternative << "\n";
    for (const auto &e : c.valueEvidence)
      s << "     " << report::valueEvidenceText(e, 30) << "\n";
  }
  if (r.candidates.empty())
    s << "  no candidate found\n";
  for (const auto &l : r.sameValueLines)
    s << "rootline: " << l.file << ":" << l.line << " changed but " << l.why << "\n";
  if (!r.neutralEdits.empty())
    s << "rootline: " << r.neutralEdits.size()
      << " neutral edit(s) not ranked (layout, comments, renames); see the report\n";
  for (const auto &st : r.stages)
    if (!st.complete)
      s << "rootline: budget: " << st.name << " stopped early: " << st.note << "\n";
  return s.str();
}

} // namespace rootline
