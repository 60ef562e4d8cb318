// rootline installed like a tool (README "Install"): `cmake --install` puts the binary
// and the runtime it links into traced programs under a prefix, the installed binary
// finds the runtime relative to itself, and CPack makes a .deb of the same files.
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace rootline;
using namespace rootline::test;

namespace {

fs::path buildDir() { return fs::path(rootlineBinary()).parent_path(); }

ProcessResult run(const std::vector<std::string> &argv, const fs::path &cache,
                  double timeout = 600) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.extraEnv["ROOTLINE_CACHE_DIR"] = cache.string();
  spec.timeoutSeconds = timeout;
  return runProcess(spec);
}

} // namespace

TEST_CASE("an installed rootline debugs from its prefix with the runtime found beside it",
          "[install]") {
  TempDir t;
  fs::path prefix = t.path / "prefix";
  ProcessResult inst =
      run({ROOTLINE_CMAKE, "--install", buildDir().string(), "--prefix", prefix.string()}, t.path / "c0");
  INFO(inst.out << inst.err);
  REQUIRE(inst.exitedWith(0));
  fs::path exe = prefix / "bin" / "rootline", rt = prefix / "lib" / "rootline" / "librootline_rt.a";
  REQUIRE(fs::exists(exe));
  REQUIRE(fs::exists(rt));
  CHECK(fs::exists(prefix / "share" / "doc" / "rootline" / "debug.md"));

  RegressionFixture r = regressionFixture("discount_threshold");
  ProcessResult dbg = run({exe.string(), "--json", "debug", "--old", (r.dir / "old").string(),
                           "--new", (r.dir / "new").string(), "--src", "main.c", "--stdin",
                           r.program.stdinFile->string()},
                          t.path / "c1");
  INFO(dbg.err);
  REQUIRE(dbg.exitedWith(0));
  auto j = nlohmann::json::parse(dbg.out);
  CHECK(j["candidates"][0]["line"] == r.rootLine);

  // The installed binary uses the installed runtime, not the build tree's: spoil it and
  // a traced build (fresh cache) fails naming it.
  writeText(rt, "not an archive");
  ProcessResult spoiled = run({exe.string(), "trace", "--src", (r.dir / "old" / "main.c").string(),
                               "--stdin", r.program.stdinFile->string()},
                              t.path / "c2");
  CHECK_FALSE(spoiled.exitedWith(0));
  CHECK(spoiled.err.find(rt.string()) != std::string::npos);
}

TEST_CASE("cpack makes a Debian package with the binary and the runtime", "[install][deb]") {
  TempDir t;
  ProcessResult pack = run({ROOTLINE_CPACK, "-G", "DEB", "--config",
                            (buildDir() / "CPackConfig.cmake").string(), "-B", t.path.string()},
                           t.path / "c");
  INFO(pack.out << pack.err);
  REQUIRE(pack.exitedWith(0));
  fs::path deb;
  for (const auto &e : fs::directory_iterator(t.path))
    if (e.path().extension() == ".deb")
      deb = e.path();
  REQUIRE_FALSE(deb.empty());
  ProcessResult contents = run({"/usr/bin/dpkg-deb", "-c", deb.string()}, t.path / "c");
  REQUIRE(contents.exitedWith(0));
  CHECK(contents.out.find("./usr/bin/rootline") != std::string::npos);
  CHECK(contents.out.find("./usr/lib/rootline/librootline_rt.a") != std::string::npos);
  ProcessResult info = run({"/usr/bin/dpkg-deb", "-f", deb.string(), "Depends"}, t.path / "c");
  CHECK(info.out.find("clang-19") != std::string::npos);
}
