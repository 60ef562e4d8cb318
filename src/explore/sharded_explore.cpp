// Sharded exploration (docs/explore.md "Shards"): the search's result as JSON, the
// frontier dealt to shards, and shards' results merged into one.
#include "rootline/error.h"
#include "rootline/explore.h"

#include <algorithm>
#include <map>

namespace rootline {

using nlohmann::json;

namespace {

// Bytes as hex: inputs and outputs are any bytes, JSON strings are UTF-8.
std::string hex(const std::string &bytes) {
  static const char *digits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string unhex(const std::string &text) {
  auto nibble = [](char c) -> int {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  };
  if (text.size() % 2)
    throw Error("a shard result holds malformed hex");
  std::string out;
  out.reserve(text.size() / 2);
  for (size_t i = 0; i < text.size(); i += 2) {
    int hi = nibble(text[i]), lo = nibble(text[i + 1]);
    if (hi < 0 || lo < 0)
      throw Error("a shard result holds malformed hex");
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

json inputJson(const ProgramInput &in) {
  json files = json::object();
  for (const auto &[name, bytes] : in.files)
    files[name] = hex(bytes);
  return {{"stdin", hex(in.stdinBytes)}, {"args", in.args}, {"files", files}};
}

ProgramInput inputFrom(const json &j) {
  ProgramInput in;
  in.stdinBytes = unhex(j.value("stdin", ""));
  in.args = j.value("args", std::vector<std::string>{});
  const json files = j.value("files", json::object()); // items() must not outlive it
  for (const auto &[name, bytes] : files.items())
    in.files[name] = unhex(bytes.get<std::string>());
  return in;
}

json pairsJson(const std::vector<std::pair<uint32_t, uint32_t>> &v) {
  json a = json::array();
  for (const auto &[x, y] : v)
    a.push_back({x, y});
  return a;
}

std::vector<std::pair<uint32_t, uint32_t>> pairsFrom(const json &a) {
  std::vector<std::pair<uint32_t, uint32_t>> v;
  for (const auto &p : a)
    v.push_back({p[0].get<uint32_t>(), p[1].get<uint32_t>()});
  return v;
}

json candidateJson(const ExploreCandidate &c) {
  return {{"input", inputJson(c.input)},
          {"bound", c.bound},
          {"expected_prefix", pairsJson(c.expectedPrefix)},
          {"last_flipped", c.lastFlipped},
          {"parent", c.parent}};
}

ExploreCandidate candidateFrom(const json &j) {
  return {inputFrom(j.at("input")), j.value("bound", size_t{0}),
          pairsFrom(j.value("expected_prefix", json::array())), j.value("last_flipped", false),
          j.value("parent", 0u)};
}

json shardTestJson(const GeneratedTest &t) {
  json branches = json::array();
  for (const auto &b : t.symbolicBranches)
    branches.push_back({b.id, b.file, b.function, b.line, b.successor});
  json outputs = json::array();
  for (const auto &o : t.symbolicOutputs)
    outputs.push_back({o.fd, o.offset, o.length, o.arg, o.value, o.valueSmt});
  return {{"id", t.id},
          {"parent", t.parent},
          {"input", inputJson(t.input)},
          {"outcome", t.outcome},
          {"exit_code", t.exitCode},
          {"stdout", hex(t.stdoutBytes)},
          {"branches", pairsJson(t.branches)},
          {"symbolic_branches", branches},
          {"path_condition", t.pathConditionSmt2},
          {"symbolic_outputs", outputs},
          {"diverged", t.diverged},
          {"path_key", t.pathKey},
          {"partition_key", t.partitionKey},
          {"rsc", t.rsc},
          {"symbolic_output", t.symbolicOutput}};
}

GeneratedTest testFrom(const json &j) {
  GeneratedTest t;
  t.id = j.value("id", 0u);
  t.parent = j.value("parent", 0u);
  t.input = inputFrom(j.at("input"));
  t.outcome = j.value("outcome", "");
  t.exitCode = j.value("exit_code", 0);
  t.stdoutBytes = unhex(j.value("stdout", ""));
  t.branches = pairsFrom(j.value("branches", json::array()));
  for (const auto &b : j.value("symbolic_branches", json::array()))
    t.symbolicBranches.push_back({b[0].get<uint32_t>(), b[1].get<std::string>(),
                                  b[2].get<std::string>(), b[3].get<unsigned>(),
                                  b[4].get<uint32_t>()});
  t.pathConditionSmt2 = j.value("path_condition", "");
  for (const auto &o : j.value("symbolic_outputs", json::array()))
    t.symbolicOutputs.push_back({o[0].get<uint64_t>(), o[1].get<uint64_t>(), o[2].get<uint64_t>(),
                                 o[3].get<uint64_t>(), o[4].get<std::string>(),
                                 o[5].get<std::string>()});
  t.diverged = j.value("diverged", false);
  t.pathKey = j.value("path_key", "");
  t.partitionKey = j.value("partition_key", "");
  t.rsc = j.value("rsc", "");
  t.symbolicOutput = j.value("symbolic_output", "");
  return t;
}

template <typename T> std::set<T> setFrom(const json &j) {
  std::set<T> s;
  for (const auto &x : j)
    s.insert(x.get<T>());
  return s;
}

} // namespace

json exploreResultJson(const ExploreResult &r) {
  json tests = json::array(), bugs = json::array(), signature = json::array(),
       remaining = json::array(), branches = json::array(), lines = json::array();
  for (const auto &t : r.tests)
    tests.push_back(shardTestJson(t));
  for (const auto &b : r.bugs)
    bugs.push_back({{"kind", b.kind},
                    {"file", b.file},
                    {"line", b.line},
                    {"function", b.function},
                    {"input", inputJson(b.input)},
                    {"confirmed", b.confirmed},
                    {"evidence", b.evidence}});
  for (const auto &e : r.signature)
    signature.push_back({e.rsc, e.output, e.test});
  for (const auto &c : r.remaining)
    remaining.push_back(candidateJson(c));
  for (const auto &[id, succ] : r.coveredBranches)
    branches.push_back({id, succ});
  for (const auto &[file, line] : r.coveredLines)
    lines.push_back({file, line});
  const ExploreStats &s = r.stats;
  json stats = {{"runs", s.runs},
                {"distinct_paths", s.distinctPaths},
                {"duplicate_paths", s.duplicatePaths},
                {"divergences", s.divergences},
                {"solver_calls", s.solverCalls},
                {"solver_unsat", s.solverUnsat},
                {"solver_unknown", s.solverUnknown},
                {"solver_seconds", s.solverSeconds},
                {"total_seconds", s.totalSeconds},
                {"formula_bytes", s.formulaBytes},
                {"concretizations", s.concretizations},
                {"concretized_calls", s.concretizedCalls}};
  return {{"schema", "rootline.explore-shard/1"},
          {"tests", tests},
          {"partition_keys", r.partitionKeys},
          {"signature", signature},
          {"bugs", bugs},
          {"stats", stats},
          {"notes", r.notes},
          {"remaining", remaining},
          {"paths", r.paths},
          {"negated", r.negated},
          {"covered_branches", branches},
          {"covered_lines", lines}};
}

ExploreResult exploreResultFromJson(const json &j) {
  if (j.value("schema", "") != "rootline.explore-shard/1")
    throw Error("not a rootline.explore-shard/1 result");
  ExploreResult r;
  for (const auto &t : j.at("tests"))
    r.tests.push_back(testFrom(t));
  r.partitionKeys = setFrom<std::string>(j.value("partition_keys", json::array()));
  for (const auto &e : j.value("signature", json::array()))
    r.signature.insert({e[0].get<std::string>(), e[1].get<std::string>(), e[2].get<unsigned>()});
  for (const auto &b : j.value("bugs", json::array()))
    r.bugs.push_back({b.value("kind", ""), b.value("file", ""), b.value("line", 0u),
                      b.value("function", ""), inputFrom(b.at("input")),
                      b.value("confirmed", false), b.value("evidence", "")});
  const json &s = j.value("stats", json::object());
  r.stats.runs = s.value("runs", 0u);
  r.stats.distinctPaths = s.value("distinct_paths", 0u);
  r.stats.duplicatePaths = s.value("duplicate_paths", 0u);
  r.stats.divergences = s.value("divergences", 0u);
  r.stats.solverCalls = s.value("solver_calls", 0u);
  r.stats.solverUnsat = s.value("solver_unsat", 0u);
  r.stats.solverUnknown = s.value("solver_unknown", 0u);
  r.stats.solverSeconds = s.value("solver_seconds", 0.0);
  r.stats.totalSeconds = s.value("total_seconds", 0.0);
  r.stats.formulaBytes = s.value("formula_bytes", uint64_t{0});
  r.stats.concretizations = s.value("concretizations", uint64_t{0});
  r.stats.concretizedCalls = setFrom<std::string>(s.value("concretized_calls", json::array()));
  r.notes = j.value("notes", std::vector<std::string>{});
  for (const auto &c : j.value("remaining", json::array()))
    r.remaining.push_back(candidateFrom(c));
  r.paths = setFrom<std::string>(j.value("paths", json::array()));
  r.negated = setFrom<std::string>(j.value("negated", json::array()));
  for (const auto &b : j.value("covered_branches", json::array()))
    r.coveredBranches.insert({b[0].get<uint32_t>(), b[1].get<uint32_t>()});
  for (const auto &l : j.value("covered_lines", json::array()))
    r.coveredLines.insert({l[0].get<std::string>(), l[1].get<unsigned>()});
  return r;
}

json exploreFrontierJson(const std::vector<ExploreCandidate> &candidates) {
  json a = json::array();
  for (const auto &c : candidates)
    a.push_back(candidateJson(c));
  return a;
}

std::vector<ExploreCandidate> exploreFrontierFromJson(const json &j) {
  std::vector<ExploreCandidate> v;
  for (const auto &c : j)
    v.push_back(candidateFrom(c));
  return v;
}

std::vector<std::vector<ExploreCandidate>> splitFrontier(const std::vector<ExploreCandidate> &all,
                                                         unsigned n) {
  std::vector<std::vector<ExploreCandidate>> shards(
      std::max(1u, std::min<unsigned>(n, static_cast<unsigned>(all.size()))));
  // Round-robin: the queue is in search order, so each shard gets early and late inputs.
  for (size_t i = 0; i < all.size(); ++i)
    shards[i % shards.size()].push_back(all[i]);
  return shards;
}

void mergeExploreResult(ExploreResult &into, ExploreResult shard, Strategy strategy) {
  auto keyOf = [&](const GeneratedTest &t) {
    return strategy == Strategy::Dart ? t.pathKey : t.partitionKey;
  };
  std::map<std::string, unsigned> kept; // key → the test that stands for it
  for (const auto &t : into.tests)
    kept.emplace(keyOf(t), t.id);
  std::map<unsigned, unsigned> sameAs; // a shard test dropped as a duplicate → the kept one
  size_t pathsBefore = into.paths.size();
  for (auto &t : shard.tests) {
    auto [it, fresh] = kept.emplace(keyOf(t), t.id);
    if (fresh)
      into.tests.push_back(std::move(t));
    else
      sameAs[t.id] = it->second;
  }
  for (SignatureEntry e : shard.signature) {
    if (auto m = sameAs.find(e.test); m != sameAs.end())
      e.test = m->second;
    into.signature.insert(e);
  }
  for (auto &b : shard.bugs) {
    auto same = std::find_if(into.bugs.begin(), into.bugs.end(), [&](const FoundBug &x) {
      return x.kind == b.kind && x.file == b.file && x.line == b.line;
    });
    if (same == into.bugs.end())
      into.bugs.push_back(std::move(b));
    else if (!same->confirmed && b.confirmed)
      *same = std::move(b);
  }
  into.partitionKeys.insert(shard.partitionKeys.begin(), shard.partitionKeys.end());
  into.paths.insert(shard.paths.begin(), shard.paths.end());
  into.negated.insert(shard.negated.begin(), shard.negated.end());
  into.coveredBranches.insert(shard.coveredBranches.begin(), shard.coveredBranches.end());
  into.coveredLines.insert(shard.coveredLines.begin(), shard.coveredLines.end());
  for (auto &n : shard.notes)
    if (std::find(into.notes.begin(), into.notes.end(), n) == into.notes.end())
      into.notes.push_back(std::move(n));
  ExploreStats &s = into.stats;
  const ExploreStats &o = shard.stats;
  s.runs += o.runs;
  // A path two shards both found in one round is new to each but counts once.
  unsigned added = static_cast<unsigned>(into.paths.size() - pathsBefore);
  s.duplicatePaths += o.duplicatePaths + (o.distinctPaths - std::min(o.distinctPaths, added));
  s.distinctPaths = static_cast<unsigned>(into.paths.size());
  s.divergences += o.divergences;
  s.solverCalls += o.solverCalls;
  s.solverUnsat += o.solverUnsat;
  s.solverUnknown += o.solverUnknown;
  s.solverSeconds += o.solverSeconds;
  s.formulaBytes += o.formulaBytes;
  s.concretizations += o.concretizations;
  s.concretizedCalls.insert(o.concretizedCalls.begin(), o.concretizedCalls.end());
  s.partitions = static_cast<unsigned>(into.partitionKeys.size());
}

void renumberTests(ExploreResult &r) {
  std::sort(r.tests.begin(), r.tests.end(),
            [](const GeneratedTest &a, const GeneratedTest &b) { return a.id < b.id; });
  std::map<unsigned, unsigned> to;
  for (size_t i = 0; i < r.tests.size(); ++i)
    to[r.tests[i].id] = static_cast<unsigned>(i + 1);
  auto mapped = [&](unsigned id) {
    auto it = to.find(id);
    return it == to.end() ? 0u : it->second;
  };
  for (auto &t : r.tests) {
    t.id = mapped(t.id);
    t.parent = mapped(t.parent);
  }
  std::set<SignatureEntry> signature;
  for (SignatureEntry e : r.signature) {
    e.test = mapped(e.test);
    signature.insert(e);
  }
  r.signature = std::move(signature);
  for (auto &c : r.remaining)
    c.parent = mapped(c.parent);
}

} // namespace rootline
