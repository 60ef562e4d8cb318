// libFuzzer target: rootline.json and compile_commands.json parsing (docs/build.md) on
// arbitrary bytes. The first byte picks the format; the rest is the file. A bad file
// ends in a rootline::Error (one line), never a crash.
#include "rootline/build.h"
#include "rootline/error.h"
#include "rootline/fs.h"

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  static const rootline::fs::path dir = [] {
    rootline::fs::path d = rootline::fs::temp_directory_path() /
                           ("rootline-fuzz-recipe-" + std::to_string(getpid()));
    rootline::fs::create_directories(d);
    return d;
  }();
  bool commands = data[0] & 1;
  rootline::fs::path file = dir / (commands ? "compile_commands.json" : "rootline.json");
  {
    std::ofstream os(file, std::ios::binary | std::ios::trunc);
    os.write(reinterpret_cast<const char *>(data) + 1, static_cast<std::streamsize>(size - 1));
  }
  try {
    rootline::BuildRecipe r = commands ? rootline::recipeFromCompileCommands(file)
                                       : rootline::recipeFromProjectFile(file);
    (void)r;
  } catch (const rootline::Error &e) {
    if (std::string(e.what()).find('\n') != std::string::npos) // one line, always
      __builtin_trap();
  }
  return 0;
}
