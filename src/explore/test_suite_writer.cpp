// The output directory of `rootline explore`: one directory per test, and a summary.
#include "rootline/error.h"
#include "rootline/explore.h"
#include "rootline/json_text.h"

#include <llvm/IR/Function.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

namespace rootline {

using nlohmann::json;

namespace {

std::string testName(unsigned id) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "test-%04u", id);
  return buf;
}

json testJson(const GeneratedTest &t) {
  json branches = json::array();
  for (const auto &b : t.symbolicBranches)
    branches.push_back(
        {{"file", b.file}, {"line", b.line}, {"function", b.function}, {"successor", b.successor}});
  json outputs = json::array();
  for (const auto &o : t.symbolicOutputs)
    outputs.push_back({{"fd", o.fd},
                       {"offset", o.offset},
                       {"length", o.length},
                       {"argument", o.arg},
                       {"value", o.value},
                       {"value_smt", o.valueSmt}});
  return {{"id", t.id},
          {"parent", t.parent},
          {"stdin", "stdin"},
          {"args", t.input.args},
          {"outcome", t.outcome},
          {"expected_stdout", "expected.stdout"},
          {"symbolic_branches", branches},
          {"branch_count", t.branches.size()},
          {"path_condition_smt2", t.pathConditionSmt2},
          {"symbolic_outputs", outputs},
          {"diverged", t.diverged},
          {"path_key", t.pathKey},
          {"partition_key", t.partitionKey},
          {"relevant_slice_condition", t.rsc},
          {"symbolic_output", t.symbolicOutput}};
}

json bugJson(const FoundBug &b) {
  return {{"kind", b.kind},
          {"file", b.file},
          {"line", b.line},
          {"function", b.function},
          {"confirmed", b.confirmed},
          {"evidence", b.evidence},
          {"stdin", b.input.stdinBytes},
          {"args", b.input.args}};
}

std::string percent(size_t a, size_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%",
                b ? 100.0 * static_cast<double>(a) / static_cast<double>(b) : 0.0);
  return buf;
}

} // namespace

json summaryJson(const ExploreResult &r) {
  const ExploreStats &s = r.stats;
  json bugs = json::array();
  for (const auto &b : r.bugs)
    bugs.push_back(bugJson(b));
  nlohmann::json functions = nlohmann::json::object();
  for (const auto &[name, c] : s.functions)
    functions[name] = {{"lines", {{"covered", c.linesCovered}, {"total", c.linesTotal}}},
                       {"branches", {{"covered", c.branchesCovered}, {"total", c.branchesTotal}}}};
  return {{"runs", s.runs},
          {"distinct_paths", s.distinctPaths},
          {"duplicate_paths", s.duplicatePaths},
          {"divergences", s.divergences},
          {"partitions", s.partitions},
          {"tests", r.tests.size()},
          {"lines", {{"covered", s.linesCovered}, {"total", s.linesTotal}}},
          {"branches", {{"covered", s.branchesCovered}, {"total", s.branchesTotal}}},
          {"functions", functions},
          {"bugs", bugs},
          {"solver",
           {{"calls", s.solverCalls},
            {"unsat", s.solverUnsat},
            {"unknown", s.solverUnknown},
            {"seconds", s.solverSeconds},
            {"formula_bytes", s.formulaBytes}}},
          {"seconds", s.totalSeconds},
          {"concretizations", s.concretizations},
          {"concretized_calls", s.concretizedCalls},
          {"notes", r.notes}};
}

std::string summaryMarkdown(const ExploreResult &r, const std::string &programName) {
  const ExploreStats &s = r.stats;
  std::ostringstream md;
  md << "# rootline explore: " << programName << "\n\n";
  md << "| runs | distinct paths | divergences | line coverage | branch coverage | bugs | solver "
        "time |\n";
  md << "|---|---|---|---|---|---|---|\n";
  md << "| " << s.runs << " | " << s.distinctPaths << " | " << s.divergences << " | "
     << s.linesCovered << "/" << s.linesTotal << " (" << percent(s.linesCovered, s.linesTotal)
     << ") | " << s.branchesCovered << "/" << s.branchesTotal << " ("
     << percent(s.branchesCovered, s.branchesTotal) << ") | " << r.bugs.size() << " | "
     << s.solverSeconds << " s of " << s.totalSeconds << " s |\n\n";
  if (!s.functions.empty()) {
    md << "| function | branch coverage | line coverage |\n|---|---|---|\n";
    for (const auto &[name, c] : s.functions)
      md << "| `" << name << "` | " << c.branchesCovered << "/" << c.branchesTotal << " | "
         << c.linesCovered << "/" << c.linesTotal << " |\n";
    md << "\n";
  }
  if (!r.bugs.empty()) {
    md << "## Bugs\n\n| kind | where | confirmed | input |\n|---|---|---|---|\n";
    for (const auto &b : r.bugs) {
      std::string in = b.input.stdinBytes;
      for (auto &ch : in)
        if (ch == '\n')
          ch = ' ';
      md << "| " << b.kind << " | " << b.file << ":" << b.line << " (" << b.function << ") | "
         << (b.confirmed ? "yes: " : "no: ") << b.evidence << " | `" << in << "` |\n";
    }
    md << "\n";
  }
  for (const auto &n : r.notes)
    md << "- " << n << "\n";
  if (!r.notes.empty())
    md << "\n";
  if (!s.concretizedCalls.empty()) {
    md << "Symbolic values were made concrete at calls to:";
    for (const auto &c : s.concretizedCalls)
      md << " `" << c << "`";
    md << ". Paths that depend on their results may be missed.\n\n";
  }
  md << "## Tests\n\n| test | outcome | stdout |\n|---|---|---|\n";
  for (const auto &t : r.tests) {
    std::string out = t.stdoutBytes.substr(0, 60);
    for (auto &ch : out)
      if (ch == '\n')
        ch = ' ';
    md << "| " << testName(t.id) << " | " << t.outcome << " | `" << out << "` |\n";
  }
  return md.str();
}

void writeTestSuite(const ExploreResult &result, const fs::path &dir,
                    const std::string &programName) {
  // Never overwrite something that is not ours: the directory must be new, empty, or
  // an earlier rootline explore output (it has the marker file).
  if (fs::exists(dir)) {
    if (!fs::is_directory(dir))
      throw Error("--out '" + dir.string() + "' exists and is not a directory");
    bool empty = fs::is_empty(dir);
    if (!empty && !fs::exists(dir / ".rootline-explore"))
      throw Error("--out '" + dir.string() +
                  "' is not empty and was not written by rootline explore; "
                  "choose a new directory");
    if (!empty)
      for (const auto &e : fs::directory_iterator(dir))
        if (e.path().filename().string().rfind("test-", 0) == 0)
          fs::remove_all(e.path());
  }
  fs::create_directories(dir);
  writeFileAtomic(dir / ".rootline-explore", "written by rootline explore; safe to delete\n");
  for (const auto &t : result.tests) {
    fs::path td = dir / testName(t.id);
    fs::create_directories(td);
    writeFileAtomic(td / "stdin", t.input.stdinBytes);
    writeFileAtomic(td / "expected.stdout", t.stdoutBytes);
    writeFileAtomic(td / "expected.outcome", t.outcome + "\n");
    writeFileAtomic(td / "test.json", jsonText(testJson(t)));
  }
  writeFileAtomic(dir / "summary.json", jsonText(summaryJson(result)));
  writeFileAtomic(dir / "summary.md", summaryMarkdown(result, programName));
}

} // namespace rootline
