// The edit screen (docs/debug.md, "Edit evidence"): many one-token edits of the new
// version built into one program, each switched on at run time, and the failing input
// run once per edit. An edit trial is a build of the project and a run; here an edit
// costs a run, so every operator edit of every line a fixing unit holds can be asked,
// and only those that make the failing process pass are built for real (mutation
// testing's "mutant schemata": one program holds every mutant, a variable picks one).
//
// The edits are made on the module's instructions, found by the debug location of the
// operator's token (clang puts a comparison's and an increment's at the operator): a
// comparison's predicate swapped (`==`/`!=`, `<`/`<=`, `>`/`>=`), an increment's step
// negated (`++`/`--`). Each mutated instruction is added beside its original, and a
// select on $ROOTLINE_MUTANT takes one or the other. An edit with no such instruction
// (`&&`/`||`, which compile to branches; a literal; an operator inside a macro) is not
// screened: its real trial decides, as before.
#include "compose/debug_stages.h"

#include "build/cache.h"
#include "rootline/build.h"
#include "rootline/error.h"
#include "rootline/hash.h"
#include "rootline/process.h"

#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include <map>
#include <tuple>

namespace rootline::debug {

namespace {

constexpr const char *kMutantVariable = "ROOTLINE_MUTANT";
constexpr double kBuildSeconds = 60;

using Pred = llvm::CmpInst::Predicate;

// The predicate `op` compiles to, for a comparison like `like` (signed, unsigned or
// floating point); none for another operator.
std::optional<Pred> predicateOf(const std::string &op, Pred like) {
  bool fp = llvm::CmpInst::isFPPredicate(like);
  bool sign = llvm::CmpInst::isSigned(like);
  if (op == "==")
    return fp ? Pred::FCMP_OEQ : Pred::ICMP_EQ;
  if (op == "!=")
    return fp ? Pred::FCMP_UNE : Pred::ICMP_NE;
  if (op == "<")
    return fp ? Pred::FCMP_OLT : sign ? Pred::ICMP_SLT : Pred::ICMP_ULT;
  if (op == "<=")
    return fp ? Pred::FCMP_OLE : sign ? Pred::ICMP_SLE : Pred::ICMP_ULE;
  if (op == ">")
    return fp ? Pred::FCMP_OGT : sign ? Pred::ICMP_SGT : Pred::ICMP_UGT;
  if (op == ">=")
    return fp ? Pred::FCMP_OGE : sign ? Pred::ICMP_SGE : Pred::ICMP_UGE;
  return std::nullopt;
}

// An equality's predicate says nothing of signedness: `a == b` may become `a < b` of
// either; the operands' own instruction does not say, so such edits are not screened.
bool signednessKnown(Pred p, const std::string &to) {
  return llvm::CmpInst::isFPPredicate(p) || !llvm::CmpInst::isEquality(p) || to == "==" ||
         to == "!=";
}

// `inst` with `edit` made, not yet inserted; none when `inst` is not what the edit's
// operator compiles to.
llvm::Instruction *mutated(llvm::Instruction &inst, const TokenEdit &edit) {
  if (auto *cmp = llvm::dyn_cast<llvm::CmpInst>(&inst)) {
    std::optional<Pred> from = predicateOf(edit.from, cmp->getPredicate());
    if (!from || *from != cmp->getPredicate() || !signednessKnown(*from, edit.to))
      return nullptr;
    std::optional<Pred> to = predicateOf(edit.to, cmp->getPredicate());
    if (!to)
      return nullptr;
    llvm::CmpInst *m = llvm::cast<llvm::CmpInst>(cmp->clone());
    m->setPredicate(*to);
    return m;
  }
  bool step = (edit.from == "++" && edit.to == "--") || (edit.from == "--" && edit.to == "++");
  if (!step)
    return nullptr;
  long want = edit.from == "++" ? 1 : -1; // the step the original takes
  if (auto *add = llvm::dyn_cast<llvm::BinaryOperator>(&inst);
      add && add->getOpcode() == llvm::Instruction::Add) {
    auto *c = llvm::dyn_cast<llvm::ConstantInt>(add->getOperand(1));
    if (!c || c->getSExtValue() != want)
      return nullptr;
    llvm::Instruction *m = add->clone();
    m->setHasNoSignedWrap(false);
    m->setHasNoUnsignedWrap(false);
    m->setOperand(1, llvm::ConstantInt::getSigned(c->getType(), -want));
    return m;
  }
  if (auto *gep = llvm::dyn_cast<llvm::GetElementPtrInst>(&inst);
      gep && gep->getNumIndices() == 1) {
    auto *c = llvm::dyn_cast<llvm::ConstantInt>(gep->getOperand(1));
    if (!c || c->getSExtValue() != want)
      return nullptr;
    auto *m = llvm::cast<llvm::GetElementPtrInst>(gep->clone());
    m->setIsInBounds(false);
    m->setOperand(1, llvm::ConstantInt::getSigned(c->getType(), -want));
    return m;
  }
  return nullptr;
}

// The selector: a global the program's first constructor sets from $ROOTLINE_MUTANT
// (-1, no edit, when it is not set).
llvm::GlobalVariable *addSelector(llvm::Module &m) {
  llvm::LLVMContext &ctx = m.getContext();
  llvm::Type *i32 = llvm::Type::getInt32Ty(ctx);
  llvm::PointerType *ptr = llvm::PointerType::getUnqual(ctx);
  auto *sel = new llvm::GlobalVariable(m, i32, false, llvm::GlobalValue::InternalLinkage,
                                       llvm::ConstantInt::getSigned(i32, -1), "rootline.mutant");
  llvm::FunctionCallee getenv =
      m.getOrInsertFunction("getenv", llvm::FunctionType::get(ptr, {ptr}, false));
  llvm::FunctionCallee atoi =
      m.getOrInsertFunction("atoi", llvm::FunctionType::get(i32, {ptr}, false));
  auto *init =
      llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
                             llvm::GlobalValue::InternalLinkage, "rootline.mutant.init", m);
  auto *entry = llvm::BasicBlock::Create(ctx, "entry", init);
  auto *set = llvm::BasicBlock::Create(ctx, "set", init);
  auto *done = llvm::BasicBlock::Create(ctx, "done", init);
  llvm::IRBuilder<> b(entry);
  llvm::Value *name = b.CreateGlobalStringPtr(kMutantVariable);
  llvm::Value *text = b.CreateCall(getenv, {name});
  b.CreateCondBr(b.CreateIsNull(text), done, set);
  b.SetInsertPoint(set);
  b.CreateStore(b.CreateCall(atoi, {text}), sel);
  b.CreateBr(done);
  b.SetInsertPoint(done);
  b.CreateRetVoid();
  llvm::appendToGlobalCtors(m, init, 0);
  return sel;
}

} // namespace

std::map<size_t, bool> screenEdits(const Version &newV, const std::vector<ScreenedEdit> &edits,
                                   const std::function<bool(const RunSummary &)> &passes,
                                   const std::function<bool(const RunSummary &)> &failsAsBefore,
                                   const ProgramInput &input, double runSeconds,
                                   const fs::path &work, const Deadline &deadline, Stages &stages) {
  std::map<size_t, bool> out;
  if (edits.empty() || deadline.expired())
    return out;
  // Each edit's instruction, by the file, line and column of its operator.
  std::map<std::tuple<std::string, unsigned, unsigned>, std::vector<llvm::Instruction *>> at;
  std::unique_ptr<llvm::Module> m = llvm::CloneModule(*newV.module.module);
  for (llvm::Function &f : *m)
    for (llvm::Instruction &i : llvm::instructions(f)) {
      const llvm::DebugLoc &loc = i.getDebugLoc();
      if (!loc || loc.getInlinedAt() ||
          !llvm::isa<llvm::CmpInst, llvm::BinaryOperator, llvm::GetElementPtrInst>(&i))
        continue;
      SourceLocation where = ModuleIndex::locationOf(&i);
      at[{relativeTo(where.path(), newV.root), loc.getLine(), loc.getCol()}].push_back(&i);
    }
  llvm::GlobalVariable *sel = addSelector(*m);
  llvm::Type *i32 = sel->getValueType();
  std::vector<size_t> made; // the edits the program holds, in the order of their numbers
  for (size_t k = 0; k < edits.size(); ++k) {
    const ScreenedEdit &e = edits[k];
    auto found = at.find({e.file, e.line, static_cast<unsigned>(e.edit.column + 1)});
    if (found == at.end())
      continue;
    // Exactly one instruction of the operator's kind there, or the edit is not screened.
    llvm::Instruction *orig = nullptr, *m2 = nullptr;
    for (llvm::Instruction *i : found->second)
      if (llvm::Instruction *candidate = mutated(*i, e.edit)) {
        if (orig) {
          candidate->deleteValue();
          m2->deleteValue();
          orig = m2 = nullptr;
          break;
        }
        orig = i;
        m2 = candidate;
      }
    if (!orig)
      continue;
    m2->insertAfter(orig);
    llvm::IRBuilder<> b(m2->getNextNode());
    llvm::Value *on = b.CreateICmpEQ(b.CreateLoad(i32, sel), llvm::ConstantInt::get(i32, k));
    llvm::Value *pick = b.CreateSelect(on, m2, orig);
    orig->replaceUsesWithIf(pick, [&](llvm::Use &u) { return u.getUser() != pick; });
    made.push_back(k);
  }
  if (made.empty())
    return out;
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  llvm::WriteBitcodeToFile(*m, os);
  os.flush();
  Hasher key;
  key.add("rootline-edit-screen-v1").add(sha256Hex(bytes));
  for (const std::string &l : newV.program.recipe.libs)
    key.add(l);
  for (const std::string &f : newV.program.linkFlags)
    key.add(f);
  fs::path exe = buildcache::executable(key.hex());
  stages.update("the edit screen: " + std::to_string(made.size()) + " edit(s) in one build");
  try {
    buildcache::buildOnce(exe, [&] {
      fs::create_directories(work);
      fs::path bc = work / "screen.bc";
      writeFileAtomic(bc, bytes);
      buildcache::prepare(exe);
      fs::path tmp = exe;
      tmp += uniqueTempSuffix();
      ProcessSpec spec;
      spec.argv = {clangPath(), "-O0", "-w", bc.string()};
      spec.argv.insert(spec.argv.end(), newV.program.linkFlags.begin(),
                       newV.program.linkFlags.end());
      for (const std::string &l : newV.program.recipe.libs)
        spec.argv.push_back("-l" + l);
      spec.argv.insert(spec.argv.end(), {"-lm", "-o", tmp.string()});
      spec.timeoutSeconds = deadline.clamp(kBuildSeconds, 0.5);
      ProcessResult r = runProcess(spec);
      if (!r.exitedWith(0)) {
        std::error_code ec;
        fs::remove(tmp, ec);
        throw Error("the edit screen does not build: " +
                    (r.timedOut ? std::string("the budget ended") : firstErrorLine(r.err)));
      }
      fs::rename(tmp, exe);
    });
  } catch (const Error &e) {
    stages.note(e.what());
    return out;
  }
  // With no edit switched on, the program must fail as the new version does.
  RunSummary none = runInputNatively(exe, input, work / "none", deadline.clamp(runSeconds, 0.1));
  if (!failsAsBefore(none)) {
    stages.note("the edit screen's program does not fail as the new version does (" + none.outcome +
                "): its edits are left to the trials");
    return out;
  }
  for (size_t n = 0; n < made.size(); ++n) {
    if (deadline.expired()) {
      stages.note("the edit screen ran " + std::to_string(n) + " of its " +
                  std::to_string(made.size()) + " edit(s) before the deadline");
      break;
    }
    ProgramInput in = input;
    in.env[kMutantVariable] = std::to_string(made[n]);
    RunSummary r = runInputNatively(exe, in, work / ("m" + std::to_string(made[n])),
                                    deadline.clamp(runSeconds, 0.1));
    out[made[n]] = passes(r);
  }
  return out;
}

} // namespace rootline::debug
