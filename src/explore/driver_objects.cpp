// The objects the unit driver builds lazily, and the C helpers that build them: per
// struct type `rl_pointer_<id>` (NULL, a fresh object or an existing one) with its
// objects and printer, per scalar type `rl_array_<id>` (NULL, or a symbolic length).
#include "driver_writer.h"

#include <algorithm>

namespace rootline::unit_driver {

std::string DriverWriter::structId(const llvm::DIType *structType) {
  auto [it, fresh] = structIds_.try_emplace(structType, "");
  if (fresh) {
    std::string name = llvm::cast<llvm::DICompositeType>(structType)->getName().str();
    std::string base = identifierOf(name.empty() ? structSpelling_[structType] : name);
    std::string id = base;
    for (unsigned k = 2; usedIds_.count(id); ++k)
      id = base + std::to_string(k);
    usedIds_.insert(id);
    it->second = id;
  }
  return it->second;
}

void DriverWriter::needStruct(const llvm::DIType *structType, const std::string &spelled) {
  structSpelling_.try_emplace(structType, spelled);
  if (std::find(structOrder_.begin(), structOrder_.end(), structType) == structOrder_.end())
    structOrder_.push_back(structType);
}

std::string DriverWriter::arrayId(const llvm::DIType *pointerType) {
  const llvm::DIType *elem = llvm::cast<llvm::DIDerivedType>(pointerType)->getBaseType();
  std::string spelled = spell(elem);
  auto [it, fresh] = arrays_.try_emplace(spelled, std::make_pair(identifierOf(spelled), elem));
  (void)fresh;
  return it->second.first;
}

// Struct helpers, closing over the struct types their members lead to: filling one
// struct may need another, appended to structOrder_ while this runs.
void DriverWriter::writeStructHelpers(Sections &s) {
  for (size_t k = 0; k < structOrder_.size(); ++k)
    writeStructHelper(s, structOrder_[k]);
}

void DriverWriter::writeStructHelper(Sections &s, const llvm::DIType *t) {
  std::string id = structId(t), type = structSpelling_[t];
  std::ostringstream fillBody, printBody;
  fill(fillBody, id + "_object[k]", t, "depth + 1", "  ", id);
  print(printBody, "rl_label", "", "(*" + id + "_heap[k])", t, "      ");
  s.structs << "static " << type << " " << id << "_object[RL_MAX_OBJECTS];\n"
            << "static " << type << " *" << id << "_heap[RL_MAX_OBJECTS];\n"
            << "static int " << id << "_count;\n"
            << "static " << type << " *rl_pointer_" << id << "(int depth);\n";
  s.structFill << "static void rl_fill_" << id << "(int k, int depth) {\n"
               << "  (void)k;\n  (void)depth;\n"
               << fillBody.str() << "}\n\n"
               << "static " << type << " *rl_pointer_" << id << "(int depth) {\n"
               << "  int c = rl_choose_pointer();\n"
               << "  if (c <= 0)\n    return 0;\n"
               // An alias is a fork per existing object, never a symbolic index: the
               // pointer stays concrete on each path.
               << "  if (c >= 2) {\n"
               << "    for (int j = 0; j < " << id << "_count; ++j)\n"
               << "      if (c == j + 2)\n        return " << id << "_heap[j];\n"
               << "    return 0;\n  }\n"
               << "  if (depth >= RL_MAX_DEPTH || " << id << "_count >= RL_MAX_OBJECTS)\n"
               << "    return 0;\n"
               << "  int k = " << id << "_count++;\n"
               << "  " << id << "_heap[k] = (" << type << " *)malloc(sizeof(" << type << "));\n"
               << "  rl_object(" << id << "_heap[k], \"" << id << "_object\", k);\n"
               << "  rl_fill_" << id << "(k, depth);\n"
               << "  *" << id << "_heap[k] = " << id << "_object[k];\n"
               << "  return " << id << "_heap[k];\n"
               << "}\n\n";
  s.printers << "  for (int k = 0; k < " << id << "_count; ++k)\n"
             << "    if (!rl_is_freed(" << id << "_heap[k])) {\n"
             << "      char rl_label[64];\n"
             << "      snprintf(rl_label, sizeof rl_label, \"" << id << "_object[%d]\", k);\n"
             << printBody.str() << "    }\n";
  resets_ << "  " << id << "_count = 0;\n  memset(" << id << "_object, 0, sizeof " << id
          << "_object);\n";
}

// Written after the struct helpers, which may need arrays. An array's elements are
// scalars (Kind::ScalarArray: a pointer to an integer, floating or boolean type), read
// as numbers: writing an array helper needs no struct or array helper of its own.
void DriverWriter::writeArrayHelpers(Sections &s) {
  for (const auto &[spelled, entry] : arrays_)
    writeArrayHelper(s, spelled, entry.first, entry.second);
}

void DriverWriter::writeArrayHelper(Sections &s, const std::string &spelled, const std::string &id,
                                    const llvm::DIType *elem) {
  std::ostringstream fillElem, printElem;
  fill(fillElem, id + "_elements[n][i]", elem, "depth + 1", "    ", id + " element");
  print(printElem, "rl_label", "", "((" + spelled + " *)" + id + "_heap[n])[i]", elem, "        ");
  s.arrays << "static " << spelled << " " << id << "_elements[RL_MAX_ARRAYS][RL_MAX_ARRAY];\n"
           << "static int " << id << "_length[RL_MAX_ARRAYS];\n"
           << "static void *" << id << "_heap[RL_MAX_ARRAYS];\n"
           << "static int " << id << "_count;\n"
           << "static void *rl_array_" << id << "(int depth) {\n"
           << "  (void)depth;\n"
           << "  if (" << id << "_count >= RL_MAX_ARRAYS)\n    return 0;\n"
           << "  int n = " << id << "_count++;\n"
           << "  RL_READ(\"%d\", &" << id << "_length[n]);\n"
           << "  if (" << id << "_length[n] < 0)\n    return 0;\n"
           << "  if (" << id << "_length[n] > RL_MAX_ARRAY)\n    " << id
           << "_length[n] = RL_MAX_ARRAY;\n"
           << "  for (int i = 0; i < " << id << "_length[n]; ++i) {\n"
           << fillElem.str() << "  }\n"
           << "  " << id << "_heap[n] = malloc(sizeof(" << spelled << ") * (" << id
           << "_length[n] + 1));\n"
           << "  memcpy(" << id << "_heap[n], " << id << "_elements[n], sizeof(" << spelled
           << ") * " << id << "_length[n]);\n"
           << "  rl_object(" << id << "_heap[n], \"" << id << "_array\", n);\n"
           << "  return " << id << "_heap[n];\n}\n\n";
  s.printers << "  for (int n = 0; n < " << id << "_count; ++n)\n"
             << "    if (" << id << "_heap[n] && !rl_is_freed(" << id << "_heap[n]))\n"
             << "      for (int i = 0; i < " << id << "_length[n]; ++i) {\n"
             << "        char rl_label[64];\n"
             << "        snprintf(rl_label, sizeof rl_label, \"" << id
             << "_array[%d][%d]\", n, i);\n"
             << printElem.str() << "      }\n";
  resets_ << "  " << id << "_count = 0;\n  memset(" << id << "_heap, 0, sizeof " << id
          << "_heap);\n";
}

} // namespace rootline::unit_driver
