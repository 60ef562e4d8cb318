// SARIF 2.1.0: each candidate a result at its location, so code-scanning viewers can
// show rootline's findings on the source.
#include "report/report_text.h"
#include "rootline/debug.h"

namespace rootline {

using nlohmann::json;

json reportSarif(const DebugReport &r) {
  json rules = json::array();
  for (const char *kind : {"branch deviation", "missing code", "changed computation",
                           "changed code", "memory error"}) {
    std::string id = kind;
    for (auto &c : id)
      if (c == ' ')
        c = '-';
    rules.push_back(
        {{"id", id},
         {"name", id},
         {"shortDescription", {{"text", std::string("Regression root cause: ") + kind}}},
         {"helpUri", "https://example.invalid/rootline/docs/debug.md"}});
  }
  json results = json::array();
  for (const auto &c : r.candidates) {
    std::string rule = c.kind;
    for (auto &ch : rule)
      if (ch == ' ')
        ch = '-';
    std::string text = "Rank " + std::to_string(c.rank) + ": " + c.kind + " in the " + c.version +
                       " version (" + r.oldLabel + " -> " + r.newLabel + ").";
    if (c.ran)
      text += " Alternative input (" + report::changesText(c.alternativeChanges) + "): old " +
              c.oldRun.outcome + ", new " + c.newRun.outcome +
              (!c.weakEvidence.empty() ? "; weak evidence: " + c.weakEvidence + "."
               : c.removesFailure      ? "; both versions agree."
                                       : ".");
    if (!c.edit.empty())
      text += " Edit: " + c.edit + ".";
    if (!c.revertDetail.empty())
      text += " Revert: " + c.revertDetail + ".";
    if (!c.alignedDetail.empty())
      text += " Aligned runs: " + c.alignedDetail + ".";
    if (!c.memoryError.empty())
      text += " Memory error: " + c.memoryError + ".";
    if (!c.localAlternative.empty())
      text += " Local Darwin: " + c.localAlternative + ".";
    for (const auto &e : c.valueEvidence)
      text += " Value evidence: " + report::valueEvidenceText(e) + ".";
    json props = {{"rank", c.rank},
                  {"version", c.version},
                  {"reasons", c.reasons},
                  {"evidenceLevel", c.evidenceLevel()}};
    if (!c.revert.empty())
      props["revert"] = c.revert;
    if (!c.edit.empty())
      props["edit"] = c.edit;
    if (!c.aligned.empty())
      props["aligned"] = c.aligned;
    if (!c.memoryError.empty())
      props["memoryError"] = c.memoryError;
    if (!c.valueEvidence.empty()) {
      props["valueEvidence"] = json::array();
      for (const auto &e : c.valueEvidence)
        props["valueEvidence"].push_back(report::valueEvidenceJson(e));
    }
    if (c.hasAlternative) {
      props["alternativeStdin"] = c.alternative.stdinBytes;
      props["alternativeChanges"] = c.alternativeChanges;
      props["removesFailure"] = c.removesFailure;
      if (!c.weakEvidence.empty())
        props["weakEvidence"] = c.weakEvidence;
      if (!c.missesCriterion.empty())
        props["missesCriterion"] = c.missesCriterion;
    }
    results.push_back(
        {{"ruleId", rule},
         {"level", c.rank == 1 ? "error" : "warning"},
         {"message", {{"text", text}}},
         {"rank", std::max(0.0, 100.0 - 10.0 * (c.rank - 1))},
         {"locations",
          json::array({{{"physicalLocation",
                         {{"artifactLocation",
                           {{"uri", c.file}, {"uriBaseId", c.version == "old" ? "OLD" : "NEW"}}},
                          {"region", {{"startLine", std::max(1u, c.line)}}}}}}})},
         {"properties", props}});
  }
  // Between commits: each version's commit, with its metadata in the property bag.
  json provenance = json::array();
  if (r.oldCommit && r.newCommit)
    for (const auto &[commit, base] :
         {std::pair{&*r.oldCommit, "OLD"}, std::pair{&*r.newCommit, "NEW"}})
      provenance.push_back({{"repositoryUri", "file://" + r.repository.string()},
                            {"revisionId", commit->hash},
                            {"mappedTo", {{"uriBaseId", base}}},
                            {"properties",
                             {{"author", commit->author},
                              {"email", commit->email},
                              {"date", commit->date},
                              {"subject", commit->subject}}}});
  json run = {{"tool", report::sarifTool(rules)},
              {"originalUriBaseIds",
               {{"OLD", {{"description", {{"text", "The old version: " + r.oldLabel}}}}},
                {"NEW", {{"description", {{"text", "The new version: " + r.newLabel}}}}}}},
              {"results", results}};
  if (!provenance.empty())
    run["versionControlProvenance"] = provenance;
  return report::sarifDocument(run);
}

namespace report {

json sarifTool(const json &rules) {
  return {{"driver",
           {{"name", "rootline"},
            {"version", ROOTLINE_VERSION},
            {"informationUri", "https://example.invalid/rootline"},
            {"rules", rules}}}};
}

json sarifDocument(const json &run) {
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", json::array({run})}};
}

} // namespace report

} // namespace rootline
