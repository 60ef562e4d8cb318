// The bisection as JSON (schema rootline.bisect/1, docs/report-schema.md), Markdown and
// a terminal summary.
#include "rootline/bisect.h"

#include <sstream>

namespace rootline {

nlohmann::json bisectJson(const BisectResult &r) {
  using json = nlohmann::json;
  json steps = json::array();
  for (const auto &s : r.steps)
    steps.push_back({{"commit", s.commit.hash},
                     {"short", s.commit.shortHash},
                     {"subject", s.commit.subject},
                     {"verdict", verdictName(s.verdict)},
                     {"reason", s.reason},
                     {"build", buildKind(s)},
                     {"outcome", s.run.outcome},
                     {"seconds", s.seconds}});
  json possible = json::array();
  for (const auto &c : r.possibleFirstBad)
    possible.push_back(commitJson(c));
  return {{"schema", "rootline.bisect/1"},
          {"good", commitJson(r.good)},
          {"bad", commitJson(r.bad)},
          {"range_size", r.rangeSize},
          {"rounds", r.rounds},
          {"parallel", r.parallel},
          {"first_bad", r.firstBad ? commitJson(*r.firstBad) : json(nullptr)},
          {"possible_first_bad", possible},
          {"steps", steps},
          {"stats",
           {{"commits_tested", r.steps.size()},
            {"builds_compiled", r.compiled()},
            {"skipped", r.skipped()},
            {"seconds", r.seconds}}},
          {"debug", r.debug ? reportJson(*r.debug) : json(nullptr)},
          {"debug_error", r.debugError.empty() ? json(nullptr) : json(r.debugError)}};
}

std::string bisectMarkdown(const BisectResult &r) {
  std::ostringstream md;
  md << "## Bisection: " << r.good.shortHash << " (good) → " << r.bad.shortHash << " (bad)\n\n";
  if (r.firstBad)
    md << "**First bad commit:** " << commitLine(*r.firstBad) << "\n\n";
  else {
    md << "**Skipped commits hide the first bad commit.** It is one of:\n\n";
    for (const auto &c : r.possibleFirstBad)
      md << "- " << commitLine(c) << "\n";
    md << "\n";
  }
  md << r.rangeSize << " commit(s) in range; " << r.steps.size() << " tested, " << r.compiled()
     << " compiled, " << r.skipped() << " skipped";
  if (r.parallel > 1)
    md << "; " << r.rounds << " round(s) of up to " << r.parallel << " commits at once";
  md << ".\n\n";
  md << "| # | commit | verdict | why | build |\n|---|---|---|---|---|\n";
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const auto &s = r.steps[i];
    md << "| " << i + 1 << " | `" << s.commit.shortHash << "` " << s.commit.subject << " | "
       << verdictName(s.verdict) << " | " << s.reason << " | "
       << (!s.built        ? "-"
           : s.buildCached ? "cached"
                           : "compiled")
       << " |\n";
  }
  md << "\n";
  if (r.debug)
    md << reportMarkdown(*r.debug);
  else if (!r.debugError.empty())
    md << "> No debug report: " << r.debugError << ".\n";
  return md.str();
}

std::string bisectSummary(const BisectResult &r) {
  std::ostringstream s;
  if (r.firstBad)
    s << "rootline: first bad commit: " << commitLine(*r.firstBad) << "\n";
  else {
    s << "rootline: skipped commits hide the first bad commit; it is one of:\n";
    for (const auto &c : r.possibleFirstBad)
      s << "  " << commitLine(c) << "\n";
  }
  s << "rootline: " << r.steps.size() << " commit(s) tested of " << r.rangeSize << ", "
    << r.compiled() << " compiled, " << r.skipped() << " skipped";
  if (r.parallel > 1)
    s << ", in " << r.rounds << " round(s) of up to " << r.parallel << " at once";
  s << "\n";
  if (r.debug)
    s << reportSummary(*r.debug);
  else if (!r.debugError.empty())
    s << "rootline: no debug report: " << r.debugError << "\n";
  return s.str();
}

} // namespace rootline
