// The validation in every report format: JSON (rootline.validate/1, docs/report-schema.md),
// Markdown, SARIF 2.1.0 (one result per disagreement) and HTML; and a terminal summary.
#include "rootline/validate.h"

#include "report/report_text.h"

#include <sstream>

namespace rootline {

namespace {

using json = nlohmann::json;
using report::inputJson;
using report::oneLine;
using report::runJson;

json valuesJson(const Disagreement &d) {
  json values = json::array();
  auto text = [](const std::optional<std::string> &t) { return t ? json(*t) : json(nullptr); };
  for (const auto &v : d.values)
    values.push_back({{"line", v.place.line + 1},
                      {"value", v.place.value ? json(*v.place.value + 1) : json(nullptr)},
                      {"name", v.name.empty() ? json(nullptr) : json(v.name)},
                      {"good", text(v.good)},
                      {"bad", text(v.bad)},
                      {"fix", text(v.fix)},
                      {"class", v.verdict},
                      {"text", v.text()}});
  return values;
}

json disagreementJson(const Disagreement &d) {
  return {{"how", d.how},
          {"values", valuesJson(d)},
          {"class", d.verdict},
          {"inside_failure_partition", d.insideFailure},
          {"input", inputJson(d.input)},
          {"changes", d.changes},
          {"good", runJson(d.good)},
          {"bad", runJson(d.bad)},
          {"fix", runJson(d.fix)},
          {"confirmed", d.confirmed}};
}

// "still failing", "new behaviour" reject; "kept change" is listed.
bool counts(const Disagreement &d) { return d.verdict != "kept change"; }

std::vector<std::pair<std::string, const CommitInfo *>> commitsOf(const ValidateReport &r) {
  std::vector<std::pair<std::string, const CommitInfo *>> out;
  if (r.goodCommit)
    out.push_back({"good", &*r.goodCommit});
  if (r.badCommit)
    out.push_back({"bad", &*r.badCommit});
  if (r.fixCommit)
    out.push_back({"fix", &*r.fixCommit});
  return out;
}

} // namespace

std::string ValueVerdict::text() const {
  std::string like = verdict == "restored"        ? ", like good"
                     : verdict == "kept change"   ? ", like bad"
                     : verdict == "still failing" ? ", like bad"
                                                  : "";
  auto shown = [](const std::optional<std::string> &t) {
    return t ? "`" + *t + "`" : std::string("nothing");
  };
  return placeText(place) + (name.empty() ? "" : " (`" + name + "`)") + ": " + verdict + like +
         " (good " + shown(good) + ", bad " + shown(bad) + ", fix " + shown(fix) + ")";
}

json validateJson(const ValidateReport &r) {
  json commits = nullptr;
  if (!commitsOf(r).empty()) {
    commits = {{"repository", r.repository.string()}};
    for (const auto &[name, c] : commitsOf(r))
      commits[name] = commitJson(*c);
  }
  json dis = json::array();
  for (const auto &d : r.disagreements)
    dis.push_back(disagreementJson(d));
  json reverted = json::array();
  for (const auto &d : r.reverted)
    reverted.push_back(disagreementJson(d));
  return {
      {"schema", "rootline.validate/1"},
      {"versions", {{"good", r.goodLabel}, {"bad", r.badLabel}, {"fix", r.fixLabel}}},
      {"commits", commits},
      {"test",
       {{"input", inputJson(r.input)},
        {"expected", runJson(r.expected)},
        {"good", runJson(r.goodRun)},
        {"bad", runJson(r.badRun)},
        {"fix", runJson(r.fixRun)},
        {"passes_on_fix", r.testPasses},
        {"failing_values",
         [&] {
           json places = json::array();
           for (const auto &p : r.failingValues) {
             auto name = r.failingNames.find(placeText(p));
             places.push_back(
                 {{"line", p.line + 1},
                  {"value", p.value ? json(*p.value + 1) : json(nullptr)},
                  {"name", name == r.failingNames.end() ? json(nullptr) : json(name->second)}});
           }
           return places;
         }()}}},
      {"proof",
       {{"result", r.proof},
        {"good_constraints", r.goodConstraints},
        {"fix_constraints", r.fixConstraints},
        {"outputs_compared", r.outputsCompared},
        {"counterexample",
         r.counterexample ? disagreementJson(*r.counterexample) : json(nullptr)}}},
      {"neighbours",
       {{"tried", r.neighboursTried}, {"disagreements", dis}, {"reverted", reverted}}},
      {"accepted", r.accepted},
      {"verdict", r.verdict},
      {"warnings", r.warnings},
      {"scope",
       {{"proved", r.scope.proved}, {"sampled", r.scope.sampled}, {"skipped", r.scope.skipped}}},
      {"notes", r.notes},
      {"stats", {{"solver_calls", r.solverCalls}, {"seconds", r.seconds}}}};
}

std::string validateMarkdown(const ValidateReport &r) {
  std::ostringstream md;
  md << "## Fix validation: " << r.fixLabel << " (good " << r.goodLabel << ", bad " << r.badLabel
     << ")\n\n";
  for (const auto &[name, c] : commitsOf(r))
    md << "- " << name << ": " << commitLine(*c) << "\n";
  md << "\n**" << (r.accepted ? "Accepted" : "Not accepted") << ".** " << r.verdict << ".\n\n";
  md << "| check | result |\n|---|---|\n";
  md << "| failing test on the fix | " << (r.testPasses ? "passes" : "fails") << " (`"
     << oneLine(r.fixRun.stdoutBytes) << "`, " << r.fixRun.outcome << ") |\n";
  md << "| proof f ∧ f_fix ⇒ out = out_fix | " << r.proof << " (" << r.goodConstraints << " + "
     << r.fixConstraints << " constraints, " << r.outputsCompared << " output values) |\n";
  md << "| neighbouring inputs run on good, bad and fix | " << r.neighboursTried << ", "
     << r.disagreements.size() << " where the fix and the good version differ |\n\n";
  for (const auto &w : r.warnings)
    md << "> **Warning:** the fix " << w << ".\n\n";
  md << "**Scope.**";
  for (const auto &p : r.scope.proved)
    md << " Proved: " << p << ".";
  if (!r.scope.sampled.empty())
    md << " Sampled (one input each, run natively): " << r.scope.sampled.size() << " partition(s).";
  for (const auto &k : r.scope.skipped)
    md << " Not covered: " << k << ".";
  md << "\n\n";
  for (const auto &d : r.disagreements) {
    md << "### Disagreement (" << d.verdict << (counts(d) ? "" : ", not counted") << "): " << d.how
       << "\n\nInput: " << report::changesText(d.changes) << "\n"
       << report::markdownFence(d.input.stdinBytes);
    md << "- good: " << d.good.outcome << ", stdout `" << oneLine(d.good.stdoutBytes) << "`\n";
    md << "- bad: " << d.bad.outcome << ", stdout `" << oneLine(d.bad.stdoutBytes) << "`\n";
    md << "- fix: " << d.fix.outcome << ", stdout `" << oneLine(d.fix.stdoutBytes) << "`\n\n";
    for (const auto &v : d.values)
      md << "- " << v.text() << "\n";
    md << (d.values.empty() ? "" : "\n");
  }
  for (const auto &n : r.notes)
    md << "> Note: " << n << ".\n";
  md << "\n_rootline: " << r.solverCalls << " solver calls, " << r.seconds << " s._\n";
  return md.str();
}

json validateSarif(const ValidateReport &r) {
  json results = json::array();
  auto result = [&](const std::string &rule, const std::string &text, json props) {
    results.push_back({{"ruleId", rule},
                       {"level", "error"},
                       {"message", {{"text", text}}},
                       {"properties", std::move(props)}});
  };
  if (!r.testPasses)
    result("test-still-fails",
           "The failing test still fails on the fix (" + r.fixRun.outcome + ").",
           {{"stdout", r.fixRun.stdoutBytes}});
  for (const auto &d : r.disagreements)
    result("fix-disagrees",
           "The fix and the good version disagree (" + d.verdict + ") on an input that " + d.how +
               ": good " + d.good.outcome + ", bad " + d.bad.outcome + ", fix " + d.fix.outcome +
               ".",
           {{"stdin", d.input.stdinBytes},
            {"args", d.input.args},
            {"class", d.verdict},
            {"values", valuesJson(d)},
            {"goodStdout", d.good.stdoutBytes},
            {"badStdout", d.bad.stdoutBytes},
            {"fixStdout", d.fix.stdoutBytes}});
  json rules =
      json::array({{{"id", "test-still-fails"},
                    {"shortDescription", {{"text", "The failing test fails on the fix"}}}},
                   {{"id", "fix-disagrees"},
                    {"shortDescription", {{"text", "The fix and the good version disagree"}}}}});
  json run = {
      {"tool", report::sarifTool(rules)},
      {"results", results},
      {"properties", {{"accepted", r.accepted}, {"verdict", r.verdict}, {"proof", r.proof}}}};
  json provenance = json::array();
  for (const auto &[name, c] : commitsOf(r))
    provenance.push_back(
        {{"repositoryUri", "file://" + r.repository.string()},
         {"revisionId", c->hash},
         {"properties",
          {{"role", name}, {"author", c->author}, {"date", c->date}, {"subject", c->subject}}}});
  if (!provenance.empty())
    run["versionControlProvenance"] = provenance;
  return report::sarifDocument(run);
}

std::string validateHtml(const ValidateReport &r) {
  std::ostringstream h;
  h << "<!doctype html><html><head><meta charset=utf-8><title>rootline validate: "
    << report::htmlEscape(r.fixLabel) << "</title><style>body{font-family:sans-serif;margin:1em}"
    << "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:"
       "left;vertical-align:top}.ok{color:#070}.no{color:#a00}</style></head><body>";
  h << "<h1>Fix validation: " << report::htmlEscape(r.fixLabel) << "</h1>";
  for (const auto &[name, c] : commitsOf(r))
    h << "<div><b>" << name << ":</b> <code>" << report::htmlEscape(commitLine(*c))
      << "</code></div>";
  h << "<p class=" << (r.accepted ? "ok" : "no") << "><b>"
    << (r.accepted ? "Accepted" : "Not accepted") << ".</b> " << report::htmlEscape(r.verdict)
    << ".</p>";
  h << "<table><tr><th>check</th><th>result</th></tr><tr><td>failing test on the fix</td><td>"
    << (r.testPasses ? "passes" : "fails") << "</td></tr><tr><td>proof</td><td>"
    << report::htmlEscape(r.proof) << "</td></tr><tr><td>neighbouring inputs</td><td>"
    << r.neighboursTried << " tried, " << r.disagreements.size() << " disagree</td></tr></table>";
  for (const auto &w : r.warnings)
    h << "<p><b>Warning:</b> the fix " << report::htmlEscape(w) << ".</p>";
  if (!r.disagreements.empty()) {
    h << "<h2>Disagreements</h2><table><tr><th>class</th><th>how</th><th>input</th><th>good</"
         "th><th>bad</th><th>fix</th></tr>";
    for (const auto &d : r.disagreements)
      h << "<tr><td>" << report::htmlEscape(d.verdict) << (counts(d) ? "" : " (not counted)")
        << "</td><td>" << report::htmlEscape(d.how) << "</td><td>"
        << report::htmlEscape(report::changesText(d.changes))
        << "<details><summary>whole input</summary><pre>" << report::htmlEscape(d.input.stdinBytes)
        << "</pre></details></td><td><pre>" << report::htmlEscape(d.good.stdoutBytes)
        << "</pre></td><td><pre>" << report::htmlEscape(d.bad.stdoutBytes) << "</pre></td><td><pre>"
        << report::htmlEscape(d.fix.stdoutBytes) << "</pre>";
    h << "</td></tr>";
    h << "</table>";
    h << "<h2>Values</h2><ul>";
    for (const auto &d : r.disagreements)
      for (const auto &v : d.values)
        h << "<li>" << report::htmlEscape(report::changesText(d.changes)) << ": "
          << report::htmlEscape(v.text()) << "</li>";
    h << "</ul>";
  }
  h << "</body></html>\n";
  return h.str();
}

std::string validateSummary(const ValidateReport &r) {
  std::ostringstream s;
  s << "rootline: " << r.verdict << "\n";
  s << "rootline: failing test on the fix: " << (r.testPasses ? "passes" : "fails")
    << "; proof: " << r.proof << "; " << r.neighboursTried << " neighbouring input(s), "
    << r.disagreements.size() << " disagreement(s)\n";
  for (const auto &w : r.warnings)
    s << "rootline: warning: the fix " << w << "\n";
  for (const auto &k : r.scope.skipped)
    s << "rootline: not covered: " << k << "\n";
  for (const auto &d : r.disagreements) {
    s << "  " << d.verdict << (counts(d) ? "" : " (not counted)") << ", " << d.how << ": "
      << report::changesText(d.changes) << " (stdin `" << oneLine(d.input.stdinBytes, 40)
      << "`): good `" << oneLine(d.good.stdoutBytes, 30) << "`, bad `"
      << oneLine(d.bad.stdoutBytes, 30) << "`, fix `" << oneLine(d.fix.stdoutBytes, 30) << "`\n";
    for (const auto &v : d.values)
      s << "    " << v.text() << "\n";
  }
  for (const auto &n : r.notes)
    s << "rootline: " << n << "\n";
  return s.str();
}

} // namespace rootline
