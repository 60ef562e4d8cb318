// Real builds and test commands (docs/project.md): for each project of
// fixtures/projects (autotools, libtool with a shared library, CMake, Meson and Makefile
// projects, each with a multi-file change and a shell-script, ctest or meson test), and
// mujs built by its own
// Makefile from ../shared/realworld, and mawk, byacc, diffstat and cproto
// (fixtures/realworld bundles, their committed configure), `rootline debug --test` from
// a cold cache and
// again from a warm one: wall time of each, the failing process found, and the rank of
// the line the fixture names as the cause. Ratios are measured in one run.
//
// Usage: ./build/bench/project_bench
// ($ROOTLINE_BENCH_REPORTS=DIR keeps each row's JSON report there, by row name: lua_index.json.)
// The runnable evidence column lists the cause's: revert, unit test, local alternative,
// alternative input (docs/report-schema.md).
#include "rootline/fs.h"
#include "rootline/process.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <tuple>

using namespace rootline;
using nlohmann::json;

namespace {

const fs::path kSource = ROOTLINE_SOURCE_DIR;

struct Row {
  std::string name, build, test, file;
  unsigned line = 0;
  std::vector<std::string> versions; // --old/--new or --repo/--good/--bad arguments
};

struct Result {
  double seconds = 0;
  int exit = -1;
  unsigned rank = 0; // 0: not among the candidates
  std::string process, evidence;
  std::string runnable; // the cause's runnable_evidence, joined by '+'
};

// A clone of a git bundle at `repo`; false when git could not make it.
bool cloned(const fs::path &bundle, const fs::path &repo) {
  ProcessSpec clone;
  clone.argv = {"/usr/bin/git", "clone", "-q", bundle.string(), repo.string()};
  return runProcess(clone).exitedWith(0);
}

// A row's report file name: its name up to the parenthesis, spaces as '_' ("lua index").
std::string reportName(const std::string &row) {
  std::string name = row.substr(0, row.find(" ("));
  std::replace(name.begin(), name.end(), ' ', '_');
  return name;
}

Result debugOnce(const Row &row, const fs::path &cache) {
  ProcessSpec spec;
  spec.argv = {ROOTLINE_BINARY, "--json", "debug"};
  spec.argv.insert(spec.argv.end(), row.versions.begin(), row.versions.end());
  if (!row.build.empty())
    spec.argv.insert(spec.argv.end(), {"--build", row.build});
  spec.argv.insert(spec.argv.end(), {"--test", row.test, "--max-candidates", "100"});
  spec.extraEnv["ROOTLINE_CACHE_DIR"] = cache.string();
  spec.timeoutSeconds = 1800;
  auto start = std::chrono::steady_clock::now();
  ProcessResult p = runProcess(spec);
  Result r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.exit = p.exitedWith(0) ? 0 : p.exitCode;
  // $ROOTLINE_BENCH_REPORTS: a directory that keeps each row's JSON report, to read
  // its claims afterwards.
  if (const char *keep = std::getenv("ROOTLINE_BENCH_REPORTS")) {
    fs::create_directories(keep);
    writeFileAtomic(fs::path(keep) / (reportName(row.name) + ".json"), p.out);
  }
  json j = json::parse(p.out, nullptr, false);
  if (j.is_discarded())
    return r;
  for (const auto &n : j["notes"]) {
    std::string s = n.get<std::string>();
    if (s.rfind("failing process: ", 0) == 0)
      r.process = s.substr(17, s.find('`', 18) - 16);
  }
  for (const auto &c : j["candidates"])
    if (c["file"] == row.file && c["line"] == row.line) {
      r.rank = c["rank"];
      r.evidence =
          c.contains("revert") && c["revert"].is_object() ? c["revert"].value("result", "") : "";
      for (const auto &e : c.value("runnable_evidence", json::array()))
        r.runnable += (r.runnable.empty() ? "" : "+") + e.get<std::string>();
      break;
    }
  return r;
}

std::vector<Row> rows(const fs::path &scratch) {
  std::vector<Row> out;
  for (const char *name : {"autotools_tally", "cmake_units", "make_pipeline", "meson_wordstat",
                           "libtool_kvcheck", "make_inplace"}) {
    fs::path dir = kSource / "fixtures" / "projects" / name;
    json p = json::parse(readFile(dir / "project.json"));
    Row r;
    r.name = name;
    r.test = p["test"];
    r.file = p["root_cause"]["file"];
    r.line = p["root_cause"]["line"];
    if (std::string(name) == "cmake_units")
      r.build = p["build"];
    r.versions = {"--old", (dir / "old").string(), "--new", (dir / "new").string()};
    out.push_back(r);
  }
  fs::path bundle = (kSource / ".." / "shared" / "realworld" / "mujs.bundle").lexically_normal();
  if (fs::exists(bundle)) {
    fs::path repo = scratch / "mujs";
    if (cloned(bundle, repo)) {
      writeFileAtomic(scratch / "expected.txt", "it's%20(a)%20test*\nx'y%60z\n");
      Row r;
      r.name = "mujs (real, Makefile)";
      r.build = "make -o utfdata.h HAVE_READLINE=no build=debug";
      r.test = "build/debug/mujs " +
               (kSource / "fixtures" / "realworld" / "mujs_encodeuri_mark.js").string() +
               " | cmp -s - " + (scratch / "expected.txt").string();
      r.file = "jsbuiltin.c";
      r.line = 169;
      r.versions = {"--repo", repo.string(), "--good", "ccf7fa6", "--bad", "2eb4fd2"};
      out.push_back(r);
    }
  }
  // cJSON by its own CMake, tested by its own ctest entry (fixtures/realworld/README.md,
  // "Project cases"): the fix a78d975's tree, and the same with the line f28a468 wrote.
  fs::path cjson = (kSource / ".." / "shared" / "realworld" / "cjson.bundle").lexically_normal();
  if (fs::exists(cjson)) {
    fs::path repo = scratch / "cjson";
    ProcessSpec trees;
    trees.argv = {"/bin/sh", "-c",
                  "set -e; cd " + scratch.string() +
                      " && mkdir -p cj-old cj-new && "
                      "git -C cjson archive a78d975 | tar -x -C cj-old && "
                      "git -C cjson archive a78d975 | tar -x -C cj-new && "
                      "git -C cjson show f28a468:cJSON.c > cj-new/cJSON.c"};
    if (cloned(cjson, repo) && runProcess(trees).exitedWith(0)) {
      Row r;
      r.name = "cJSON (real, CMake)";
      r.build = "cmake -B build -DBUILD_SHARED_LIBS=Off -DENABLE_CJSON_UTILS=Off && "
                "cmake --build build";
      r.test = "ctest --test-dir build -R '^misc_tests$'";
      r.file = "cJSON.c";
      r.line = 2207;
      r.versions = {"--old", (scratch / "cj-old").string(), "--new", (scratch / "cj-new").string()};
      out.push_back(r);
    }
  }
  // mawk by its committed configure and make, broken by a 1 463-line snapshot
  // (fixtures/realworld/README.md, "mawk"), tested by a shell script.
  {
    fs::path repo = scratch / "mawk";
    if (cloned(kSource / "fixtures" / "realworld" / "mawk.bundle", repo)) {
      Row r;
      r.name = "mawk (real, autotools)";
      r.test = "sh " + (kSource / "fixtures" / "realworld" / "mawk_match_dollar.sh").string();
      r.file = "rexp3.c";
      r.line = 433;
      r.versions = {"--repo", repo.string(), "--good", "good", "--bad", "bad"};
      out.push_back(r);
    }
  }
  // byacc by its committed configure and make: one wrong operand injected into a
  // 341-line snapshot of NULL-for-0 edits (fixtures/realworld/README.md, "byacc").
  {
    fs::path repo = scratch / "byacc";
    if (cloned(kSource / "fixtures" / "realworld" / "byacc.bundle", repo)) {
      Row r;
      r.name = "byacc (inj., autotools)";
      r.test = "sh " + (kSource / "fixtures" / "realworld" / "byacc_prec_conflicts.sh").string();
      r.file = "mkpar.c";
      r.line = 261;
      r.versions = {"--repo", repo.string(), "--good", "good", "--bad", "bad"};
      out.push_back(r);
    }
  }
  // diffstat by its committed configure and make: 1.63's quoting reversed, 678 changed
  // lines of diffstat.c (fixtures/realworld/README.md, "diffstat").
  // cproto by configure, yacc and make: a fix across grammar.y, a header and two sources
  // (fixtures/realworld/README.md, "cproto"); the line: define_function_name's first.
  // cindent through its own wrapper scripts, which ask its version first and have it
  // rewrite a file in place (fixtures/realworld/README.md, "cindent").
  for (auto [name, bundle, script, file, line] :
       {std::tuple{"diffstat (real, autotools)", "diffstat.bundle", "diffstat_table_quote.sh",
                   "diffstat.c", 2090u},
        std::tuple{"cproto (real, yacc)", "cproto.bundle", "cproto_static_proto.sh", "semantic.c",
                   44u},
        std::tuple{"cindent (real, wrapper scripts)", "cindent.bundle",
                   "cindent_indent_off_brace.sh", "io.c", 930u}}) {
    fs::path repo = scratch / fs::path(bundle).stem();
    if (cloned(kSource / "fixtures" / "realworld" / bundle, repo)) {
      Row r;
      r.name = name;
      r.test = "sh " + (kSource / "fixtures" / "realworld" / script).string();
      r.file = file;
      r.line = line;
      r.versions = {"--repo", repo.string(), "--good", "good", "--bad", "bad"};
      out.push_back(r);
    }
  }
  // Lua by its own makefile, which names gcc (fixtures/realworld/README.md, "lua"): two
  // one-commit fixes of a seeded interpreter, the test script given on the command line.
  {
    fs::path repo = scratch / "lua";
    if (cloned(kSource / "fixtures" / "realworld" / "lua.bundle", repo)) {
      Row index;
      index.name = "lua index (real, make)";
      index.build = "make";
      index.test = "./lua -e '_ENV[true] = 10 local function aux () return _ENV[1 < 2] end "
                   "print(aux()) assert(aux() == 10)'";
      index.file = "lcode.c";
      index.line = 994;
      index.versions = {"--repo", repo.string(), "--good", "good-index", "--bad", "bad-index"};
      out.push_back(index);
      Row arith = index;
      arith.name = "lua arith (real, make)";
      arith.test =
          "./lua -e 'local f = load(\"local a = 0\\nlocal b = 1\\nlocal c = b % a\\n\", "
          "\"=chunk\") local ok, msg = pcall(f) print(msg) assert(msg:find(\"chunk:3:\"))'";
      arith.file = "lvm.c";
      arith.line = 1475;
      arith.versions = {"--repo", repo.string(), "--good", "good-arith", "--bad", "bad-arith"};
      out.push_back(arith);
    }
  }
  return out;
}

} // namespace

int main() {
  fs::path scratch = makeWorkDir("project-bench");
  std::printf("%-24s %9s %9s %7s  %-6s %-18s %-32s %s\n", "project", "cold s", "warm s", "warm/c",
              "rank", "revert evidence", "runnable evidence", "failing process");
  unsigned first = 0, runnable = 0, total = 0;
  for (const Row &row : rows(scratch)) {
    fs::path cache = scratch / ("cache-" + std::to_string(total));
    Result cold = debugOnce(row, cache);
    Result warm = debugOnce(row, cache);
    ++total;
    first += warm.rank == 1;
    runnable += warm.rank == 1 && !warm.runnable.empty();
    std::printf("%-24s %9.1f %9.1f %6.2fx  %-6s %-18s %-32s %s\n", row.name.c_str(), cold.seconds,
                warm.seconds, warm.seconds / std::max(cold.seconds, 1e-9),
                warm.exit != 0 ? "error"
                : warm.rank    ? std::to_string(warm.rank).c_str()
                               : "-",
                warm.evidence.c_str(), warm.runnable.empty() ? "-" : warm.runnable.c_str(),
                warm.process.c_str());
    std::fflush(stdout);
  }
  std::printf("cause at rank 1: %u of %u; at rank 1 with runnable evidence: %u of %u\n", first,
              total, runnable, total);
  std::error_code ec;
  fs::remove_all(scratch, ec);
  return 0;
}
