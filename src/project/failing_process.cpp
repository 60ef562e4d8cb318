// The failing process of a test: what each traced process did that others can see, read
// from its trace, and the first process of the old run whose counterpart in the new run
// did otherwise.
#include "rootline/project.h"

#include <algorithm>
#include <map>

namespace rootline {

namespace {

// Where a process sits in its run: its program, arguments and directory, and the
// how-many-th process with those it is (a test may run the same command twice).
std::string processKey(const TraceProcess &p) {
  std::string key = p.exe + "\n" + p.cwd + "\n" + (p.parentSeq ? "fork\n" : "main\n");
  for (const auto &a : p.argv)
    key += a + '\0';
  return key;
}

std::string shellQuoted(const std::string &s) {
  if (!s.empty() && s.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string fdName(uint64_t fd) {
  return fd == 1 ? "stdout" : fd == 2 ? "stderr" : "output to descriptor " + std::to_string(fd);
}

// The whole line holding byte `at`, quoted (or "nothing" past the end).
std::string excerpt(const std::string &s, size_t at) {
  if (at >= s.size())
    return "nothing";
  size_t start = s.rfind('\n', at == 0 ? 0 : at - 1);
  start = start == std::string::npos || (at == 0 && s[0] != '\n') ? 0 : start + 1;
  if (at > 0 && s[at - 1] == '\n')
    start = at;
  size_t end = s.find('\n', at);
  std::string line = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (line.size() > 120) {
    line.resize(117);
    line += "...";
  }
  return "\"" + line + "\"";
}

size_t lineNumber(const std::string &s, size_t at) {
  return 1 + static_cast<size_t>(std::count(s.begin(), s.begin() + std::min(at, s.size()), '\n'));
}

} // namespace

std::string commandLine(const TraceProcess &p) {
  // Paths into the work path read as paths in the tree ("build/units").
  std::string work = projectWorkPath().string() + "/";
  std::string out;
  for (std::string a : p.argv) {
    if (a.rfind(work, 0) == 0)
      a = a.substr(work.size());
    out += (out.empty() ? "" : " ") + shellQuoted(a);
  }
  return out;
}

ProcessBehaviour processBehaviour(const ProcessTrace &p) {
  ProcessBehaviour b;
  b.ending = "incomplete";
  // The process's own file: a forked child's events after the fork, not its parent's.
  TraceReader reader = TraceReader::fromBytes(readFile(p.trace));
  Event ev;
  while (reader.next(ev)) {
    switch (ev.tag) {
    case Ev::OUTPUT:
      b.output[ev.a].append(ev.bytes);
      break;
    case Ev::OPEN:
      if (ev.a)
        b.opened[ev.a] = std::string(ev.bytes);
      break;
    case Ev::EXIT:
      b.ending = "exit " + std::to_string(static_cast<int>(static_cast<uint32_t>(ev.a)));
      break;
    case Ev::SIGNAL:
      b.ending = "signal " + std::to_string(ev.a);
      break;
    case Ev::EXEC:
      b.ending = "exec";
      break;
    case Ev::EXT_RET:
      if (b.ending == "exec") // the exec failed and returned
        b.ending = "incomplete";
      break;
    default:
      break;
    }
  }
  if (b.ending == "incomplete" && reader.truncated())
    b.ending = "incomplete (trace cut short)";
  return b;
}

std::optional<FailingProcess> firstDifferingProcess(const std::vector<ProcessTrace> &oldRun,
                                                    const std::vector<ProcessTrace> &newRun) {
  // The new run's processes by key, each key's in start order.
  std::map<std::string, std::vector<size_t>> newByKey;
  for (size_t i = 0; i < newRun.size(); ++i)
    newByKey[processKey(newRun[i].header.process)].push_back(i);
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < oldRun.size(); ++i) {
    std::string key = processKey(oldRun[i].header.process);
    size_t k = seen[key]++;
    auto it = newByKey.find(key);
    FailingProcess f;
    f.oldIndex = i;
    f.oldBehaviour = processBehaviour(oldRun[i]);
    if (it == newByKey.end() || k >= it->second.size()) {
      f.why = "the new run did not start it";
      return f;
    }
    f.newIndex = it->second[k];
    ProcessBehaviour a = f.oldBehaviour, b = processBehaviour(newRun[*f.newIndex]);
    for (const auto &[fd, text] : a.output)
      b.output.try_emplace(fd);
    for (const auto &[fd, text] : b.output)
      a.output.try_emplace(fd);
    for (const auto &[fd, oldText] : a.output) {
      const std::string &newText = b.output[fd];
      if (oldText == newText)
        continue;
      size_t at = 0;
      while (at < oldText.size() && at < newText.size() && oldText[at] == newText[at])
        ++at;
      f.outputFd = fd;
      f.why = "its " + fdName(fd) + " differs in line " + std::to_string(lineNumber(oldText, at)) +
              ": " + excerpt(oldText, at) + " in the old run, " + excerpt(newText, at) +
              " in the new run";
      return f;
    }
    if (a.ending != b.ending) {
      f.why = "it ends with " + a.ending + " in the old run and " + b.ending + " in the new run";
      return f;
    }
  }
  return std::nullopt;
}

} // namespace rootline
