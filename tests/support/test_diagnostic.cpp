// Tests of the Diagnostic record: text and JSON renderings, collection helpers.
#include <catch2/catch.hpp>

#include "opdev/support/diagnostic.h"

using opdev::Diagnostic;
using opdev::Diagnostics;

TEST_CASE("diagnostic renders compiler-style text") {
  Diagnostics diags;
  auto& d = diags.Error("DESIGN-TABLE-MISSING", opdev::category::kDesignViolation,
                        "custom/softmax/DESIGN.md", 42, "the §3 address map has no table");
  d.section = "§3";
  d.evidence = "## §3 片上地址规划";
  CHECK(d.ToText() ==
        "custom/softmax/DESIGN.md:42: error[DESIGN-TABLE-MISSING]: the §3 address map has no "
        "table (design_violation)\n    section: §3\n    evidence: ## §3 片上地址规划");
  d.column = 7;
  CHECK(d.ToText().rfind("custom/softmax/DESIGN.md:42:7: error[", 0) == 0);
  CHECK(diags.ErrorCount() == 1);
  CHECK(diags.WarningCount() == 0);
}

TEST_CASE("diagnostic JSON round-trips") {
  Diagnostic d;
  d.code = "MUTEX-DUPLICATE";
  d.severity = opdev::Severity::kWarning;
  d.category = "design_violation";
  d.file = "DESIGN.md";
  d.line = 3;
  d.column = 2;
  d.section = "§2";
  d.message = "m";
  d.evidence = "e";
  auto back = Diagnostic::FromJson(d.ToJson());
  REQUIRE(back.has_value());
  CHECK(back->ToJson() == d.ToJson());
  CHECK(back->severity == opdev::Severity::kWarning);
  CHECK_FALSE(Diagnostic::FromJson(boost::json::value(3)).has_value());
}

TEST_CASE("diagnostics sort by file, line, code") {
  Diagnostics diags;
  diags.Error("B", "x", "b.md", 1, "");
  diags.Error("A", "x", "a.md", 9, "");
  diags.Warning("C", "x", "a.md", 2, "");
  diags.Sort();
  CHECK(diags.items()[0].code == "C");
  CHECK(diags.items()[1].code == "A");
  CHECK(diags.items()[2].code == "B");
  CHECK(diags.HasCode("A"));
  CHECK_FALSE(diags.HasCode("Z"));
}
