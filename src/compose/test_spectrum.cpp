// The test spectrum (docs/debug.md, "Test spectrum"): which of the test's processes of
// the debugged program ran each line, those that behave alike in both runs apart from
// those that do not. A test that runs its program many times (`make check`) says which
// changed lines only its differing processes run: spectrum-based localisation (Ochiai)
// over the processes of one test run instead of over a suite's tests.
#include "compose/debug_stages.h"

#include "rootline/error.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace rootline::debug {

namespace {

// Marks every instruction that ran.
class Coverage : public ReplayObserver {
public:
  explicit Coverage(size_t instructions) : ran_(instructions, 0) {}
  void onInstance(const Instance &i) override {
    if (i.id < ran_.size())
      ran_[i.id] = 1;
  }
  const std::vector<uint8_t> &ran() const { return ran_; }

private:
  std::vector<uint8_t> ran_;
};

// The source line of each instruction, named once: (file, line) keys by instruction id.
class LineNames {
public:
  explicit LineNames(const Version &v) : v_(v), key_(v.index->instructionCount(), kUnknown) {}
  // The line's key, or kNone for an instruction without a location.
  int32_t keyOf(uint32_t id) {
    if (key_[id] != kUnknown)
      return key_[id];
    SourceLocation loc = ModuleIndex::locationOf(v_.index->instruction(id));
    if (!loc.valid())
      return key_[id] = kNone;
    std::pair<std::string, unsigned> line{relativeTo(loc.path(), v_.root), loc.line};
    auto [it, fresh] = keys_.try_emplace(line, static_cast<int32_t>(lines_.size()));
    if (fresh)
      lines_.push_back(line);
    return key_[id] = it->second;
  }
  const std::pair<std::string, unsigned> &line(int32_t key) const { return lines_[key]; }
  static constexpr int32_t kUnknown = -1, kNone = -2;

private:
  const Version &v_;
  std::vector<int32_t> key_;
  std::map<std::pair<std::string, unsigned>, int32_t> keys_;
  std::vector<std::pair<std::string, unsigned>> lines_;
};

// `indexes` in an order spread over the run: strides of halving size, every other one of
// every other one first, so that the first n are a sample of the whole.
std::vector<size_t> spread(const std::vector<size_t> &indexes) {
  std::vector<size_t> order;
  std::vector<bool> taken(indexes.size(), false);
  for (size_t stride = std::bit_floor(std::max<size_t>(indexes.size(), 1));; stride /= 2) {
    for (size_t k = 0; k < indexes.size(); k += stride)
      if (!taken[k]) {
        taken[k] = true;
        order.push_back(indexes[k]);
      }
    if (stride <= 1)
      return order;
  }
}

// Replays one version's test processes until the deadline, and counts the lines each one
// that replayed whole ran.
void coverVersion(const Version &v, const std::vector<DebugRequest::TestProcess> &processes,
                  const Deadline &deadline, TestSpectrum &out, Stages &stages) {
  LineNames names(v);
  ProcessCounts &replayed = out.replayed[v.name];
  ProcessCounts &among = out.among[v.name];
  for (const DebugRequest::TestProcess &p : processes)
    ++(p.alike ? among.alike : among.failing);
  unsigned unreadable = 0, partial = 0, tried = 0;
  std::string firstError;
  std::vector<size_t> order = testSpectrumOrder(processes);
  std::vector<ProcessCounts> byKey;                              // by LineNames key
  std::vector<std::vector<uint32_t>> alikeByKey, differingByKey; // the processes that ran it
  for (size_t k : order) {
    if (deadline.expired())
      break;
    ++tried;
    stages.update(v.name + " version, " + std::to_string(tried) + " of " +
                  std::to_string(order.size()) + " test process(es) replayed");
    const DebugRequest::TestProcess &p = processes[k];
    Coverage coverage(v.index->instructionCount());
    ReplayLimits limits;
    limits.deadline = deadline;
    limits.stopAtMismatch = true;
    ReplayResult r;
    try {
      TraceReader reader(p.trace, v.program.module.key);
      r = replayTrace(*v.module.module, *v.index, reader, &coverage, limits);
    } catch (const Error &e) {
      if (firstError.empty())
        firstError = e.what();
      ++unreadable;
      continue;
    }
    // A line missing from a replay cut short may have run later: such a process is not
    // counted at all.
    if (r.outcome == RunOutcome::Stopped || r.outcome == RunOutcome::Diverged) {
      ++partial;
      continue;
    }
    ++(p.alike ? replayed.alike : replayed.failing);
    out.replayedWhole[v.name].insert(static_cast<uint32_t>(k));
    std::vector<bool> counted;
    for (uint32_t id = 0; id < coverage.ran().size(); ++id) {
      if (!coverage.ran()[id])
        continue;
      int32_t key = names.keyOf(id);
      if (key < 0)
        continue;
      if (static_cast<size_t>(key) >= counted.size())
        counted.resize(key + 1, false);
      if (static_cast<size_t>(key) >= byKey.size()) {
        byKey.resize(key + 1);
        alikeByKey.resize(key + 1);
        differingByKey.resize(key + 1);
      }
      if (counted[key])
        continue;
      counted[key] = true;
      ++(p.alike ? byKey[key].alike : byKey[key].failing);
      (p.alike ? alikeByKey : differingByKey)[key].push_back(static_cast<uint32_t>(k));
    }
  }
  // Named once per line, not once per process and line.
  for (size_t key = 0; key < byKey.size(); ++key)
    if (byKey[key].alike || byKey[key].failing) {
      const auto &[file, line] = names.line(static_cast<int32_t>(key));
      out.ran[{v.name, file, line}] = byKey[key];
      if (!alikeByKey[key].empty())
        out.alikeRan[{v.name, file, line}] = std::move(alikeByKey[key]);
      if (!differingByKey[key].empty())
        out.differingRan[{v.name, file, line}] = std::move(differingByKey[key]);
    }
  if (unreadable || partial || tried < order.size())
    stages.note("the " + v.name + " version's test spectrum counts " +
                std::to_string(replayed.alike + replayed.failing) + " of the " +
                std::to_string(order.size()) + " test process(es) it meant to replay" +
                (unreadable ? "; " + std::to_string(unreadable) + " trace(s) could not be read (" +
                                  firstError + ")"
                            : "") +
                (partial ? "; " + std::to_string(partial) + " replay(s) did not finish" : "") +
                (tried < order.size()
                     ? "; the deadline left " + std::to_string(order.size() - tried) + " unreplayed"
                     : ""));
}

} // namespace

std::vector<size_t> testSpectrumOrder(const std::vector<DebugRequest::TestProcess> &processes) {
  std::vector<size_t> differing, alike;
  for (size_t i = 0; i < processes.size(); ++i)
    (processes[i].alike ? alike : differing).push_back(i);
  std::vector<size_t> order = spread(differing), sample = spread(alike);
  if (order.size() > kTestSpectrumSample)
    order.resize(kTestSpectrumSample);
  if (sample.size() > kTestSpectrumAlikeSample)
    sample.resize(kTestSpectrumAlikeSample);
  order.insert(order.end(), sample.begin(), sample.end());
  return order;
}

bool TestSpectrum::usable(const std::string &version) const {
  auto r = replayed.find(version);
  return r != replayed.end() && r->second.failing > 0 && r->second.alike > 0;
}

TestSpectrum coverTestProcesses(const DebugRequest &req, const Version &oldV, const Version &newV,
                                const Deadline &deadline, Stages &stages) {
  TestSpectrum out;
  auto worthIt = [](const std::vector<DebugRequest::TestProcess> &ps) {
    return std::any_of(ps.begin(), ps.end(), [](auto &p) { return p.alike; }) &&
           std::any_of(ps.begin(), ps.end(), [](auto &p) { return !p.alike; });
  };
  if (!worthIt(req.oldTestProcesses) && !worthIt(req.newTestProcesses))
    return out;
  TestSpectrum oldPart, newPart;
  bothVersions(
      stages, [&](Stages &s) { coverVersion(oldV, req.oldTestProcesses, deadline, oldPart, s); },
      [&](Stages &s) { coverVersion(newV, req.newTestProcesses, deadline, newPart, s); });
  out.replayed = std::move(oldPart.replayed);
  out.replayed.merge(newPart.replayed);
  out.among = std::move(oldPart.among);
  out.among.merge(newPart.among);
  out.ran = std::move(oldPart.ran);
  out.ran.merge(newPart.ran);
  out.alikeRan = std::move(oldPart.alikeRan);
  out.alikeRan.merge(newPart.alikeRan);
  out.differingRan = std::move(oldPart.differingRan);
  out.differingRan.merge(newPart.differingRan);
  out.replayedWhole = std::move(oldPart.replayedWhole);
  out.replayedWhole.merge(newPart.replayedWhole);
  return out;
}

double testSuspicion(const DebugCandidate &c) {
  return c.testSpectrumKnown ? c.testSpectrum.ochiai(c.testSpectrumOf) : -1;
}

void applyTestSpectrum(const TestSpectrum &spectrum, std::vector<DebugCandidate> &candidates) {
  for (DebugCandidate &c : candidates) {
    if (!spectrum.usable(c.version) || !c.line)
      continue;
    const ProcessCounts &of = spectrum.replayed.at(c.version);
    auto it = spectrum.ran.find({c.version, c.file, c.runsAt ? c.runsAt : c.line});
    c.testSpectrum = it == spectrum.ran.end() ? ProcessCounts{} : it->second;
    c.testSpectrumOf = of;
    c.testSpectrumAmong = spectrum.among.at(c.version);
    c.testSpectrumKnown = true;
  }
}

} // namespace rootline::debug

namespace rootline {

double ProcessCounts::ochiai(const ProcessCounts &of) const {
  double denominator = std::sqrt(static_cast<double>(of.failing) * (failing + alike));
  return denominator == 0 ? 0 : failing / denominator;
}

} // namespace rootline
