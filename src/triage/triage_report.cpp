// The triage report: JSON (docs/report-schema.md "Triage"), Markdown with one section
// per group (one ticket each), SARIF with one result per group, HTML and a summary.
#include "report/report_text.h"
#include "rootline/json_text.h"
#include "rootline/triage.h"

#include <algorithm>
#include <cstdio>

#include <sstream>

namespace rootline {

using nlohmann::json;

namespace {

std::string causeText(const json &cause) {
  if (cause.is_null())
    return "no root-cause line found";
  return cause.value("file", "") + ":" + std::to_string(cause.value("line", 0u)) + " (" +
         cause.value("version", "") + " version" +
         (cause.value("function", "").empty() ? "" : ", in " + cause.value("function", "")) + ")";
}

std::string listText(const std::vector<std::string> &items, size_t max) {
  std::string s;
  for (size_t i = 0; i < items.size() && i < max; ++i)
    s += (i ? ", " : "") + items[i];
  if (items.size() > max)
    s += " and " + std::to_string(items.size() - max) + " more";
  return s;
}

std::string evidenceLine(const json &e) {
  std::string s;
  if (e.contains("runnable_evidence") && !e["runnable_evidence"].empty()) {
    s = "run-able evidence: ";
    for (size_t i = 0; i < e["runnable_evidence"].size(); ++i)
      s += (i ? ", " : "") + e["runnable_evidence"][i].get<std::string>();
  } else {
    s = "evidence: " + e.value("evidence_level", std::string("none"));
  }
  return s;
}

std::vector<std::string> jsonStrings(const json &a) {
  std::vector<std::string> v;
  if (a.is_array())
    for (const auto &x : a)
      if (x.is_string())
        v.push_back(x.get<std::string>());
  return v;
}

} // namespace

json triageJson(const TriageReport &r) {
  json groups = json::array();
  for (const auto &g : r.groups)
    groups.push_back({{"cause", g.cause},
                      {"shared_by", g.sharedBy.empty() ? json(nullptr) : json(g.sharedBy)},
                      {"tests", g.tests},
                      {"representative", g.representative},
                      {"evidence", g.evidence},
                      {"files", g.files}});
  return {{"schema", "rootline.triage/1"},
          {"versions", {{"old", r.oldLabel}, {"new", r.newLabel}}},
          {"tests", r.tests},
          {"groups", groups},
          {"passing", r.passing},
          {"failed_units", r.failedUnits}};
}

std::string triageSummary(const TriageReport &r) {
  std::ostringstream s;
  size_t failing = 0;
  for (const auto &g : r.groups)
    failing += g.tests.size();
  s << "rootline: " << r.tests << " test(s): " << failing << " failing in " << r.groups.size()
    << " group(s), " << r.passing.size() << " passing, " << r.failedUnits.size()
    << " unit(s) without an answer\n";
  for (size_t i = 0; i < r.groups.size(); ++i) {
    const auto &g = r.groups[i];
    s << "  " << i + 1 << ". " << causeText(g.cause) << ": " << g.tests.size() << " test(s) ("
      << listText(g.tests, 6) << ")\n";
    if (!g.cause.is_null())
      s << "     " << report::oneLine(g.cause.value("source", ""), 70) << "\n";
    s << "     " << evidenceLine(g.evidence) << "\n";
  }
  if (!r.passing.empty())
    s << "rootline: passing on the new version: " << listText(r.passing, 10) << "\n";
  for (const auto &f : r.failedUnits)
    s << "rootline: unit " << f.value("unit", 0u) << " (" << f.value("test", "")
      << ") has no answer: " << f.value("why", "") << "\n";
  return s.str();
}

std::string triageMarkdown(const TriageReport &r) {
  std::ostringstream md;
  size_t failing = 0;
  for (const auto &g : r.groups)
    failing += g.tests.size();
  md << "# Triage: " << r.oldLabel << " → " << r.newLabel << "\n\n"
     << r.tests << " test(s): " << failing << " failing in " << r.groups.size() << " group(s), "
     << r.passing.size() << " passing, " << r.failedUnits.size() << " without an answer.\n\n";
  for (size_t i = 0; i < r.groups.size(); ++i) {
    const auto &g = r.groups[i];
    const json &e = g.evidence;
    md << "## " << i + 1 << ". " << causeText(g.cause) << "\n\n";
    if (!g.cause.is_null())
      md << report::markdownFence(g.cause.value("source", ""));
    md << "- failing tests (" << g.tests.size() << "): " << listText(g.tests, 50) << "\n";
    if (!g.sharedBy.empty())
      md << "- grouped by: the same " << g.sharedBy << "\n";
    md << "- evidence (from " << g.representative << "): " << evidenceLine(e) << "\n";
    md << "- failure: " << e.value("failure", "") << "\n";
    if (e.contains("first_divergence") && e["first_divergence"].is_string())
      md << "- first divergence: " << e["first_divergence"].get<std::string>() << "\n";
    for (const auto &reason : jsonStrings(e.value("reasons", json::array())))
      md << "- " << reason << "\n";
    // The candidate's reasons already say what its revert and unit test showed.
    if (e.contains("local_alternative") && e["local_alternative"].is_string())
      md << "- local Darwin: " << e["local_alternative"].get<std::string>() << "\n";
    if (!g.files.empty())
      md << "- files: " << listText(g.files, 20) << "\n";
    md << "\n";
  }
  if (!r.passing.empty())
    md << "## Passing on the new version\n\n" << listText(r.passing, 1000) << "\n\n";
  if (!r.failedUnits.empty()) {
    md << "## Units without an answer\n\n";
    for (const auto &f : r.failedUnits)
      md << "- unit " << f.value("unit", 0u) << " (" << f.value("test", "")
         << "): " << f.value("why", "") << "\n";
  }
  return md.str();
}

json triageSarif(const TriageReport &r) {
  json results = json::array();
  for (const auto &g : r.groups) {
    if (g.cause.is_null())
      continue;
    results.push_back(
        {{"ruleId", "regression-root-cause"},
         {"level", "error"},
         {"message",
          {{"text", "Root cause of " + std::to_string(g.tests.size()) + " failing test(s): " +
                        listText(g.tests, 20) + ". " + evidenceLine(g.evidence) + "."}}},
         {"locations",
          json::array(
              {{{"physicalLocation",
                 {{"artifactLocation",
                   {{"uri", g.cause.value("file", "")},
                    {"uriBaseId", g.cause.value("version", "") == "old" ? "OLD" : "NEW"}}},
                  {"region", {{"startLine", std::max(1u, g.cause.value("line", 1u))}}}}}}})},
         {"properties", {{"tests", g.tests}, {"evidence", g.evidence}}}});
  }
  json rules = json::array(
      {{{"id", "regression-root-cause"},
        {"name", "regression-root-cause"},
        {"shortDescription", {{"text", "The root cause a group of failing tests shares"}}},
        {"helpUri", "https://example.invalid/rootline/docs/triage.md"}}});
  json run = {{"tool", report::sarifTool(rules)},
              {"originalUriBaseIds",
               {{"OLD", {{"description", {{"text", "The old version: " + r.oldLabel}}}}},
                {"NEW", {{"description", {{"text", "The new version: " + r.newLabel}}}}}}},
              {"results", results}};
  return report::sarifDocument(run);
}

std::string triageHtml(const TriageReport &r) {
  using report::htmlEscape;
  std::ostringstream h;
  h << "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>rootline triage</title>"
    << "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
    << "pre{background:#f4f4f4;padding:.5em}</style></head><body>\n"
    << "<h1>Triage: " << htmlEscape(r.oldLabel) << " → " << htmlEscape(r.newLabel) << "</h1>\n"
    << "<pre>" << htmlEscape(triageSummary(r)) << "</pre>\n";
  for (size_t i = 0; i < r.groups.size(); ++i) {
    const auto &g = r.groups[i];
    h << "<h2>" << i + 1 << ". " << htmlEscape(causeText(g.cause)) << "</h2>\n";
    if (!g.cause.is_null())
      h << "<pre>" << htmlEscape(g.cause.value("source", "")) << "</pre>\n";
    h << "<p>Failing tests: " << htmlEscape(listText(g.tests, 1000)) << "</p>\n"
      << "<p>Evidence (from " << htmlEscape(g.representative)
      << "): " << htmlEscape(evidenceLine(g.evidence)) << "</p>\n<ul>\n";
    for (const auto &reason : jsonStrings(g.evidence.value("reasons", json::array())))
      h << "<li>" << htmlEscape(reason) << "</li>\n";
    h << "</ul>\n";
  }
  h << "</body></html>\n";
  return h.str();
}

std::vector<std::pair<std::string, std::string>> triageReportFiles(const WorkPlan &plan,
                                                                   TriageReport &report) {
  std::vector<std::pair<std::string, std::string>> files;
  for (size_t i = 0; i < report.groups.size(); ++i) {
    TriageGroup &g = report.groups[i];
    char id[32];
    std::snprintf(id, sizeof id, "%04zu", g.representativeUnit);
    fs::path from = plan.dir / "reports" / id;
    std::string to = "group-" + std::to_string(i + 1);
    std::error_code ec;
    if (!fs::is_directory(from, ec))
      continue;
    for (const auto &e : fs::recursive_directory_iterator(from, ec)) {
      if (!e.is_regular_file())
        continue;
      std::string rel = fs::relative(e.path(), from).string();
      if (rel == "report.sarif" || rel == "report.html")
        continue; // the group's SARIF result and HTML section stand for them
      files.emplace_back(to + "/" + rel, readFile(e.path()));
      g.files.push_back(to + "/" + rel);
    }
    std::sort(g.files.begin(), g.files.end());
  }
  std::sort(files.begin(), files.end());
  files.insert(files.begin(), {{"report.json", jsonText(triageJson(report))},
                               {"report.md", triageMarkdown(report)},
                               {"report.sarif", jsonText(triageSarif(report))},
                               {"report.html", triageHtml(report)}});
  return files;
}

} // namespace rootline
