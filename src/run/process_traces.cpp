// Listing the per-process traces of one test run.
#include "rootline/process_traces.h"

#include "rootline/error.h"

#include <algorithm>
#include <fstream>

namespace rootline {

TraceHeader readTraceHeader(const fs::path &trace) {
  // The header holds the command line and two paths: well under this.
  constexpr size_t kHeaderCap = 256 * 1024;
  std::ifstream in(trace, std::ios::binary);
  if (!in)
    throw Error("cannot read trace '" + trace.string() + "'");
  std::string bytes(kHeaderCap, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(in.gcount()));
  return TraceReader::fromBytes(std::move(bytes)).header();
}

std::vector<ProcessTrace> processTraces(const fs::path &dir) {
  std::vector<ProcessTrace> out;
  std::error_code ec;
  for (const fs::directory_entry &e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.size() < 8 || name[0] != 'p' || !name.ends_with(".trace"))
      continue;
    if (e.file_size(ec) == 0)
      continue; // killed before its first write: nothing to read
    ProcessTrace p;
    p.trace = e.path();
    p.header = readTraceHeader(p.trace);
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(), [](const ProcessTrace &a, const ProcessTrace &b) {
    return a.header.process.seq < b.header.process.seq;
  });
  return out;
}

} // namespace rootline
