// Statements of the unit driver that fill a value: each scalar is read as a number, each
// pointer's shape is a number too (NULL, fresh or an existing object; a length; a
// function), and structs and arrays are filled member by member.
#include "driver_writer.h"

#include <algorithm>

namespace rootline::unit_driver {

namespace {

// scanf's conversion for an integer of `bits` bits, and the pointer type it fills.
std::pair<std::string, std::string> conversion(unsigned bits, bool isSigned) {
  switch (bits) {
  case 8:
    return {isSigned ? "%hhd" : "%hhu", isSigned ? "signed char *" : "unsigned char *"};
  case 16:
    return {isSigned ? "%hd" : "%hu", isSigned ? "short *" : "unsigned short *"};
  case 32:
    return {isSigned ? "%d" : "%u", isSigned ? "int *" : "unsigned *"};
  default:
    return {isSigned ? "%lld" : "%llu", isSigned ? "long long *" : "unsigned long long *"};
  }
}

// The members a struct's others depend on: the tags of its union and its `void *`
// payloads.
std::vector<const llvm::DIDerivedType *> tagMembers(const TaggedUnion &tagged,
                                                    const std::vector<MemberPayload> &payloads) {
  std::vector<const llvm::DIDerivedType *> tags;
  if (tagged.tag)
    tags.push_back(tagged.tag);
  for (const MemberPayload &p : payloads)
    if (p.tag && std::find(tags.begin(), tags.end(), p.tag) == tags.end())
      tags.push_back(p.tag);
  return tags;
}

} // namespace

void DriverWriter::fill(std::ostringstream &o, const std::string &lv, const llvm::DIType *raw,
                        const std::string &depth, const std::string &indent,
                        const std::string &what, unsigned nesting) {
  Classified c = classify(raw);
  switch (c.kind) {
  case Kind::Integer: {
    auto [fmt, ptr] = conversion(c.bits, c.isSigned);
    o << indent << "RL_READ(\"" << fmt << "\", (" << ptr << ")&" << lv << ");\n";
    return;
  }
  case Kind::Bool:
    o << indent << "{ int rl_flag = 0; RL_READ(\"%d\", &rl_flag); " << lv << " = rl_flag != 0; }\n";
    return;
  case Kind::Floating:
    o << indent << "RL_READ(\"" << (c.bits == 32 ? "%f" : "%lf") << "\", &" << lv << ");\n";
    return;
  case Kind::StructPtr:
    fillStructPointer(o, lv, raw, c, depth, indent, what);
    return;
  case Kind::String:
    o << indent << lv << " = rl_string(" << depth << ");\n";
    return;
  case Kind::ScalarArray: {
    std::string elem = spell(llvm::cast<llvm::DIDerivedType>(c.type)->getBaseType());
    o << indent << lv << " = (" << elem << " *)rl_array_" << arrayId(c.type) << "(" << depth
      << ");\n";
    return;
  }
  case Kind::FunctionPtr:
    fillFunctionPointer(o, lv, raw, indent, what);
    return;
  case Kind::Struct:
    fillStruct(o, lv, raw, c, depth, indent, what, nesting);
    return;
  case Kind::Union:
    fillUnion(o, lv, c, depth, indent, what, nesting);
    return;
  case Kind::Array:
    fillArray(o, lv, c, depth, indent, what, nesting);
    return;
  case Kind::Unsupported:
    note(what + " (" + spellOr(raw, "its type") + "): not modelled, left zero");
    return;
  }
}

void DriverWriter::fillStructPointer(std::ostringstream &o, const std::string &lv,
                                     const llvm::DIType *raw, const Classified &c,
                                     const std::string &depth, const std::string &indent,
                                     const std::string &what) {
  if (!buildableHere(c.type)) { // defined in another file: opaque where the driver is
    note(what + " (" + spellOr(raw, "a pointer") +
         "): its struct is not defined in the function's file; it is NULL");
    o << indent << lv << " = 0;\n";
    return;
  }
  // An anonymous struct is known by its typedef's name (`parse_buffer`).
  needStruct(c.pointee, spell(llvm::cast<llvm::DIDerivedType>(c.type)->getBaseType()));
  o << indent << lv << " = rl_pointer_" << structId(c.pointee) << "(" << depth << ");\n";
}

// A number chooses the target among the file's functions of the pointer's signature.
void DriverWriter::fillFunctionPointer(std::ostringstream &o, const std::string &lv,
                                       const llvm::DIType *raw, const std::string &indent,
                                       const std::string &what) {
  auto it = candidates_.find(spell(raw));
  if (it == candidates_.end() || it->second.empty()) {
    note(what + ": no function of the file has its signature and has its address taken; "
                "it is NULL");
    o << indent << lv << " = 0;\n";
    return;
  }
  o << indent << "{ int rl_target = rl_choose_function(); " << lv << " = 0;\n";
  for (size_t i = 0; i < it->second.size(); ++i)
    o << indent << "  if (rl_target == " << i + 1 << ") { " << lv << " = " << it->second[i]
      << "; rl_chose(\"" << what << "\", \"" << it->second[i] << "\"); }\n";
  o << indent << "}\n";
}

void DriverWriter::fillStruct(std::ostringstream &o, const std::string &lv, const llvm::DIType *raw,
                              const Classified &c, const std::string &depth,
                              const std::string &indent, const std::string &what,
                              unsigned nesting) {
  if (nesting > 4)
    return;
  auto *comp = llvm::cast<llvm::DICompositeType>(c.type);
  TaggedUnion tagged = taggedUnion(comp);
  std::vector<MemberPayload> payloads = memberPayloads(raw, comp);
  // Tags first: the union, or the `void *` payloads, are built for their values.
  std::vector<const llvm::DIDerivedType *> first = tagMembers(tagged, payloads);
  for (const llvm::DIDerivedType *t : first)
    fill(o, lv + "." + t->getName().str(), t->getBaseType(), depth, indent,
         what + "." + t->getName().str(), nesting + 1);
  for (const llvm::DINode *n : comp->getElements()) {
    auto *m = llvm::dyn_cast<llvm::DIDerivedType>(n);
    if (!m || m->getTag() != dw::DW_TAG_member)
      continue;
    if (std::find(first.begin(), first.end(), m) != first.end())
      continue;
    std::string name = m->getName().str();
    if (auto p = std::find_if(payloads.begin(), payloads.end(),
                              [&](const MemberPayload &x) { return x.member == m; });
        p != payloads.end()) {
      std::string tagLv = p->tag ? lv + "." + p->tag->getName().str() : "";
      fillPayload(o, lv + "." + name, tagLv, p->tag ? p->tag->getBaseType() : nullptr, *p->payload,
                  depth, indent, what + "." + name, nesting);
      continue;
    }
    if (m == tagged.un) {
      forEachTag(o, lv, tagged, indent, [&](const llvm::DIDerivedType *alt, const std::string &in) {
        fill(o, unionMember(lv, tagged, alt), alt->getBaseType(), depth, in,
             what + "." + alt->getName().str(), nesting + 1);
      });
      continue;
    }
    if (name.empty())
      continue;
    if (m->isBitField()) { // no address to read into: through a number
      Classified mc = classify(m->getBaseType());
      if (mc.kind == Kind::Integer || mc.kind == Kind::Bool)
        o << indent << "{ long long rl_bits = 0; RL_READ(\"%lld\", &rl_bits); " << lv << "." << name
          << " = rl_bits; }\n";
      continue;
    }
    fill(o, lv + "." + name, m->getBaseType(), depth, indent, what + "." + name, nesting + 1);
  }
}

void DriverWriter::fillUnion(std::ostringstream &o, const std::string &lv, const Classified &c,
                             const std::string &depth, const std::string &indent,
                             const std::string &what, unsigned nesting) {
  auto *comp = llvm::cast<llvm::DICompositeType>(c.type);
  for (const llvm::DINode *n : comp->getElements())
    if (auto *m = llvm::dyn_cast<llvm::DIDerivedType>(n);
        m && m->getTag() == dw::DW_TAG_member && !m->getName().empty()) {
      note(what + ": a union is filled through its first member `" + m->getName().str() + "`");
      fill(o, lv + "." + m->getName().str(), m->getBaseType(), depth, indent,
           what + "." + m->getName().str(), nesting + 1);
      return;
    }
}

void DriverWriter::fillArray(std::ostringstream &o, const std::string &lv, const Classified &c,
                             const std::string &depth, const std::string &indent,
                             const std::string &what, unsigned nesting) {
  auto *comp = llvm::cast<llvm::DICompositeType>(c.type);
  uint64_t count = fixedLength(comp);
  if (count == 0) {
    note(what + ": a multi-dimensional or unsized array is left zero");
    return;
  }
  Classified elem = classify(comp->getBaseType());
  if (elem.kind == Kind::Integer && elem.bits == 8) { // a char buffer: a short string
    uint64_t n = std::min<uint64_t>(count - 1, options_.maxString);
    for (uint64_t i = 0; i < n; ++i)
      o << indent << "RL_READ(\"%hhd\", (signed char *)&" << lv << "[" << i << "]);\n"
        << indent << lv << "[" << i << "] |= (" << lv << "[" << i << "] == 0) * 'a';\n";
    return;
  }
  uint64_t n = std::min<uint64_t>(count, options_.maxArray);
  if (n < count)
    note(what + ": the first " + std::to_string(n) + " of " + std::to_string(count) +
         " elements are symbolic, the others zero");
  for (uint64_t i = 0; i < n; ++i)
    fill(o, lv + "[" + std::to_string(i) + "]", comp->getBaseType(), depth, indent,
         what + "[" + std::to_string(i) + "]", nesting + 1);
}

} // namespace rootline::unit_driver
