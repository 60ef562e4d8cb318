// rootline-substitute: stands in for one of a project's programs in a test run where some
// of its processes are run by the other version (docs/project.md, "Which process the test
// judges"). It finds the process's program, directory and arguments in a list and
// executes the old or the new version's executable with the arguments unchanged, argv[0]
// included. Standard library and POSIX only: it starts once per process of the test.
#include "project/substitute/substitute_list.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <climits>
#include <fcntl.h>
#include <unistd.h>

namespace {

using rootline::substitute::fieldsOf;
using rootline::substitute::hex;
using rootline::substitute::unhex;

[[noreturn]] void fail(const std::string &what) {
  std::fprintf(stderr, "rootline-substitute: %s\n", what.c_str());
  std::exit(127); // as a shell reports a command it cannot run
}

} // namespace

// The list (ROOTLINE_SUBSTITUTE names it) holds lines of space-separated hex fields:
//   program <its path in the tree> <old executable> <new executable>
//   old <its path in the tree> <directory> <arguments after argv[0], each ended by NUL>
// (paths as /proc/self/exe and getcwd give them; no arguments: an empty last field).
// A process that matches an `old` line runs the old executable; every other the new one.
int main(int argc, char **argv) {
  const char *list = std::getenv("ROOTLINE_SUBSTITUTE");
  if (!list || !*list)
    fail("ROOTLINE_SUBSTITUTE is not set");
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0)
    fail("cannot read /proc/self/exe");
  self[n] = '\0';
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd))
    fail(std::string("cannot read the working directory: ") + std::strerror(errno));
  std::string args;
  for (int i = 1; i < argc; ++i)
    args += std::string(argv[i]) + '\0';

  std::ifstream in(list);
  if (!in)
    fail(std::string("cannot read ") + list);
  std::string oldExe, newExe;
  bool asOld = false;
  size_t number = 0, matched = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    std::vector<std::string> f = fieldsOf(line);
    if (f.size() == 4 && f[0] == "program" && unhex(f[1]) == self) {
      oldExe = unhex(f[2]);
      newExe = unhex(f[3]);
    } else if (f.size() == 4 && f[0] == "old" && unhex(f[1]) == self && unhex(f[2]) == cwd &&
               unhex(f[3]) == args) {
      asOld = true;
      matched = number;
    }
  }
  // What ran, appended to <list>.used: the line an old process matched, or a new
  // process's program, directory and arguments. A trial tells something only when rootline
  // knows each process that ran new (a path that differs from run to run matches nothing).
  int fd = open((std::string(list) + ".used").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) {
    std::string entry = asOld ? "old " + std::to_string(matched) + "\n"
                              : "new " + hex(self) + " " + hex(cwd) + " " + hex(args) + "\n";
    ssize_t w = write(fd, entry.data(), entry.size()); // one write: O_APPEND keeps it whole
    (void)w;
    close(fd);
  }
  const std::string &exe = asOld ? oldExe : newExe;
  if (exe.empty())
    fail(std::string("no program entry for ") + self + " in " + list);
  execv(exe.c_str(), argv);
  fail("cannot execute " + exe + ": " + std::strerror(errno));
}
