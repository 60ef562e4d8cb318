// The test's other processes (docs/debug.md, "The test's other processes"): an edit
// trial runs the test's failing process alone, and that process passing is all it shows.
// A `make check` runs the program hundreds of times, and most of those runs behave alike
// in both versions: the test saw them pass. An edit that makes the failing process pass
// by changing what one of them does (a condition turned so that another path makes up
// for the fault) repairs nothing. The processes that ran the edited line (the test
// spectrum knows them) are run alone on the trial's build and on the new version's own:
// in a fraction of a second instead of the whole test's tens.
#include "compose/debug_stages.h"

#include <algorithm>
#include <set>

namespace rootline::debug {

namespace {

// How long a process may take on a trial's build, from its run on the new version's: an
// edit that makes it loop is a change; one merely slower on a busy machine is not.
constexpr double kSlowerFactor = 4, kSlowerSlack = 1;
// The most one check takes, its processes' runs on the new and old versions' builds
// included (they are kept for the next check); and the most one of those may take: a
// test's runs are short, and one that does not end within it is not compared.
constexpr double kOthersSeconds = 3, kRunAloneSeconds = 1, kLeastRunSeconds = 0.05;

std::string commandOf(const ProgramInput &in) {
  std::string out = in.argv0.empty() ? "program" : fs::path(in.argv0).filename().string();
  for (const std::string &a : in.args)
    out += " " + a;
  return out;
}

} // namespace

OtherProcesses::OtherProcesses(const DebugRequest &req, const TestSpectrum &spectrum, fs::path work)
    : req_(req), spectrum_(spectrum), work_(std::move(work)) {}

bool OtherProcesses::available() const {
  return req_.newTestProcessInput && req_.newBuilt && spectrum_.usable("new");
}

std::vector<uint32_t> OtherProcesses::runnersOf(
    const std::map<std::tuple<std::string, std::string, unsigned>, std::vector<uint32_t>> &ran,
    const std::vector<std::pair<std::string, unsigned>> &lines) const {
  std::set<uint32_t> all;
  for (const auto &[file, line] : lines)
    if (auto it = ran.find({"new", file, line}); it != ran.end())
      all.insert(it->second.begin(), it->second.end());
  // Evenly over the run, as the spectrum's sample is.
  std::vector<uint32_t> sorted(all.begin(), all.end()), out;
  size_t n = std::min(sorted.size(), kOtherProcessRuns);
  for (size_t i = 0; i < n; ++i)
    out.push_back(sorted[i * sorted.size() / n]);
  return out;
}

std::vector<uint32_t> OtherProcesses::unreplayedAlike() const {
  std::vector<uint32_t> all;
  auto replayed = spectrum_.replayedWhole.find("new");
  for (uint32_t i = 0; i < req_.newTestProcesses.size(); ++i)
    if (req_.newTestProcesses[i].alike &&
        (replayed == spectrum_.replayedWhole.end() || !replayed->second.count(i)))
      all.push_back(i);
  std::vector<uint32_t> out;
  size_t n = std::min(all.size(), kUnreplayedRuns);
  for (size_t i = 0; i < n; ++i)
    out.push_back(all[i * all.size() / n]);
  return out;
}

const OtherProcesses::Known *OtherProcesses::known(uint32_t process, const Deadline &deadline) {
  auto it = known_.find(process);
  if (it != known_.end())
    return &it->second;
  // A run that does not end within its timeout is not compared; one the deadline cut
  // shorter tells nothing, and is not kept.
  double timeout = std::min(req_.timeoutSeconds, kRunAloneSeconds);
  double allowed = deadline.limited() ? std::min(timeout, deadline.remaining() / 3) : timeout;
  if (allowed < kLeastRunSeconds)
    return nullptr;
  Known k;
  k.input = req_.newTestProcessInput(process);
  if (k.input) {
    k.dir = work_ / ("other" + std::to_string(process));
    std::error_code ec;
    fs::remove_all(k.dir, ec);
    k.base = runInputNatively(req_.newBuilt->native, *k.input, k.dir, allowed);
    if (k.base->outcome == "timeout" && allowed < timeout)
      return nullptr;
    // A run alone that does not end says nothing to compare; nor does one that a second
    // run on the same build does not repeat (it prints the time, or an address).
    if (k.base->outcome == "timeout")
      k.base.reset();
    if (k.base) {
      fs::remove_all(k.dir, ec);
      RunSummary again = runInputNatively(req_.newBuilt->native, *k.input, k.dir, allowed);
      if (again.outcome == "timeout" && allowed < timeout)
        return nullptr;
      if (!behaveAlike(again, *k.base, true))
        k.base.reset();
    }
    // A differing process is compared with its run on the old version, when that run
    // alone differs too (a difference the test's surroundings made is not one here).
    if (k.base && !req_.newTestProcesses[process].alike && req_.oldBuilt) {
      fs::remove_all(k.dir, ec);
      k.old = runInputNatively(req_.oldBuilt->native, *k.input, k.dir, allowed);
      if (k.old->outcome == "timeout" && allowed < timeout)
        return nullptr;
      if (k.old->outcome == "timeout" || behaveAlike(*k.old, *k.base, true))
        k.old.reset();
    }
  }
  return &known_.emplace(process, std::move(k)).first->second;
}

std::optional<RunSummary> OtherProcesses::runTrial(const Known &k, const fs::path &exe,
                                                   const Deadline &deadline) {
  double wanted = kSlowerFactor * k.base->seconds + kSlowerSlack;
  if (deadline.limited() && deadline.remaining() < wanted)
    return std::nullopt; // a run the deadline cuts tells nothing
  std::error_code ec;
  fs::remove_all(k.dir, ec); // the same directory: a program that prints it prints the same
  return runInputNatively(exe, *k.input, k.dir, wanted);
}

OthersVerdict OtherProcesses::check(const std::vector<std::pair<std::string, unsigned>> &lines,
                                    const fs::path &exe, const Deadline &stage) {
  // A check must not cost many trials' time (a test of slow processes): it stops where it
  // is, and says how many ran.
  Deadline deadline = stage.atMost(kOthersSeconds);
  OthersVerdict v;
  uint32_t first = 0;
  if (!available())
    return v;
  std::vector<uint32_t> runners = runnersOf(spectrum_.alikeRan, lines);
  size_t replayed = runners.size();
  for (uint32_t p : unreplayedAlike())
    runners.push_back(p);
  for (size_t r = 0; r < runners.size(); ++r) {
    uint32_t p = runners[r];
    if (deadline.expired())
      break;
    const Known *k = known(p, deadline);
    if (!k)
      break; // no time left to run it in full
    if (!k->base)
      continue;
    std::optional<RunSummary> trial = runTrial(*k, exe, deadline);
    if (!trial)
      break;
    ++(r < replayed ? v.run : v.unreplayed);
    if (!behaveAlike(*trial, *k->base, true)) {
      if (!v.changed || p < first) { // the test's first, whatever order they ran in
        v.firstChanged = commandOf(*k->input);
        first = p;
      }
      ++v.changed;
    }
  }
  if (v.changed)
    return v; // no repair: how many it restores does not matter
  for (uint32_t p : runnersOf(spectrum_.differingRan, lines)) {
    if (deadline.expired())
      break;
    const Known *k = known(p, deadline);
    if (!k)
      break;
    if (!k->old)
      continue;
    std::optional<RunSummary> trial = runTrial(*k, exe, deadline);
    if (!trial)
      break;
    ++v.differingRun;
    if (behaveAlike(*trial, *k->old, true))
      ++v.restored;
  }
  return v;
}

} // namespace rootline::debug
