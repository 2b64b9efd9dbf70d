// libFuzzer target for the DESIGN.md model: any bytes are parsed (within the Markdown input
// bounds, or refused by them) and every typed view is computed; nothing may crash, hang or
// read out of bounds, and a refused text must have no parsed structure.
#include "opdev/contract/design_doc.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  opdev::contract::DesignDoc doc = opdev::contract::ParseDesignDoc(text, "DESIGN.md");
  if (!doc.limit_violation.empty()) {
    if (!doc.sections.empty() || !doc.tables.empty() || doc.limit_line < 1) std::abort();
    return 0;
  }
  for (int i = 0; i <= 11; ++i) {
    (void)doc.FindSection(i);
    (void)doc.TablesIn(i);
    (void)doc.CodeIn(i);
  }
  for (size_t l = 0; l <= doc.lines.size() + 1; l += 7) (void)doc.SectionAt(static_cast<int>(l));
  (void)doc.Lines(1, static_cast<int>(doc.lines.size()));
  int line = 0;
  (void)doc.OpName(&line);
  (void)doc.Modules();
  (void)doc.VectorSelections();
  (void)doc.ConstantsCode();
  (void)doc.Constants();
  (void)doc.Tiles();
  (void)doc.TileGroups();
  (void)doc.AddressMap();
  for (auto s : {opdev::MemSpace::kVec, opdev::MemSpace::kMat, opdev::MemSpace::kAcc}) (void)doc.AddressMap(s);
  (void)doc.HighWaters();
  (void)doc.GetCoreSplit();
  (void)doc.TestCases();
  (void)doc.EventIds();
  (void)doc.SubsectionBody("Wrapper");
  (void)doc.FindTableWithHeaders({"Module"});
  for (const auto& t : doc.tables)
    for (const auto& r : t.rows)
      for (const auto& c : r.cells) {
        (void)opdev::contract::ParseIntLiteral(c);
        (void)opdev::contract::ParseShapeList(c);
        (void)opdev::contract::AllIntegers(c);
      }
  return 0;
}
