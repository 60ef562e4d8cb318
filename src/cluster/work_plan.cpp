// Plans on disk and the running of one unit (docs/cluster.md "Plan directory").
#include "rootline/cluster.h"
#include "rootline/error.h"
#include "rootline/json_text.h"
#include "rootline/process.h"

#include <csignal>
#include <cstdio>
#include <unistd.h>

namespace rootline {

using nlohmann::json;

namespace {

constexpr const char *kPlanSchema = "rootline.plan/1";
constexpr const char *kResultSchema = "rootline.unit-result/1";

std::string unitFileName(size_t unit) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04zu.json", unit);
  return buf;
}

std::string hostName() {
  char host[65] = {};
  if (gethostname(host, sizeof host - 1) != 0)
    return "";
  return host;
}

// The last "rootline: error: ..." line of a command's stderr.
std::string errorLine(const std::string &err) {
  const std::string mark = "rootline: error: ";
  size_t at = err.rfind(mark);
  if (at == std::string::npos)
    return "";
  size_t end = err.find('\n', at);
  return err.substr(at + mark.size(),
                    end == std::string::npos ? std::string::npos : end - at - mark.size());
}

json unitJson(const WorkUnit &u) {
  json j = {{"name", u.name}, {"args", u.args}, {"timeout_seconds", u.timeoutSeconds}};
  if (!u.workDir.empty())
    j["cwd"] = u.workDir.string();
  return j;
}

} // namespace

fs::path roundDir(const WorkPlan &plan) {
  return plan.dir / ("round-" + std::to_string(plan.round));
}

fs::path unitResultPath(const WorkPlan &plan, size_t unit) {
  return roundDir(plan) / "results" / unitFileName(unit);
}

void writePlan(const WorkPlan &plan) {
  if (!plan.dir.is_absolute())
    throw Error("the plan directory '" + plan.dir.string() + "' must be an absolute path");
  std::error_code ec;
  if (fs::exists(plan.dir, ec) && !fs::is_directory(plan.dir, ec))
    throw Error("--plan '" + plan.dir.string() + "' is not a directory");
  if (fs::exists(plan.dir, ec) && !fs::is_empty(plan.dir, ec) &&
      !fs::exists(plan.dir / "plan.json", ec))
    throw Error("--plan '" + plan.dir.string() +
                "' is not empty and holds no rootline plan; choose a new directory");
  fs::path round = roundDir(plan);
  fs::remove_all(round, ec); // a round written again starts without old results
  fs::create_directories(round / "units");
  fs::create_directories(round / "results");
  for (size_t i = 0; i < plan.units.size(); ++i)
    writeFileAtomic(round / "units" / unitFileName(i), jsonText(unitJson(plan.units[i])));
  writeFileAtomic(plan.dir / "plan.json", jsonText({{"schema", kPlanSchema},
                                                    {"command", plan.command},
                                                    {"round", plan.round},
                                                    {"units", plan.units.size()},
                                                    {"state", plan.state}}));
}

WorkPlan readPlan(const fs::path &dir, std::optional<unsigned> round) {
  fs::path abs = fs::absolute(dir);
  fs::path file = abs / "plan.json";
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw Error("--plan '" + dir.string() + "' holds no plan.json");
  json j;
  try {
    j = json::parse(readFile(file));
  } catch (const json::exception &e) {
    throw Error("--plan '" + dir.string() + "': plan.json is not valid JSON: " + e.what());
  }
  if (j.value("schema", "") != kPlanSchema)
    throw Error("--plan '" + dir.string() + "': plan.json is not a " + kPlanSchema + " plan");
  WorkPlan plan;
  plan.dir = abs;
  plan.command = j.value("command", "");
  plan.round = round.value_or(j.value("round", 1u));
  plan.state = j.value("state", json::object());
  fs::path units = roundDir(plan) / "units";
  if (!fs::is_directory(units, ec))
    throw Error("--plan '" + dir.string() + "' has no round " + std::to_string(plan.round));
  size_t count = plan.round == j.value("round", 1u) ? j.value("units", size_t{0}) : 0;
  if (count == 0) // an earlier round: count its unit files
    for (const auto &e : fs::directory_iterator(units))
      count += e.path().extension() == ".json";
  for (size_t i = 0; i < count; ++i) {
    json u;
    try {
      u = json::parse(readFile(units / unitFileName(i)));
    } catch (const json::exception &e) {
      throw Error("--plan '" + dir.string() + "': unit " + std::to_string(i) +
                  " is not valid JSON: " + e.what());
    }
    plan.units.push_back({u.value("name", ""), u.value("args", std::vector<std::string>{}),
                          u.value("timeout_seconds", 0.0), fs::path(u.value("cwd", ""))});
  }
  return plan;
}

json unitResultJson(const UnitResult &r) {
  return {{"schema", kResultSchema}, {"unit", r.unit},       {"name", r.name},
          {"exit_code", r.exitCode}, {"outcome", r.outcome}, {"output", r.output},
          {"error", r.error},        {"seconds", r.seconds}, {"host", r.host}};
}

UnitResult runWorkUnit(const WorkPlan &plan, size_t unit, const fs::path &self) {
  if (unit >= plan.units.size())
    throw Error("--unit " + std::to_string(unit) + " is out of range: the plan's round " +
                std::to_string(plan.round) + " has " + std::to_string(plan.units.size()) +
                " unit(s)");
  const WorkUnit &u = plan.units[unit];
  ProcessSpec spec;
  spec.argv = {self.string()};
  spec.argv.insert(spec.argv.end(), u.args.begin(), u.args.end());
  spec.timeoutSeconds = u.timeoutSeconds;
  spec.workDir = u.workDir.string();
  spec.termGraceSeconds = 5;
  spec.noAddressRandomization = false; // rootline sets it for the programs it runs
  ProcessResult p = runProcess(spec);
  // Killed from outside (a lost node, the OOM killer, scancel): no result, so the engine
  // runs the unit again. A crash of its own is a result: running it again gives the same.
  if (!p.timedOut && (p.signal == SIGKILL || p.signal == SIGTERM))
    throw Error("unit " + std::to_string(unit) + " was killed (" + p.outcome() + ")",
                ExitCannotTest);
  UnitResult r;
  r.unit = unit;
  r.name = u.name;
  r.exitCode = p.timedOut || p.signal ? -1 : p.exitCode;
  r.outcome = p.outcome();
  r.error = errorLine(p.err);
  r.seconds = p.seconds;
  r.host = hostName();
  try {
    r.output = p.out.empty() ? json(nullptr) : json::parse(p.out);
  } catch (const json::exception &) {
    r.output = nullptr;
    if (r.error.empty())
      r.error = "the unit printed no JSON answer";
  }
  writeFileAtomic(unitResultPath(plan, unit), jsonText(unitResultJson(r)));
  return r;
}

std::optional<UnitResult> readUnitResult(const WorkPlan &plan, size_t unit) {
  fs::path file = unitResultPath(plan, unit);
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    return std::nullopt;
  try {
    json j = json::parse(readFile(file));
    if (j.value("schema", "") != kResultSchema)
      return std::nullopt;
    UnitResult r;
    r.unit = j.value("unit", unit);
    r.name = j.value("name", "");
    r.exitCode = j.value("exit_code", -1);
    r.outcome = j.value("outcome", "");
    r.output = j.value("output", json(nullptr));
    r.error = j.value("error", "");
    r.seconds = j.value("seconds", 0.0);
    r.host = j.value("host", "");
    return r;
  } catch (const std::exception &) {
    return std::nullopt; // unreadable counts as missing: the unit runs again
  }
}

std::vector<size_t> missingUnits(const WorkPlan &plan) {
  std::vector<size_t> missing;
  for (size_t i = 0; i < plan.units.size(); ++i)
    if (!readUnitResult(plan, i))
      missing.push_back(i);
  return missing;
}

fs::path selfExecutable() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw Error("cannot find the rootline executable (/proc/self/exe): " + ec.message());
  return p;
}

} // namespace rootline
