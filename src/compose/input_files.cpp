// Files the test reads (docs/debug.md, "Input files"). Every run has a private working
// directory, so a program that opens "input.txt" finds it only if the test says so:
// --file NAME=PATH, or found here: a string literal of either version (the name a
// program passes to fopen or freopen), or an argument, that names a file in one of the
// directories the user ran from. Found files are copied (read, never written).
#include "compose/debug_stages.h"

#include "rootline/fs.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>

namespace rootline::debug {

namespace {

// A literal that could be a relative file name.
bool looksLikeFileName(llvm::StringRef s) {
  if (s.empty() || s.size() > 255 || s.starts_with("/") || s.starts_with("-") || s == "." ||
      s == "..")
    return false;
  for (char c : s)
    if (c == '%' || c == '\n' || c == '\t' || c == '\\' || static_cast<unsigned char>(c) < 0x20)
      return false;
  return true;
}

void collectLiterals(const llvm::Module &m, std::set<std::string> &out) {
  for (const llvm::GlobalVariable &g : m.globals()) {
    if (!g.hasInitializer() || !g.isConstant())
      continue;
    auto *data = llvm::dyn_cast<llvm::ConstantDataArray>(g.getInitializer());
    if (data && data->isCString() && looksLikeFileName(data->getAsCString()))
      out.insert(data->getAsCString().str());
  }
}

} // namespace

std::vector<std::string> discoverInputFiles(DebugRequest &req, const Version &oldV,
                                            const Version &newV) {
  std::set<std::string> names;
  collectLiterals(*oldV.module.module, names);
  collectLiterals(*newV.module.module, names);
  for (const std::string &a : req.input.args)
    if (looksLikeFileName(a))
      names.insert(a);
  std::vector<std::string> found;
  for (const std::string &name : names) {
    if (req.input.files.count(name))
      continue;
    for (const fs::path &dir : req.inputSearchDirs) {
      fs::path candidate = dir / name;
      std::error_code ec;
      if (fs::is_regular_file(candidate, ec) &&
          fs::file_size(candidate, ec) <= kMaxInputFileBytes) {
        req.input.files[name] = readFile(candidate);
        found.push_back(name + " (from " + candidate.string() + ")");
        break;
      }
    }
  }
  return found;
}

} // namespace rootline::debug
