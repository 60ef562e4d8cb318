#include "report/report_text.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace rootline::report {

nlohmann::json runJson(const RunSummary &r) {
  nlohmann::json j = {{"outcome", r.outcome}, {"stdout", r.stdoutBytes}};
  if (!r.stderrBytes.empty())
    j["stderr"] = r.stderrBytes;
  return j;
}

nlohmann::json inputJson(const ProgramInput &in) {
  nlohmann::json j = {{"stdin", in.stdinBytes}, {"args", in.args}};
  if (!in.files.empty())
    j["files"] = in.files;
  if (!in.argv0.empty())
    j["argv0"] = in.argv0;
  if (!in.env.empty())
    j["env"] = in.env;
  if (!in.outputFile.empty())
    j["output_file"] = in.outputFile;
  return j;
}

std::string oneLine(std::string s, size_t max) {
  for (auto &c : s)
    if (c == '\n')
      c = ' ';
  if (s.size() > max)
    s = s.substr(0, max) + "...";
  return s;
}

std::string changesText(const std::vector<std::string> &changes) {
  if (changes.empty())
    return "the failing input itself";
  // A ticket needs the first few; the JSON has them all.
  constexpr size_t kShown = 8;
  std::string out;
  for (size_t i = 0; i < changes.size() && i < kShown; ++i)
    out += (out.empty() ? "" : "; ") + changes[i];
  if (changes.size() > kShown)
    out += "; and " + std::to_string(changes.size() - kShown) + " more";
  return out;
}

std::string valueEvidenceText(const ValueEvidence &e, size_t outputWidth) {
  auto shown = [&](const std::string &out) {
    std::string t = oneLine(out, outputWidth);
    while (!t.empty() && t.back() == ' ')
      t.pop_back();
    return t;
  };
  std::string values = e.sameValue
                           ? "both versions compute " + e.what + " = " + e.newValue
                           : "old computes " + e.what + " = " + e.oldValue + ", new " + e.newValue;
  std::string text = changesText(e.changes) + ": " + values + " here";
  if (e.ran)
    text += "; old prints `" + shown(e.oldRun.stdoutBytes) + "` (" + e.oldRun.outcome + "), new `" +
            shown(e.newRun.stdoutBytes) + "` (" + e.newRun.outcome +
            "): " + (e.outputsAgree ? "alike" : "different");
  return text;
}

nlohmann::json valueEvidenceJson(const ValueEvidence &e) {
  nlohmann::json j = {{"same_value", e.sameValue},     {"value", e.what},
                      {"old_value", e.oldValue},       {"new_value", e.newValue},
                      {"input", inputJson(e.input)},   {"changes", e.changes},
                      {"demonstrates", e.demonstrates}};
  if (e.ran)
    j["runs"] = {
        {"old", runJson(e.oldRun)}, {"new", runJson(e.newRun)}, {"outputs_agree", e.outputsAgree}};
  return j;
}

std::string markdownFence(const std::string &text) {
  std::string t = text;
  if (t.empty() || t.back() != '\n')
    t += '\n';
  return "```\n" + t + "```\n";
}

namespace {

// A line's label: its first word when a ": " ends it ("o12: …"), else its place ("#3").
std::string lineLabel(const std::string &line, size_t place) {
  size_t colon = line.find(": ");
  if (colon != std::string::npos && colon > 0 && line.find(' ') == colon + 1)
    return line.substr(0, colon);
  return "#" + std::to_string(place);
}

std::map<std::string, std::string> labelledLines(const std::string &text,
                                                 std::vector<std::string> &order) {
  std::map<std::string, std::string> lines;
  std::istringstream in(text);
  std::string line;
  for (size_t place = 0; std::getline(in, line); ++place) {
    std::string label = lineLabel(line, place);
    if (lines.emplace(label, line).second)
      order.push_back(label);
  }
  return lines;
}

} // namespace

DifferingLines differingLines(const std::string &oldText, const std::string &newText) {
  std::vector<std::string> oldOrder, newOrder;
  std::map<std::string, std::string> o = labelledLines(oldText, oldOrder),
                                     n = labelledLines(newText, newOrder);
  auto leftState = [](const std::vector<std::string> &order) {
    return std::any_of(order.begin(), order.end(), [](const auto &l) { return l[0] != '#'; });
  };
  bool oldState = leftState(oldOrder), newState = leftState(newOrder);
  DifferingLines d;
  for (const auto &label : oldOrder) {
    auto other = n.find(label);
    if (other != n.end() && other->second == o[label])
      ++d.alike;
    else if (other == n.end() && label[0] != '#' && !newState)
      ++d.unpaired;
    else
      d.old.push_back(o[label]);
  }
  for (const auto &label : newOrder) {
    auto other = o.find(label);
    if (other != o.end() && other->second == n[label])
      continue;
    if (other == o.end() && label[0] != '#' && !oldState)
      ++d.unpaired;
    else
      d.now.push_back(n[label]);
  }
  return d;
}

std::string htmlEscape(const std::string &s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

} // namespace rootline::report
