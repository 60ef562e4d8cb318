// Values of the unit driver whose type a tag decides: the member of a tagged union the
// tag says is there, and a `void *` built as the type the code uses it as for the tag's
// value (void_payloads.h).
#include "driver_writer.h"

#include "support/debug_types.h"

#include <algorithm>
#include <cctype>

namespace rootline::unit_driver {

namespace {

// The struct's first named enum member and its first union member, when it has both.
void findTagAndUnion(const llvm::DICompositeType *comp, TaggedUnion &t) {
  for (const llvm::DINode *n : comp->getElements()) {
    auto *m = llvm::dyn_cast<llvm::DIDerivedType>(n);
    if (!m || m->getTag() != dw::DW_TAG_member)
      continue;
    auto *mt = llvm::dyn_cast_or_null<llvm::DICompositeType>(stripped(m->getBaseType()));
    if (!mt)
      continue;
    if (!t.tag && mt->getTag() == dw::DW_TAG_enumeration_type && !m->getName().empty())
      t.tag = m;
    else if (!t.un && mt->getTag() == dw::DW_TAG_union_type)
      t.un = m;
  }
}

std::string lower(std::string x) {
  for (char &ch : x)
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return x;
}

// The union member an enumerator names (the longest name it contains), else the largest:
// the variant with the most to build (`bin`).
const llvm::DIDerivedType *alternativeFor(const std::string &enumerator,
                                          const std::vector<const llvm::DIDerivedType *> &alts) {
  const llvm::DIDerivedType *chosen = nullptr;
  for (auto *a : alts)
    if (lower(enumerator).find(lower(a->getName().str())) != std::string::npos &&
        (!chosen || a->getName().size() > chosen->getName().size()))
      chosen = a;
  if (!chosen)
    for (auto *a : alts)
      if (!chosen || a->getSizeInBits() > chosen->getSizeInBits())
        chosen = a;
  return chosen;
}

} // namespace

TaggedUnion taggedUnion(const llvm::DICompositeType *comp) {
  TaggedUnion t;
  findTagAndUnion(comp, t);
  if (!t.tag || !t.un)
    return {};
  auto *en = llvm::cast<llvm::DICompositeType>(stripped(t.tag->getBaseType()));
  auto *un = llvm::cast<llvm::DICompositeType>(stripped(t.un->getBaseType()));
  std::vector<const llvm::DIDerivedType *> alts;
  for (const llvm::DINode *n : un->getElements())
    if (auto *m = llvm::dyn_cast<llvm::DIDerivedType>(n);
        m && m->getTag() == dw::DW_TAG_member && !m->getName().empty())
      alts.push_back(m);
  if (alts.empty())
    return {};
  for (const llvm::DINode *n : en->getElements())
    if (auto *e = llvm::dyn_cast<llvm::DIEnumerator>(n))
      t.cases.push_back({e->getName().str(), alternativeFor(e->getName().str(), alts)});
  if (t.cases.empty())
    return {};
  return t;
}

std::string unionMember(const std::string &lv, const TaggedUnion &t,
                        const llvm::DIDerivedType *alt) {
  std::string un = t.un->getName().empty() ? lv : lv + "." + t.un->getName().str();
  return un + "." + alt->getName().str();
}

void forEachTag(std::ostringstream &o, const std::string &lv, const TaggedUnion &t,
                const std::string &indent,
                const std::function<void(const llvm::DIDerivedType *, const std::string &)> &body) {
  std::string tag = lv + "." + t.tag->getName().str();
  for (size_t i = 0; i < t.cases.size(); ++i) {
    o << indent << (i ? "} else if (" : "if (") << tag << " == " << t.cases[i].first << ") {\n";
    body(t.cases[i].second, indent + "  ");
  }
  o << indent << "} else {\n";
  body(t.cases.front().second, indent + "  ");
  o << indent << "}\n";
}

std::string tagCondition(const std::string &tagLv, const llvm::DIType *tagType,
                         const std::vector<int64_t> &values) {
  auto *en = llvm::dyn_cast_or_null<llvm::DICompositeType>(stripped(tagType));
  std::string out;
  for (int64_t v : values) {
    std::string spelled = std::to_string(v);
    if (en && en->getTag() == dw::DW_TAG_enumeration_type)
      for (const llvm::DINode *n : en->getElements())
        if (auto *e = llvm::dyn_cast<llvm::DIEnumerator>(n); e && e->getValue().getSExtValue() == v)
          spelled = e->getName().str();
    out += (out.empty() ? "" : " || ") + tagLv + " == " + spelled;
  }
  return out;
}

std::vector<MemberPayload> DriverWriter::memberPayloads(const llvm::DIType *raw,
                                                        const llvm::DICompositeType *comp) {
  std::vector<MemberPayload> out;
  std::string name = structNameOf(raw);
  if (name.empty())
    return out;
  for (const llvm::DINode *n : comp->getElements()) {
    auto *m = llvm::dyn_cast<llvm::DIDerivedType>(n);
    if (!m || m->getTag() != dw::DW_TAG_member || m->getName().empty() ||
        !isVoidPointer(m->getBaseType()))
      continue;
    auto it = payloads_.members.find({name, m->getOffsetInBits()});
    if (it == payloads_.members.end() || it->second.cases.empty())
      continue;
    MemberPayload p{m, nullptr, &it->second};
    if (it->second.tagged) {
      for (const llvm::DINode *k : comp->getElements())
        if (auto *t = llvm::dyn_cast<llvm::DIDerivedType>(k);
            t && t->getTag() == dw::DW_TAG_member && !t->isBitField() && !t->getName().empty() &&
            t->getOffsetInBits() == it->second.tag && isTagType(t->getBaseType()))
          p.tag = t;
      if (!p.tag)
        continue;
    }
    out.push_back(p);
  }
  return out;
}

// The payload a `void *` parameter holds, and the parameter that tags it.
const VoidPayload *DriverWriter::paramPayload(const NamedTypes &params, size_t i,
                                              std::optional<size_t> &tag) {
  if (!isVoidPointer(params[i].second))
    return nullptr;
  auto it = payloads_.params.find(static_cast<unsigned>(i + 1));
  if (it == payloads_.params.end() || it->second.cases.empty())
    return nullptr;
  if (it->second.tagged) {
    size_t t = it->second.tag - 1;
    if (t >= params.size() || t == i || !isTagType(params[t].second))
      return nullptr;
    tag = t;
  }
  return &it->second;
}

// A pointer to a scalar, or to a struct the function's file defines (a payload may be
// used as a type of another file, opaque here: `Reprog *` in mujs's jsregexp.c).
bool DriverWriter::buildableHere(const llvm::DIType *pointer) {
  const llvm::DIType *base = llvm::cast<llvm::DIDerivedType>(stripped(pointer))->getBaseType();
  if (!llvm::isa_and_nonnull<llvm::DICompositeType>(stripped(base)))
    return true;
  return completeInUnit_.count(structNameOf(base)) > 0;
}

DriverWriter::PayloadCases DriverWriter::payloadCases(const VoidPayload &p,
                                                      const std::string &what) {
  PayloadCases sorted;
  for (const PayloadCase &c : p.cases) {
    if (spell(c.pointer).empty() || !buildableHere(c.pointer)) {
      note(what + ": used as " + spellOr(c.pointer, "a type") + " at " + c.site +
           ", which the function's file does not define; it is NULL there");
      if (c.otherwise)
        sorted.otherUnbuilt = true;
      else
        sorted.unbuilt.insert(sorted.unbuilt.end(), c.tags.begin(), c.tags.end());
      continue;
    }
    if (c.otherwise) {
      sorted.other = sorted.other ? sorted.other : &c;
    } else {
      sorted.cases.push_back(&c);
      sorted.covered.insert(c.tags.begin(), c.tags.end());
    }
  }
  return sorted;
}

// `{ struct circle *rl_payload = 0; ...fill it...; lv = (void *)rl_payload; }`
void DriverWriter::buildPayload(std::ostringstream &o, const std::string &lv, const PayloadCase &c,
                                const std::string &depth, const std::string &in,
                                const std::string &what, unsigned nesting) {
  std::string spelled = spell(c.pointer);
  o << in << "{\n" << in << "  " << spelled << " rl_payload = 0;\n";
  fill(o, "rl_payload", c.pointer, depth, in + "  ", what, nesting + 1);
  o << in << "  " << lv << " = (void *)rl_payload;\n"
    << in << "  rl_chose(\"" << what << "\", \"" << spelled << "\");\n"
    << in << "}\n";
}

void DriverWriter::fillPayload(std::ostringstream &o, const std::string &lv,
                               const std::string &tagLv, const llvm::DIType *tagType,
                               const VoidPayload &p, const std::string &depth,
                               const std::string &indent, const std::string &what,
                               unsigned nesting) {
  PayloadCases sorted = payloadCases(p, what);
  size_t branches = 0;
  auto branch = [&](const std::string &condition) {
    o << indent << (branches++ ? "} else if (" : "if (") << condition << ") {\n";
  };
  for (const PayloadCase *c : sorted.cases) {
    branch(tagCondition(tagLv, tagType, c->tags));
    buildPayload(o, lv, *c, depth, indent + "  ", what, nesting);
  }
  if (!sorted.unbuilt.empty()) {
    branch(tagCondition(tagLv, tagType, sorted.unbuilt));
    o << indent << "  " << lv << " = 0;\n";
  }
  if (sorted.other) { // the values the else side excludes, and no case names, get no type
    std::vector<int64_t> excluded;
    for (int64_t v : sorted.other->tags)
      if (!sorted.covered.count(v))
        excluded.push_back(v);
    if (!excluded.empty()) {
      branch(tagCondition(tagLv, tagType, excluded));
      o << indent << "  " << lv << " = rl_opaque();\n";
    }
  }
  std::string in = branches ? indent + "  " : indent;
  if (branches)
    o << indent << "} else {\n";
  if (sorted.other)
    buildPayload(o, lv, *sorted.other, depth, in, what, nesting);
  else
    o << in << lv << (sorted.otherUnbuilt ? " = 0;\n" : " = rl_opaque();\n");
  if (branches)
    o << indent << "}\n";
}

} // namespace rootline::unit_driver
