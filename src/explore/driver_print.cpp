// Statements of the unit driver that print a value as `label = value` lines: what the
// function returns and the state it leaves, which the generated tests compare. A
// pointer prints as the object it points to (rl_print_pointer), a function pointer as
// the name of its target.
#include "driver_writer.h"

#include <algorithm>

namespace rootline::unit_driver {

namespace {

void printPointer(std::ostringstream &o, const std::string &prefix, const std::string &suffix,
                  const std::string &lv, const std::string &indent) {
  o << indent << "rl_print_pointer(" << prefix << ", \"" << suffix << "\", (const void *)" << lv
    << ");\n";
}

} // namespace

void DriverWriter::print(std::ostringstream &o, const std::string &prefix,
                         const std::string &suffix, const std::string &lv, const llvm::DIType *raw,
                         const std::string &indent, unsigned nesting) {
  Classified c = classify(raw);
  std::string head = indent + "fprintf(rl_out, \"%s" + suffix;
  switch (c.kind) {
  case Kind::Integer:
    o << head << " = %" << (c.isSigned ? "lld" : "llu") << "\\n\", " << prefix << ", ("
      << (c.isSigned ? "long long" : "unsigned long long") << ")" << lv << ");\n";
    return;
  case Kind::Bool:
    o << head << " = %d\\n\", " << prefix << ", (int)" << lv << ");\n";
    return;
  case Kind::Floating:
    o << head << " = %g\\n\", " << prefix << ", (double)" << lv << ");\n";
    return;
  case Kind::FunctionPtr:
    printFunctionPointer(o, prefix, suffix, lv, raw, indent);
    return;
  case Kind::StructPtr:
  case Kind::String:
  case Kind::ScalarArray:
    printPointer(o, prefix, suffix, lv, indent);
    return;
  case Kind::Struct:
    printStruct(o, prefix, suffix, lv, raw, c, indent, nesting);
    return;
  case Kind::Array:
    printArray(o, prefix, suffix, lv, c, indent, nesting);
    return;
  case Kind::Union:
  case Kind::Unsupported:
    return;
  }
}

// By the name of the function it points to, when it is one of the candidates.
void DriverWriter::printFunctionPointer(std::ostringstream &o, const std::string &prefix,
                                        const std::string &suffix, const std::string &lv,
                                        const llvm::DIType *raw, const std::string &indent) {
  auto it = candidates_.find(spell(raw));
  if (it == candidates_.end() || it->second.empty()) {
    printPointer(o, prefix, suffix, lv, indent);
    return;
  }
  o << indent << "fprintf(rl_out, \"%s" << suffix << " = %s\\n\", " << prefix << ", ";
  for (const auto &f : it->second)
    o << lv << " == " << f << " ? \"" << f << "\" : ";
  o << lv << " ? \"(other function)\" : \"NULL\");\n";
}

void DriverWriter::printStruct(std::ostringstream &o, const std::string &prefix,
                               const std::string &suffix, const std::string &lv,
                               const llvm::DIType *raw, const Classified &c,
                               const std::string &indent, unsigned nesting) {
  if (nesting > 4)
    return;
  auto *comp = llvm::cast<llvm::DICompositeType>(c.type);
  TaggedUnion tagged = taggedUnion(comp);
  std::vector<MemberPayload> payloads = memberPayloads(raw, comp);
  for (const llvm::DINode *n : comp->getElements()) {
    auto *m = llvm::dyn_cast<llvm::DIDerivedType>(n);
    if (!m || m->getTag() != dw::DW_TAG_member || m->isBitField())
      continue;
    std::string name = m->getName().str();
    if (llvm::any_of(payloads, [&](const MemberPayload &x) { return x.member == m; })) {
      printPointer(o, prefix, suffix + "." + name, lv + "." + name, indent);
      continue;
    }
    if (m == tagged.un) { // the member the tag says is there
      forEachTag(o, lv, tagged, indent, [&](const llvm::DIDerivedType *alt, const std::string &in) {
        std::string path = unionMember(lv, tagged, alt);
        print(o, prefix, suffix + path.substr(lv.size()), path, alt->getBaseType(), in,
              nesting + 1);
      });
      continue;
    }
    if (name.empty())
      continue;
    print(o, prefix, suffix + "." + name, lv + "." + name, m->getBaseType(), indent, nesting + 1);
  }
}

void DriverWriter::printArray(std::ostringstream &o, const std::string &prefix,
                              const std::string &suffix, const std::string &lv, const Classified &c,
                              const std::string &indent, unsigned nesting) {
  auto *comp = llvm::cast<llvm::DICompositeType>(c.type);
  uint64_t count = fixedLength(comp);
  if (count == 0)
    return;
  Classified elem = classify(comp->getBaseType());
  if (elem.kind == Kind::Integer && elem.bits == 8) { // a char buffer: printed as text
    o << indent << "rl_print_text(" << prefix << ", \"" << suffix << "\", (const char *)" << lv
      << ", " << count << ");\n";
    return;
  }
  for (uint64_t i = 0; i < std::min<uint64_t>(count, options_.maxArray); ++i)
    print(o, prefix, suffix + "[" + std::to_string(i) + "]", lv + "[" + std::to_string(i) + "]",
          comp->getBaseType(), indent, nesting + 1);
}

} // namespace rootline::unit_driver
