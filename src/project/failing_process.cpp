// The failing process of a test: what each traced process did that others can see, read
// from its trace, and the first process of the old run whose counterpart in the new run
// did otherwise in more than the text the change edited.
#include "rootline/project.h"

#include <algorithm>
#include <map>
#include <sstream>

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

// A path's last component ("notes.txt" of "/tmp/tmp.X/notes.txt"); the whole of a name
// without a slash.
std::string lastComponent(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The same key without the directory and with each argument's last path component
// only: a script's `mktemp -d` directory differs from run to run.
std::string looseProcessKey(const TraceProcess &p) {
  std::string key = p.exe + "\n" + (p.parentSeq ? "fork\n" : "main\n");
  for (const auto &a : p.argv)
    key += lastComponent(a) + '\0';
  return key;
}

// The new run's written files under the old run's names: the same name, else the same
// last component, in order (a file in a script's `mktemp -d` directory).
std::map<std::string, std::string> byOldNames(const std::map<std::string, std::string> &old,
                                              std::map<std::string, std::string> written) {
  std::map<std::string, std::string> out;
  for (const auto &[name, text] : old)
    if (auto it = written.find(name); it != written.end()) {
      out[name] = std::move(it->second);
      written.erase(it);
    }
  for (const auto &[name, text] : old) {
    if (out.count(name))
      continue;
    auto it = std::find_if(written.begin(), written.end(), [&](const auto &w) {
      return lastComponent(w.first) == lastComponent(name);
    });
    if (it != written.end()) {
      out[name] = std::move(it->second);
      written.erase(it);
    }
  }
  for (auto &[name, text] : written)
    out.try_emplace(name, std::move(text));
  return out;
}

// What the new process wrote, with the paths it had where the old one had others (its
// `mktemp -d` directory, an argument in it) replaced by the old one's: a name chosen at
// random in each run is no difference between the versions.
void inOldRunsNames(const TraceProcess &oldP, const TraceProcess &newP, ProcessBehaviour &b) {
  std::vector<std::pair<std::string, std::string>> names; // new -> old
  auto add = [&](const std::string &n, const std::string &o) {
    if (n != o && n.size() > 1 && n[0] == '/' && o.size() > 1 && o[0] == '/')
      names.emplace_back(n, o);
  };
  add(newP.cwd, oldP.cwd);
  for (size_t k = 0; k < newP.argv.size() && k < oldP.argv.size(); ++k) {
    add(newP.argv[k], oldP.argv[k]);
    add(fs::path(newP.argv[k]).parent_path().string(),
        fs::path(oldP.argv[k]).parent_path().string());
  }
  if (names.empty())
    return;
  std::sort(names.begin(), names.end(),
            [](const auto &x, const auto &y) { return x.first.size() > y.first.size(); });
  auto rename = [&](std::string &text) {
    for (const auto &[n, o] : names)
      for (size_t at = 0; (at = text.find(n, at)) != std::string::npos; at += o.size())
        text.replace(at, n.size(), o);
  };
  for (auto &[fd, text] : b.output)
    rename(text);
  std::map<std::string, std::string> written;
  for (auto &[name, text] : b.written) {
    std::string n = name;
    rename(n);
    rename(text);
    written[n] = std::move(text);
  }
  b.written = std::move(written);
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
  // The files it wrote: "<i> <name>" lines in p<N>.written, each copied as p<N>.out<i>.
  fs::path base = p.trace;
  base.replace_extension();
  std::error_code ec;
  if (fs::exists(base.string() + ".fds", ec)) {
    std::istringstream sinks(readFile(base.string() + ".fds"));
    uint64_t fd;
    std::string target;
    while (sinks >> fd >> target)
      if (target == "/dev/null" || target == "/dev/full")
        b.unseen.insert(fd);
  }
  std::map<std::string, std::string> nameOf; // "<i>" -> name
  if (fs::exists(base.string() + ".written", ec)) {
    std::istringstream index(readFile(base.string() + ".written"));
    std::string line;
    while (std::getline(index, line)) {
      size_t space = line.find(' ');
      if (space == std::string::npos)
        continue;
      fs::path copy = base.string() + ".out" + line.substr(0, space);
      nameOf[line.substr(0, space)] = line.substr(space + 1);
      b.written[line.substr(space + 1)] = fs::exists(copy, ec) ? readFile(copy) : std::string();
    }
  }
  // "<fd> <i>": stdout or stderr pointed at written file i (its writes were logged apart).
  if (fs::exists(base.string() + ".into", ec)) {
    std::istringstream into(readFile(base.string() + ".into"));
    uint64_t fd;
    std::string index;
    while (into >> fd >> index)
      if (fd == 2 && nameOf.count(index))
        b.stderrFile = nameOf[index];
  }
  return b;
}

std::vector<std::optional<size_t>> processCounterparts(const std::vector<ProcessTrace> &oldRun,
                                                       const std::vector<ProcessTrace> &newRun) {
  std::map<std::string, std::vector<size_t>> newByKey, newByLooseKey;
  for (size_t i = 0; i < newRun.size(); ++i) {
    newByKey[processKey(newRun[i].header.process)].push_back(i);
    newByLooseKey[looseProcessKey(newRun[i].header.process)].push_back(i);
  }
  std::vector<std::optional<size_t>> out(oldRun.size());
  std::vector<bool> taken(newRun.size(), false);
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < oldRun.size(); ++i) {
    std::string key = processKey(oldRun[i].header.process);
    size_t k = seen[key]++;
    auto it = newByKey.find(key);
    if (it != newByKey.end() && k < it->second.size()) {
      out[i] = it->second[k];
      taken[*out[i]] = true;
    }
  }
  for (size_t i = 0; i < oldRun.size(); ++i) {
    if (out[i])
      continue;
    for (size_t j : newByLooseKey[looseProcessKey(oldRun[i].header.process)])
      if (!taken[j]) {
        out[i] = j;
        taken[j] = true;
        break;
      }
  }
  return out;
}

std::vector<FailingProcess> differingProcesses(const std::vector<ProcessTrace> &oldRun,
                                               const std::vector<ProcessTrace> &newRun,
                                               const EditedText &edited) {
  std::vector<std::optional<size_t>> counterpart = processCounterparts(oldRun, newRun);
  std::vector<FailingProcess> out;
  for (size_t i = 0; i < oldRun.size(); ++i) {
    FailingProcess f;
    f.oldIndex = i;
    f.oldBehaviour = processBehaviour(oldRun[i]);
    if (!counterpart[i]) {
      f.why = "the new run did not start it";
      out.push_back(std::move(f));
      continue;
    }
    f.newIndex = counterpart[i];
    ProcessBehaviour a = f.oldBehaviour, b = processBehaviour(newRun[*f.newIndex]);
    inOldRunsNames(oldRun[i].header.process, newRun[*f.newIndex].header.process, b);
    for (const auto &[fd, text] : a.output)
      b.output.try_emplace(fd);
    for (const auto &[fd, text] : b.output)
      a.output.try_emplace(fd);
    // Files it wrote are compared by name, as they were when it ended (a descriptor may
    // stand for several files in turn).
    bool byName = !a.written.empty() || !b.written.empty();
    b.written = byOldNames(a.written, std::move(b.written));
    for (const auto &[name, text] : a.written)
      b.written.try_emplace(name);
    for (const auto &[name, text] : b.written)
      a.written.try_emplace(name);
    // Its differing outputs: stdout, the files it wrote by name, then its diagnostics.
    struct Differing {
      std::optional<uint64_t> fd;
      std::string file;
      const std::string *oldText, *newText;
      std::vector<std::string> editedWords;
    };
    // A reader that stops early (`mawk -W version | head -n 1`) ends its writer with
    // SIGPIPE whenever the writer is the slower one: timing, not the version. Such a
    // process's outputs count up to where the shorter one ends, its ending not at all.
    bool cutByReader = a.ending == "signal 13" || b.ending == "signal 13";
    auto differs = [&](const std::string &x, const std::string &y) {
      if (!cutByReader)
        return x != y;
      size_t n = std::min(x.size(), y.size());
      return x.compare(0, n, y, 0, n) != 0;
    };
    if (cutByReader)
      b.ending = a.ending;
    // A stdout or stderr the program pointed at a file of its own (`freopen (name, "w",
    // stdout)`: diffstat -o FILE) wrote that file: the runtime logged those writes apart
    // (on descriptors 1001 and 1002), and the file is compared, and run alone, as a file.
    // Diagnostics come last: stderr, and a file stderr pointed at (diffstat -e FILE).
    auto isDiagnostics = [&](const std::string &name) {
      return a.stderrFile == name || b.stderrFile == name;
    };
    std::vector<Differing> differing;
    auto addOutput = [&](uint64_t fd) {
      if (differs(a.output[fd], b.output[fd]) && !a.unseen.count(fd))
        differing.push_back({fd, "", &a.output[fd], &b.output[fd], {}});
    };
    auto addFiles = [&](bool diagnostics) {
      for (const auto &[name, oldText] : a.written)
        if (isDiagnostics(name) == diagnostics && oldText != b.written[name])
          differing.push_back({std::nullopt, name, &oldText, &b.written[name], {}});
    };
    addOutput(1);
    addFiles(false);
    addOutput(2);
    addFiles(true);
    if (!byName) // another descriptor, where no file it wrote by name says what went there
      for (const auto &[fd, oldText] : a.output)
        if (fd > 2 && differs(oldText, b.output[fd]) && !a.unseen.count(fd))
          differing.push_back({fd, "", &oldText, &b.output[fd], {}});
    bool onlyEdited = a.ending == b.ending;
    for (Differing &d : differing) {
      d.editedWords = editedTextOnly(*d.oldText, *d.newText, edited);
      onlyEdited = onlyEdited && !d.editedWords.empty();
      for (const std::string &w : d.editedWords)
        if (std::find(f.editedWords.begin(), f.editedWords.end(), w) == f.editedWords.end())
          f.editedWords.push_back(w);
    }
    if (!onlyEdited)
      f.editedWords.clear();
    // The output debugged: the first that differs in more than edited text (a banner
    // with the release on stdout, the result in a file), else the first.
    auto shown = std::find_if(differing.begin(), differing.end(),
                              [](const Differing &d) { return d.editedWords.empty(); });
    if (shown == differing.end() && !differing.empty())
      shown = differing.begin();
    if (shown != differing.end()) {
      const std::string &oldText = *shown->oldText, &newText = *shown->newText;
      size_t at = 0;
      while (at < oldText.size() && at < newText.size() && oldText[at] == newText[at])
        ++at;
      f.outputFd = shown->fd;
      f.outputFile = shown->file;
      f.why = (shown->fd ? "its " + fdName(*shown->fd) : "the file " + shown->file + " it writes") +
              " differs in line " + std::to_string(lineNumber(oldText, at)) + ": " +
              excerpt(oldText, at) + " in the old run, " + excerpt(newText, at) + " in the new run";
    } else if (a.ending != b.ending) {
      f.why = "it ends with " + a.ending + " in the old run and " + b.ending + " in the new run";
    }
    if (!f.why.empty())
      out.push_back(std::move(f));
  }
  return out;
}

std::optional<FailingProcess> firstDifferingProcess(const std::vector<ProcessTrace> &oldRun,
                                                    const std::vector<ProcessTrace> &newRun,
                                                    const EditedText &edited) {
  return failingProcessOf(differingProcesses(oldRun, newRun, edited));
}

const ProjectProgram *programOf(const BuiltProject &project, const TraceProcess &p) {
  fs::path rel = fs::path(p.exe).lexically_relative(projectWorkPath());
  for (const auto &prog : project.programs)
    if (rel == fs::path(prog.path))
      return &prog;
  return nullptr;
}

std::optional<FailingProcess> failingProcessOf(const std::vector<FailingProcess> &differing) {
  if (differing.empty())
    return std::nullopt;
  // A process with no counterpart in the new run cannot be debugged, and its absence
  // may be timing (a writer killed by its reader's early exit before its trace began):
  // a process that ran in both and differs in more than edited text comes first.
  auto real = std::find_if(differing.begin(), differing.end(), [](const FailingProcess &f) {
    return f.editedWords.empty() && f.newIndex;
  });
  if (real == differing.end())
    real = std::find_if(differing.begin(), differing.end(),
                        [](const FailingProcess &f) { return f.editedWords.empty(); });
  return real == differing.end() ? differing.front() : *real;
}

} // namespace rootline
