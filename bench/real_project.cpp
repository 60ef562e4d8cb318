#include "real_project.h"

#include "rootline/process.h"

#include <cstdio>

namespace rootline::bench {

namespace {

fs::path bundle() {
  return (fs::path(ROOTLINE_SOURCE_DIR) / ".." / "shared" / "realworld" / "mujs.bundle")
      .lexically_normal();
}

bool run(const std::vector<std::string> &argv) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.timeoutSeconds = 300;
  return runProcess(spec).exitedWith(0);
}

} // namespace

std::optional<RealTree> mujsTree(const std::string &commit, const fs::path &work) {
  if (!fs::exists(bundle())) {
    std::printf("(real-project row skipped: %s not found)\n", bundle().c_str());
    return std::nullopt;
  }
  fs::path git = work / "mujs.git";
  if (!fs::exists(git) && !run({"/usr/bin/git", "clone", "-q", "--bare", bundle().string(), git.string()})) {
    std::printf("(real-project row skipped: cannot clone %s)\n", bundle().c_str());
    return std::nullopt;
  }
  RealTree t;
  t.root = work / ("mujs-" + commit);
  fs::create_directories(t.root);
  if (!run({"/bin/sh", "-c",
            "git --git-dir='" + git.string() + "' archive '" + commit + "' | tar -x -C '" +
                t.root.string() + "'"})) {
    std::printf("(real-project row skipped: cannot lay out mujs %s)\n", commit.c_str());
    return std::nullopt;
  }
  for (const char *s : {"one.c", "main.c"})
    t.recipe.units.push_back({t.root / s, {"-std=c99"}, t.root});
  t.recipe.libs = {"m"};
  t.recipe.origin = "bench";
  return t;
}

fs::path mujsWorkload() { return fs::path(ROOTLINE_SOURCE_DIR) / "bench" / "mujs_workload.js"; }

} // namespace rootline::bench
