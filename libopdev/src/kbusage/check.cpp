// The verifier's view of KB_USAGE.json (see check.h).
#include "opdev/kbusage/check.h"

#include "opdev/kbusage/invariant_prefix.h"
#include "opdev/kbusage/python_symbols.h"
#include "opdev/kbusage/usage_inputs.h"
#include "opdev/plan/naming.h"
#include "opdev/support/file_io.h"

#include "contract/json_locator.h"

#include <boost/json.hpp>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <map>
#include <set>

namespace fs = std::filesystem;

namespace opdev::kbusage {

boost::json::object CheckSummary::ToJson() const {
  boost::json::object o;
  o["classes"] = classes;
  o["records"] = records;
  o["final_records"] = final_records;
  o["staged_records"] = staged_records;
  return o;
}

namespace {

std::string KindName(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null: return "null";
    case boost::json::kind::bool_: return "boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64: return "integer";
    case boost::json::kind::double_: return "float";
    case boost::json::kind::string: return "string";
    case boost::json::kind::array: return "array";
    case boost::json::kind::object: return "object";
  }
  return "?";
}

class ClassChecker {
 public:
  ClassChecker(const UsageInputs& in, const contract::KbSelection& sel, const CheckOptions& opts,
               Diagnostics& d, CheckSummary& sum)
      : in_(in), sel_(sel), opts_(opts), d_(d), sum_(sum) {}

  void Run() {
    std::string rel = UsageInputs::UsageRel(sel_);
    path_ = (fs::path(in_.op_dir) / rel).string();
    const bool needs_file = opts_.mode != plan::Mode::kL1Module;
    std::error_code ec;
    if (!fs::exists(path_, ec)) {
      if (needs_file) {
        Err(code::kChkMissing, 0, "KB_USAGE.json of class '" + sel_.class_id + "' is missing; in " +
                                      std::string(plan::ModeName(opts_.mode)) +
                                      " every class's usage file must exist");
      }
      return;
    }
    auto text = ReadTextFile(path_);
    if (!text.ok()) {
      Err(code::kChkUnreadable, 0, "cannot read: " + std::string(text.status().message()));
      return;
    }
    boost::json::value root;
    int line = 0;
    std::string msg;
    if (!contract::ParseJsonText(*text, &root, &line, &msg)) {
      Err(code::kChkJson, line, "not valid JSON (json.load would fail): " + msg);
      return;
    }
    loc_.emplace(*text);
    for (const auto& dup : loc_->duplicates()) {
      Warn(code::kChkDuplicateKey, dup.line,
           "duplicate key at " + dup.pointer + " (json.load keeps only the last one)");
    }
    ++sum_.classes;
    if (!root.is_object()) {
      Err(code::kChkFieldType, 1, "top level must be an object, got " + KindName(root));
      return;
    }
    const auto& o = root.get_object();
    for (const auto& kv : o) {
      std::string k(kv.key());
      if (k != "schema_version" && k != "op" && k != "class_id" && k != "invariants")
        Warn(code::kChkFieldUnknown, Line("/" + k), "unknown top-level field '" + k + "'");
    }
    // schema_version
    if (const auto* sv = o.if_contains("schema_version")) {
      int l = Line("/schema_version");
      if (sv->is_string()) {
        Err(code::kChkSchemaVersion, l,
            "schema_version is a string; it must be the integer contract.contract_version " +
                std::to_string(in_.contract_version) + " of topology-map.json")
            .evidence = std::string(sv->get_string());
      } else if (!sv->is_int64() || sv->get_int64() != in_.contract_version) {
        Err(code::kChkSchemaVersion, l,
            "schema_version must be the integer " + std::to_string(in_.contract_version) +
                " (topology-map.json contract.contract_version)")
            .evidence = boost::json::serialize(*sv);
      }
    } else {
      Err(code::kChkFieldMissing, 1, "missing field 'schema_version'");
    }
    CheckString(o, "op", "/op", in_.op, code::kChkOp);
    CheckString(o, "class_id", "/class_id", sel_.class_id, code::kChkClassId);
    const auto* inv = o.if_contains("invariants");
    if (!inv) {
      Err(code::kChkFieldMissing, 1, "missing field 'invariants'");
      return;
    }
    if (!inv->is_array()) {
      Err(code::kChkFieldType, Line("/invariants"), "invariants must be an array, got " + KindName(*inv));
      return;
    }
    const auto& arr = inv->get_array();
    if (in_.SelectionEmpty() && !arr.empty()) {
      Err(code::kChkEmptyRule, Line("/invariants"),
          "no KB reference is selected, so invariants must be []");
    }
    for (size_t i = 0; i < arr.size(); ++i) Record(arr[i], "/invariants/" + std::to_string(i));
    Counts();
  }

 private:
  Diagnostic& Err(const char* c, int line, std::string msg) {
    return d_.Error(c, category::kKbUsageInvalid, path_, line, std::move(msg));
  }
  Diagnostic& Warn(const char* c, int line, std::string msg) {
    return d_.Warning(c, category::kKbUsageInvalid, path_, line, std::move(msg));
  }
  int Line(const std::string& ptr) const { return loc_ ? loc_->Line(ptr) : 0; }

  void CheckString(const boost::json::object& o, const char* key, const std::string& ptr,
                   const std::string& expected, const char* mismatch_code) {
    const auto* v = o.if_contains(key);
    if (!v) {
      Err(code::kChkFieldMissing, 1, std::string("missing field '") + key + "'");
    } else if (!v->is_string()) {
      Err(code::kChkFieldType, Line(ptr), std::string(key) + " must be a string, got " + KindName(*v));
    } else if (std::string(v->get_string()) != expected) {
      Err(mismatch_code, Line(ptr),
          std::string(key) + " must be '" + expected + "' (from KB_SELECTION.json)")
          .evidence = std::string(v->get_string());
    }
  }

  const std::string* Str(const boost::json::object& o, const char* key, const std::string& ptr) {
    const auto* v = o.if_contains(key);
    if (!v) {
      Err(code::kChkFieldMissing, Line(ptr), std::string("record at ") + ptr + " has no '" + key + "'");
      return nullptr;
    }
    if (!v->is_string()) {
      Err(code::kChkFieldType, Line(ptr + "/" + key),
          std::string(key) + " must be a string, got " + KindName(*v));
      return nullptr;
    }
    holder_.push_back(std::string(v->get_string()));
    return &holder_.back();
  }

  void Record(const boost::json::value& v, const std::string& ptr) {
    ++sum_.records;
    if (!v.is_object()) {
      Err(code::kChkFieldType, Line(ptr), "record " + ptr + " must be an object, got " + KindName(v));
      return;
    }
    const auto& r = v.get_object();
    for (const auto& kv : r) {
      std::string k(kv.key());
      if (k != "reference" && k != "invariant" && k != "implementation" && k != "justification")
        Warn(code::kChkFieldUnknown, Line(ptr + "/" + k), "unknown record field '" + k + "'");
    }
    const std::string* reference = Str(r, "reference", ptr);
    const std::string* invariant = Str(r, "invariant", ptr);
    const auto* impl_v = r.if_contains("implementation");
    const boost::json::object* impl = nullptr;
    if (!impl_v) {
      Err(code::kChkFieldMissing, Line(ptr), "record " + ptr + " has no 'implementation'");
    } else if (!impl_v->is_object()) {
      Err(code::kChkFieldType, Line(ptr + "/implementation"),
          "implementation must be an object {file, symbol, status}");
    } else {
      impl = &impl_v->get_object();
    }

    // reference
    if (reference) {
      bool selected = false;
      for (const auto* ref : sel_.AllReferences()) selected |= ref->path == *reference;
      if (!selected) {
        Err(code::kChkRefUnselected, Line(ptr + "/reference"),
            "reference is not a path selected in " + sel_.path)
            .evidence = *reference;
      }
    }
    // invariant prefix and identity
    std::optional<Quad> quad;
    if (invariant) {
      auto p = ParseInvariant(*invariant);
      int l = Line(ptr + "/invariant");
      if (!p.ok()) {
        Err(code::kChkPrefix, l, std::string(p.status().message())).evidence =
            invariant->substr(0, 120);
      } else {
        if (!p->canonical) {
          Err(code::kChkPrefixEncoding, l,
              "the prefix is not byte-identical to json.dumps(..., ensure_ascii=False); expected '" +
                  p->canonical_prefix + "'")
              .evidence = invariant->substr(0, p->canonical_prefix.size() + 20);
        }
        if (reference) {
          quad = Quad{sel_.class_id, *reference, p->selection_field, p->req_id};
          auto it = in_.requirements.find(*quad);
          if (it == in_.requirements.end()) {
            Err(code::kChkQuadUnknown, l,
                "quadruple " + quad->ToString() + " names no requirement of DESIGN_BINDINGS.json");
            quad.reset();
          } else if (!it->second.req->IsActive()) {
            Err(code::kChkQuadInactive, l,
                "requirement " + quad->ToString() + " is " + it->second.req->kind + "+" +
                    it->second.req->status + "; only obligation+applies requirements get records");
            quad.reset();
          } else {
            if (p->source_anchors != it->second.req->source_anchors) {
              Err(code::kChkAnchors, l,
                  "source_anchors differ from DESIGN_BINDINGS (never reorder, dedupe or edit them)");
            }
            if (p->rest != it->second.req->invariant) {
              Err(code::kChkInvariant, l,
                  "the text after the prefix is not the binding invariant copied verbatim");
            }
          }
        }
      }
    }
    // implementation
    std::string status;
    if (impl) {
      std::string iptr = ptr + "/implementation";
      const std::string* file = Str(*impl, "file", iptr);
      const std::string* symbol = Str(*impl, "symbol", iptr);
      const std::string* st = Str(*impl, "status", iptr);
      for (const auto& kv : *impl) {
        std::string k(kv.key());
        if (k != "file" && k != "symbol" && k != "status")
          Warn(code::kChkFieldUnknown, Line(iptr + "/" + k), "unknown implementation field '" + k + "'");
      }
      if (st) {
        status = *st;
        int l = Line(iptr + "/status");
        if (status == "verified" || status == "not_applicable") {
          Err(code::kChkStatusForbidden, l,
              "status '" + status + "' is never written by the coder; use implemented or deviated");
        } else if (status != "implemented" && status != "deviated") {
          Err(code::kChkStatusUnknown, l, "status must be implemented or deviated").evidence = status;
        } else if (status == "deviated") {
          const auto* j = r.if_contains("justification");
          if (!j || !j->is_string() || j->get_string().empty()) {
            Err(code::kChkNoJustification, l,
                "status deviated needs a non-empty sibling 'justification' with the frozen reason");
          }
        }
      }
      if (file) FileAndSymbol(*file, symbol, iptr, quad);
    }
  }

  void FileAndSymbol(const std::string& file, const std::string* symbol, const std::string& iptr,
                     const std::optional<Quad>& quad) {
    int l = Line(iptr + "/file");
    auto rel = ParseRecordFile(in_.op, file);
    if (!rel) {
      Err(code::kChkFileOutside, l,
          "file must be written from the workspace root as custom/" + in_.op +
              "/..., never absolute or outside the op dir")
          .evidence = file;
      return;
    }
    bool is_final = *rel == plan::FinalFile(in_.op);
    auto k = StagedModuleOf(in_.op, *rel);
    if (!is_final && !k) {
      Err(code::kChkFileUnexpected, l,
          "a record points at custom/" + in_.op + "/" + plan::FinalFile(in_.op) +
              " (final) or modules/test_" + in_.op + "_module<suffix_k>.py (staged)")
          .evidence = file;
      return;
    }
    if (k && in_.module_count > 0 && *k > in_.module_count) {
      Err(code::kChkFileUnexpected, l,
          "staged file of Module " + std::to_string(*k) + " beyond module_count " +
              std::to_string(in_.module_count))
          .evidence = file;
    }
    if (is_final) ++sum_.final_records; else ++sum_.staged_records;
    if (k) {
      if (opts_.mode == plan::Mode::kL0) {
        Err(code::kChkStagedInL0, l, "L0 has no staged records").evidence = file;
      }
      if (opts_.mode == plan::Mode::kL1Module && opts_.module_k && *k > *opts_.module_k) {
        Err(code::kChkStagedFuture, l,
            "staged record for Module " + std::to_string(*k) + " while Module " +
                std::to_string(*opts_.module_k) + " is being developed")
            .evidence = file;
      }
      if ((opts_.mode == plan::Mode::kL1Finalize || opts_.mode == plan::Mode::kL1FinalizeRetry) &&
          opts_.module_checked &&
          std::find(opts_.module_checked->begin(), opts_.module_checked->end(), *k) ==
              opts_.module_checked->end()) {
        Err(code::kChkStagedUnchecked, l,
            "stale staged record: Module " + std::to_string(*k) + " did not pass module-check")
            .evidence = file;
      }
    }
    if (quad) {
      if (is_final) ++finals_[*quad];
      else ++staged_[{*quad, *rel}];
      if (is_final) final_lines_[*quad] = l;
      else staged_lines_[{*quad, *rel}] = l;
    }
    std::string abs = (fs::path(in_.op_dir) / *rel).string();
    std::error_code ec;
    if (!fs::exists(abs, ec)) {
      Err(code::kChkFileMissing, l, "implementation file does not exist").evidence = file;
      return;
    }
    if (!symbol) return;
    const PythonSymbols* syms = Symbols(*rel, abs, l);
    if (!syms) return;
    int sl = Line(iptr + "/symbol");
    for (const auto& s : SplitSymbolList(*symbol)) {
      if (s.empty() || !syms->Has(s)) {
        Err(code::kChkSymbolMissing, sl,
            "symbol '" + s + "' is not a def/class of " + file + " (fabricated usage)")
            .evidence = *symbol;
      }
    }
  }

  const PythonSymbols* Symbols(const std::string& rel, const std::string& abs, int line) {
    auto it = symbols_.find(rel);
    if (it == symbols_.end()) {
      Diagnostics parse;
      auto s = LoadPythonSymbols(abs, &parse);
      if (!s.ok()) {
        Err(code::kChkFileUnparsable, line,
            "cannot parse " + rel + " to check symbols: " + std::string(s.status().message()));
      }
      it = symbols_.emplace(rel, s.ok() ? std::optional<PythonSymbols>(std::move(*s))
                                        : std::nullopt).first;
    }
    return it->second ? &*it->second : nullptr;
  }

  void Counts() {
    const bool needs_final = opts_.mode != plan::Mode::kL1Module;
    for (const auto& [q, ir] : in_.ActiveFor(sel_.class_id)) {
      int n = finals_.count(q) ? finals_[q] : 0;
      if (needs_final && n == 0) {
        Err(code::kChkFinalMissing, Line("/invariants"),
            "no final record for active requirement " + q.ToString() + " (exactly one required)");
      } else if (n > 1) {
        Err(code::kChkFinalDuplicate, final_lines_[q],
            std::to_string(n) + " final records for " + q.ToString() + " (exactly one required)");
      }
    }
    for (const auto& [key, n] : staged_) {
      if (n > 1) {
        Err(code::kChkStagedDuplicate, staged_lines_[key],
            std::to_string(n) + " staged records for " + key.first.ToString() + " in " +
                key.second + " (at most one per file)");
      }
    }
  }

  const UsageInputs& in_;
  const contract::KbSelection& sel_;
  const CheckOptions& opts_;
  Diagnostics& d_;
  CheckSummary& sum_;
  std::string path_;
  std::optional<contract::JsonLocator> loc_;
  std::deque<std::string> holder_;
  std::map<Quad, int> finals_;
  std::map<Quad, int> final_lines_;
  std::map<std::pair<Quad, std::string>, int> staged_;
  std::map<std::pair<Quad, std::string>, int> staged_lines_;
  std::map<std::string, std::optional<PythonSymbols>> symbols_;
};

}  // namespace

absl::StatusOr<CheckSummary> CheckKbUsage(const std::string& op_dir, const CheckOptions& opts,
                                          Diagnostics* diags) {
  Diagnostics local;
  Diagnostics& d = diags ? *diags : local;
  auto in = LoadUsageInputs(op_dir, opts.kb_root, &d);
  if (!in.ok()) return in.status();
  if (in->SelectionEmpty() != in->bindings.bindings.empty()) {
    d.Error(code::kChkEmptyRule, category::kDesignViolation, in->bindings_path,
            in->bindings.bindings_line,
            in->SelectionEmpty()
                ? "DESIGN_BINDINGS.bindings must be [] because no KB reference is selected"
                : "DESIGN_BINDINGS.bindings is [] although KB references are selected");
  }
  CheckSummary sum;
  for (const auto& sel : in->selections) {
    ClassChecker c(*in, sel, opts, d, sum);
    c.Run();
  }
  return sum;
}

}  // namespace opdev::kbusage
