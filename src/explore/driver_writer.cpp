// The unit driver's writer: what it knows of the function's file (the structs it can
// build, the functions a pointer can target), and the driver's text, section by section.
#include "driver_writer.h"

#include "rootline/error.h"

#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include <algorithm>

namespace rootline::unit_driver {

DriverWriter::DriverWriter(const llvm::Module &module, const llvm::Function &function,
                           const UnitOptions &options, const fs::path &definingSource,
                           const std::vector<const llvm::Module *> &units,
                           const llvm::Module &definingUnit)
    : module_(module), sp_(function.getSubprogram()), options_(options), source_(definingSource),
      payloads_(findVoidPayloads(module, function, units)) {
  collectFunctionCandidates();
  collectCompleteTypes(definingUnit);
}

// The structs the driver can build: complete where it includes the function's file.
void DriverWriter::collectCompleteTypes(const llvm::Module &definingUnit) {
  llvm::DebugInfoFinder finder;
  finder.processModule(definingUnit);
  for (const llvm::DIType *t : finder.types())
    if (auto *c = llvm::dyn_cast_or_null<llvm::DICompositeType>(t);
        c && !c->isForwardDecl() && !c->getName().empty())
      completeInUnit_.insert(c->getName().str());
    else if (auto *d = llvm::dyn_cast_or_null<llvm::DIDerivedType>(t);
             d && d->getTag() == dw::DW_TAG_typedef)
      if (auto *b = llvm::dyn_cast_or_null<llvm::DICompositeType>(stripped(d->getBaseType()));
          b && !b->isForwardDecl())
        completeInUnit_.insert(d->getName().str());
}

// Functions of the defining file whose address is taken, by the signature they have.
void DriverWriter::collectFunctionCandidates() {
  for (const llvm::Function &f : module_) {
    const llvm::DISubprogram *s = f.getSubprogram();
    if (!s || f.isDeclaration() || f.getName() == "main" || !f.hasAddressTaken())
      continue;
    if (fs::path(s->getFile()->getDirectory().str()) / s->getFile()->getFilename().str() !=
            source_ &&
        fs::path(s->getFile()->getFilename().str()) != source_)
      continue;
    candidates_[declarator(s->getType(), "*")].push_back(f.getName().str());
  }
}

void DriverWriter::note(const std::string &n) {
  if (std::find(notes_.begin(), notes_.end(), n) == notes_.end())
    notes_.push_back(n);
}

std::string DriverWriter::write(const NamedTypes &params, const NamedTypes &globals,
                                std::vector<UnitInput> &inputs) {
  // The body first: it discovers the struct and array types the helpers need.
  Sections s;
  fillGlobals(s, globals, inputs);
  declareParams(s, params, inputs);
  buildParams(s, params, inputs);
  for (const auto &[name, type] : globals)
    print(s.state, "\"\"", name, name, type, "  ");
  writeStructHelpers(s);
  writeArrayHelpers(s);

  std::string fn = sp_->getName().str();
  auto types = sp_->getType()->getTypeArray();
  std::ostringstream out;
  writePreamble(out, fn);
  out << kDriverRuntime << "\n"
      << s.structs.str() << s.decls.str() << "\n"
      << s.arrays.str() << s.structFill.str() << "static void rl_build(void) {\n"
      << s.build.str() << "}\n\n"
      << "static void rl_reset(void) {\n  rl_reset_common();\n"
      << resets_.str() << "}\n\n"
      << "static void rl_print_state(void) {\n"
      << s.state.str() << s.printers.str() << "  rl_print_strings();\n  rl_print_targets();\n}\n\n";
  writeCall(out, fn, types.size() ? types[0] : nullptr, s);
  out << "/* What was read is printed (and flushed) before the call: a crash keeps it. */\n"
      << "static void rl_built(void) {\n"
      << "  fprintf(rl_out, \"numbers read: %d\\n\", rl_reads);\n  fflush(rl_out);\n}\n\n"
      << "#ifndef RL_UNIT_TEST\nint main(void) {\n  rl_limit_stack();\n  rl_out = stdout;\n  "
         "rl_build();\n"
      << "  rl_built();\n  rl_call();\n  return 0;\n}\n#endif\n";
  return out.str();
}

void DriverWriter::fillGlobals(Sections &s, const NamedTypes &globals,
                               std::vector<UnitInput> &inputs) {
  for (const auto &[name, type] : globals) {
    fill(s.build, name, type, "0", "  ", name);
    inputs.push_back({name, spellOr(type, "?"), kindText(type) + " (global)"});
  }
}

// Each parameter's variable (`arg_<name>`), its place in the call, and its reset.
void DriverWriter::declareParams(Sections &s, const NamedTypes &params,
                                 std::vector<UnitInput> &inputs) {
  for (size_t i = 0; i < params.size(); ++i) {
    const auto &[name, type] = params[i];
    std::string arg = "arg_" + identifierOf(name);
    std::string spelled = spell(type);
    Classified c = classify(type);
    if (c.kind == Kind::FunctionPtr)
      s.decls << "static " << declarator(llvm::cast<llvm::DISubroutineType>(c.pointee), "*" + arg)
              << ";\n";
    else if (spelled.empty())
      throw Error("cannot spell the type of parameter '" + name + "' of " + sp_->getName().str() +
                      " (an anonymous struct?): unit mode needs named types",
                  ExitBadInput);
    else
      s.decls << "static " << spelled << (spelled.back() == '*' ? "" : " ") << arg << ";\n";
    inputs.push_back({name, spellOr(type, "?"), kindText(type)});
    s.call << (i ? ", " : "") << arg;
    if (c.kind == Kind::Struct)
      print(s.state, "\"\"", name, arg, type, "  ");
    resets_ << "  memset(&" << arg << ", 0, sizeof " << arg << ");\n";
  }
}

// The parameters are built in order, except that a tag is built before the `void *`
// payload it tags (`measure(void *payload, int kind)`).
void DriverWriter::buildParams(Sections &s, const NamedTypes &params,
                               std::vector<UnitInput> &inputs) {
  // declareParams appended the parameters' entries after the globals'.
  size_t first = inputs.size() - params.size();
  std::vector<bool> built(params.size(), false);
  for (size_t i = 0; i < params.size(); ++i) {
    if (built[i])
      continue;
    const auto &[name, type] = params[i];
    std::string arg = "arg_" + identifierOf(name);
    std::optional<size_t> tag;
    const VoidPayload *payload = paramPayload(params, i, tag);
    if (!payload) {
      fill(s.build, arg, type, "0", "  ", name);
      built[i] = true;
      continue;
    }
    std::string tagLv;
    if (tag) {
      tagLv = "arg_" + identifierOf(params[*tag].first);
      if (!built[*tag])
        fill(s.build, tagLv, params[*tag].second, "0", "  ", params[*tag].first);
      built[*tag] = true;
      inputs[first + i].how = "void * built as the type the code uses it as for the value of " +
                              params[*tag].first + " (or NULL)";
    } else {
      inputs[first + i].how = "void * built as the one type the code uses it as (or NULL)";
    }
    fillPayload(s.build, arg, tagLv, tag ? params[*tag].second : nullptr, *payload, "0", "  ", name,
                0);
    built[i] = true;
  }
}

// The bounds, the free and realloc the function's file calls through, and the file.
void DriverWriter::writePreamble(std::ostringstream &out, const std::string &fn) {
  out << "/* Generated by rootline explore --function " << fn
      << " (docs/explore.md, \"Unit mode\").\n"
      << " * Reads every value and every shape decision of the arguments as a number, builds\n"
      << " * them, calls " << fn << " and prints what it returns and the state it leaves. */\n"
      << "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
      << "static int rl_reads; /* numbers read: printed first, so a test keeps only those */\n"
      << "#ifndef RL_READ\n#define RL_READ(fmt, dst) ((void)(++rl_reads, scanf(fmt, "
         "dst)))\n#endif\n"
      << "#define RL_MAX_DEPTH " << options_.maxDepth << "\n"
      << "#define RL_MAX_OBJECTS " << options_.maxObjects << "\n"
      << "#define RL_MAX_ARRAY " << options_.maxArray << "\n"
      << "#define RL_MAX_ARRAYS 8\n"
      << "#define RL_MAX_STRING " << options_.maxString << "\n"
      << "#define RL_MAX_STRINGS 8\n\n"
      << "/* Frees in the function's file are recorded: freed objects are not printed. */\n"
      << "static void rl_tracked_free(void *p);\n"
      << "static void *rl_tracked_realloc(void *p, size_t n);\n"
      << "#define main rootline_program_main\n#define free rl_tracked_free\n"
      << "#define realloc rl_tracked_realloc\n"
      << "#include \"" << source_.string() << "\"\n"
      << "#undef main\n#undef free\n#undef realloc\n\n";
}

// rl_call: the call, and what it returns and leaves printed.
void DriverWriter::writeCall(std::ostringstream &out, const std::string &fn,
                             const llvm::DIType *ret, const Sections &s) {
  out << "static void rl_call(void) {\n";
  std::string spelled = ret ? spell(ret) : "";
  if (!ret || spelled.empty()) {
    out << "  " << fn << "(" << s.call.str() << ");\n";
  } else {
    out << "  " << spelled << (spelled.back() == '*' ? "" : " ") << "rl_result = " << fn << "("
        << s.call.str() << ");\n";
    std::ostringstream p;
    print(p, "\"\"", "return", "rl_result", ret, "  ");
    out << p.str();
    Classified r = classify(ret);
    if (r.kind == Kind::Unsupported || r.kind == Kind::Union)
      out << "  (void)rl_result;\n";
  }
  out << "  rl_print_state();\n}\n\n";
}

} // namespace rootline::unit_driver
