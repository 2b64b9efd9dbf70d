// KB_USAGE.json generation (see generate.h).
#include "opdev/kbusage/generate.h"

#include "opdev/kbusage/invariant_prefix.h"
#include "opdev/kbusage/planned_location.h"
#include "opdev/kbusage/py_json.h"
#include "opdev/kbusage/python_symbols.h"
#include "opdev/kbusage/usage_inputs.h"
#include "opdev/plan/naming.h"
#include "opdev/support/file_io.h"

#include "contract/json_locator.h"

#include <boost/json.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace fs = std::filesystem;

namespace opdev::kbusage {

boost::json::object GenerateResult::ToJson() const {
  boost::json::object o;
  boost::json::array cls;
  for (const auto& c : classes) {
    boost::json::object e;
    e["class_id"] = c.class_id;
    e["usage_file"] = c.usage_rel;
    e["final_records"] = c.final_records;
    e["staged_records"] = c.staged_records;
    e["kept_records"] = c.kept_records;
    e["dropped_records"] = c.dropped_records;
    e["wiped"] = c.wiped;
    cls.push_back(std::move(e));
  }
  o["classes"] = std::move(cls);
  o["sidecar"] = sidecar_rel;
  o["upstream_sha256"] = upstream_sha256;
  o["written"] = written;
  return o;
}

namespace {

std::string Str(const boost::json::object& o, const char* k) {
  const auto* v = o.if_contains(k);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// implementation.file of a record object ("" when absent).
std::string RecordFileOf(const boost::json::object& rec) {
  const auto* impl = rec.if_contains("implementation");
  if (!impl || !impl->is_object()) return "";
  return Str(impl->get_object(), "file");
}
std::string RecordSymbolOf(const boost::json::object& rec) {
  const auto* impl = rec.if_contains("implementation");
  if (!impl || !impl->is_object()) return "";
  return Str(impl->get_object(), "symbol");
}

std::string HashOrAbsent(const std::string& path) {
  ReadOptions ro;
  ro.require_utf8 = false;
  auto t = ReadTextFile(path, ro);
  return t.ok() ? Sha256Hex(*t) : std::string("absent");
}

struct Resolver {
  const UsageInputs& in;
  const GenerateOptions& opts;
  Diagnostics& d;
  std::string staged_wrapper;  // the round's wrapper in a Module round

  // Resolves the symbol list of `ir` in the file `target_rel` (symbols `syms`). Returns ""
  // when no record can be written (errors/notes reported). `staged` softens a missing
  // claimed symbol to a skip (staged records are optional).
  std::string Resolve(const Quad& q, const IndexedRequirement& ir, const std::string& target_rel,
                      const PythonSymbols& syms, bool staged) {
    const auto& req = *ir.req;
    int line = req.FieldLine("planned_location");
    PlannedLocation loc = ParsePlannedLocation(req.planned_location);
    std::string final_base = plan::FinalFile(in.op);
    std::string target_base = fs::path(target_rel).filename().string();
    std::vector<const LocationFileRef*> refs = loc.For(target_base);
    if (refs.empty() && staged) refs = loc.For(final_base);
    if (!staged && refs.empty()) refs = loc.For(final_base);

    std::vector<std::string> symbols;
    std::vector<std::string> missing_claimed;
    for (const auto* r : refs) {
      for (const auto& item : r->items) {
        if (item.head.empty()) continue;
        std::string name = item.head;
        // In a staged file the final wrapper <op>_wrapper is <op>_wrapper_module<suffix>.
        if (staged && name == plan::FinalWrapper(in.op)) name = staged_wrapper;
        if (syms.Has(name)) {
          if (std::find(symbols.begin(), symbols.end(), name) == symbols.end())
            symbols.push_back(name);
        } else if (item.claimed) {
          missing_claimed.push_back(name);
        }
      }
    }
    // A staged file grows Module by Module: a staged record names the symbols that exist.
    if (staged && !symbols.empty()) missing_claimed.clear();
    if (!missing_claimed.empty()) {
      std::string list;
      for (const auto& m : missing_claimed) list += (list.empty() ? "" : ", ") + m;
      if (staged) {
        d.Add(Diagnostic{code::kGenStagedSkipped, Severity::kNote, std::string(category::kKbUsageInvalid),
                         in.bindings_path, line, 0, "",
                         "no staged record for " + q.ToString() + ": " + target_rel +
                             " has no def/class " + list + " named by planned_location",
                         req.planned_location});
      } else {
        d.Error(code::kGenSymbolMissing, category::kImplementationError, in.bindings_path, line,
                "planned_location of " + q.ToString() + " names " + list + " in " + final_base +
                    ", but the produced file has no such def/class; the record is not written")
            .evidence = req.planned_location;
      }
      return "";
    }
    if (!symbols.empty()) {
      std::string joined;
      for (const auto& s : symbols) joined += (joined.empty() ? "" : " / ") + s;
      return joined;
    }
    // No usable symbol: report the upstream gap, then fall back (unless strict).
    const char* c = code::kGenLocNoSymbol;
    std::string why;
    if (loc.files.empty()) {
      c = code::kGenLocNoFile;
      why = "names no file (it must name the final " + final_base + " file/symbol)";
    } else if (refs.empty()) {
      c = code::kGenLocOtherFile;
      why = "does not name " + final_base;
    } else {
      why = "names " + final_base + " but no def/class of it";
    }
    std::string msg = "planned_location of " + q.ToString() + " " + why;
    if (opts.strict_locations) {
      d.Error(c, category::kDesignViolation, in.bindings_path, line, msg).evidence =
          req.planned_location;
      return "";
    }
    std::string fallback;
    if (!syms.kernels.empty()) fallback = syms.kernels.front();
    if (fallback.empty()) {
      d.Error(code::kGenNoFallback, category::kImplementationError, in.bindings_path, line,
              msg + ", and " + target_rel + " has no @pl.jit kernel to point the record at")
          .evidence = req.planned_location;
      return "";
    }
    if (!staged) {
      // Naming the file without a def/class still locates the code (note); naming no file
      // at all breaks the template's rule "planned_location names the final file" (warning).
      d.Add(Diagnostic{c, c == code::kGenLocNoSymbol ? Severity::kNote : Severity::kWarning,
                       std::string(category::kDesignViolation), in.bindings_path, line, 0, "",
                       msg + "; the record points at the kernel '" + fallback + "'",
                       req.planned_location});
    }
    return fallback;
  }
};

}  // namespace

absl::StatusOr<GenerateResult> GenerateKbUsage(const plan::RoundPlan& plan,
                                               const GenerateOptions& opts, Diagnostics* diags) {
  Diagnostics local;
  Diagnostics& d = diags ? *diags : local;
  size_t errors_before = d.ErrorCount();
  auto fail = [&](const std::string& why) { return absl::FailedPreconditionError(why); };

  auto loaded = LoadUsageInputs(plan.op_dir, opts.kb_root, &d);
  if (!loaded.ok()) return loaded.status();
  UsageInputs& in = *loaded;
  if (in.op != plan.op) {
    d.Error("KBU-OP-MISMATCH", category::kKbSelectionInvalid, in.selections.front().path, 0,
            "selection op '" + in.op + "' differs from module_interfaces op '" + plan.op + "'");
  }

  // Empty-set rule and binding/selection agreement.
  bool sel_empty = in.SelectionEmpty();
  bool bind_empty = in.bindings.bindings.empty();
  if (sel_empty != bind_empty) {
    d.Error(code::kGenEmptyRule, category::kDesignViolation, in.bindings_path,
            in.bindings.bindings_line,
            sel_empty ? "DESIGN_BINDINGS.bindings is not [] although no KB reference is selected"
                      : "DESIGN_BINDINGS.bindings is [] although KB references are selected");
  }
  for (const auto& b : in.bindings.bindings) {
    const auto* sel = in.SelectionForClass(b.class_id);
    bool found = false;
    if (sel) {
      for (const auto* r : sel->AllReferences())
        found |= r->path == b.reference && r->selection_field == b.selection_field;
    }
    if (!found) {
      d.Error(code::kGenBindingUnselected, category::kDesignViolation, in.bindings_path, b.line,
              "binding (" + b.class_id + ", " + b.selection_field + ", " + b.reference +
                  ") matches no selected reference of class '" + b.class_id + "'");
    }
  }
  for (const auto& dev : opts.deviations) {
    bool ok = false;
    for (const auto& [q, r] : in.requirements)
      ok |= q.class_id == dev.class_id && q.reference == dev.reference &&
            q.req_id == dev.req_id && r.req->IsActive();
    if (!ok || dev.justification.empty()) {
      d.Error(code::kGenDeviationUnknown, category::kInputError, in.bindings_path, 0,
              !ok ? "deviation for " + dev.class_id + " " + dev.reference + "#" + dev.req_id +
                        " names no active requirement"
                  : "deviation for " + dev.reference + "#" + dev.req_id + " has no justification");
    }
  }
  if (d.ErrorCount() > errors_before) return fail("invalid KB usage inputs");

  // The produced file (not needed when nothing is selected).
  const bool staged_mode = plan.mode == plan::Mode::kL1Module;
  std::optional<PythonSymbols> product_syms;
  if (!sel_empty) {
    if (!plan.product.exists && !fs::exists(plan.product.path)) {
      d.Error(code::kGenProductMissing, category::kMissingFile, plan.product.path, 0,
              "the round's product does not exist; KB usage records must point at real code");
      return fail("product missing");
    }
    auto syms = LoadPythonSymbols(plan.product.path, &d);
    if (!syms.ok()) {
      d.Error(code::kGenProductUnparsable, category::kImplementationError, plan.product.path, 0,
              "cannot read the produced file's symbols: " + std::string(syms.status().message()));
      return fail("product unparsable");
    }
    product_syms = std::move(*syms);
  }

  // Upstream hash and the sidecar.
  GenerateResult result;
  result.sidecar_rel = kSidecarFile;
  std::string upstream;
  for (const char* rel : {"DESIGN.md", "DESIGN_BINDINGS.json", "module_interfaces.yaml", "SPEC.md"})
    upstream += std::string(rel) + "=" + HashOrAbsent((fs::path(plan.op_dir) / rel).string()) + "\n";
  for (const auto& s : in.selections)
    upstream += s.class_dir + "/KB_SELECTION.json=" + HashOrAbsent(s.path) + "\n";
  upstream += "topology-map.json=" + HashOrAbsent(in.topology_path) + "\n";
  result.upstream_sha256 = Sha256Hex(upstream);
  std::string sidecar_path = (fs::path(plan.op_dir) / kSidecarFile).string();
  bool first_entry = true, upstream_changed = false;
  {
    auto text = ReadTextFile(sidecar_path);
    if (text.ok()) {
      boost::system::error_code ec;
      auto v = boost::json::parse(*text, ec);
      if (!ec && v.is_object()) {
        first_entry = false;
        upstream_changed = Str(v.get_object(), "upstream_sha256") != result.upstream_sha256;
      }
    }
  }
  const bool wipe = first_entry || upstream_changed;

  std::set<std::int64_t> checked;
  if (opts.module_checked) {
    checked.insert(opts.module_checked->begin(), opts.module_checked->end());
  } else {
    for (std::int64_t k = 1; k <= plan.module_count; ++k) checked.insert(k);
  }
  std::map<std::string, std::optional<PythonSymbols>> staged_cache;
  auto staged_symbols = [&](const std::string& rel) -> const PythonSymbols* {
    auto it = staged_cache.find(rel);
    if (it == staged_cache.end()) {
      Diagnostics ignore;
      auto s = LoadPythonSymbols((fs::path(plan.op_dir) / rel).string(), &ignore);
      it = staged_cache.emplace(rel, s.ok() ? std::optional<PythonSymbols>(std::move(*s))
                                            : std::nullopt).first;
    }
    return it->second ? &*it->second : nullptr;
  };

  Resolver resolver{in, opts, d, plan.wrapper};
  for (const auto& sel : in.selections) {
    ClassUsage cu;
    cu.class_id = sel.class_id;
    cu.usage_rel = UsageInputs::UsageRel(sel);
    std::string usage_path = (fs::path(plan.op_dir) / cu.usage_rel).string();
    cu.wiped = wipe;

    // Existing records.
    std::vector<boost::json::object> existing;
    if (fs::exists(usage_path) || fs::is_symlink(usage_path)) {
      if (fs::is_symlink(usage_path)) {
        d.Error(code::kGenExistingInvalid, category::kKbUsageInvalid, usage_path, 0,
                "KB_USAGE.json is a symbolic link; refusing to replace it");
        continue;
      }
      auto text = ReadTextFile(usage_path);
      boost::json::value v;
      int line = 0;
      std::string msg;
      if (!text.ok()) {
        d.Error(code::kGenExistingInvalid, category::kKbUsageInvalid, usage_path, 0,
                "existing KB_USAGE.json cannot be read (" + std::string(text.status().message()) +
                    "); not overwritten");
        continue;
      }
      if (!contract::ParseJsonText(*text, &v, &line, &msg)) {
        d.Error(code::kGenExistingInvalid, category::kKbUsageInvalid, usage_path, line,
                "existing KB_USAGE.json is not JSON (" + msg + "); not overwritten");
        continue;
      }
      if (v.is_object()) {
        if (const auto* inv = v.get_object().if_contains("invariants"); inv && inv->is_array())
          for (const auto& r : inv->get_array())
            if (r.is_object()) existing.push_back(r.get_object());
      }
    }
    if (wipe && !existing.empty()) {
      cu.dropped_records += existing.size();
      d.Add(Diagnostic{code::kGenWiped, Severity::kNote, std::string(category::kKbUsageInvalid),
                       usage_path, 0, 0, "",
                       first_entry ? "first entry: existing usage records wiped"
                                   : "upstream artifacts changed: existing usage records wiped",
                       ""});
      existing.clear();
    }

    // Records of this round, keyed by requirement order.
    struct Out {
      size_t order;
      int rank;  // staged k, or 1000 for final
      boost::json::object rec;
    };
    std::vector<Out> out;
    auto active = in.ActiveFor(sel.class_id);
    auto deviation_of = [&](const Quad& q) -> const Deviation* {
      for (const auto& dv : opts.deviations)
        if (dv.class_id == q.class_id && dv.reference == q.reference && dv.req_id == q.req_id)
          return &dv;
      return nullptr;
    };
    auto make = [&](const Quad& q, const IndexedRequirement& ir, const std::string& rel,
                    const std::string& symbol) -> std::optional<boost::json::object> {
      auto inv = BuildInvariant(q.selection_field, q.req_id, ir.req->source_anchors,
                                ir.req->invariant);
      if (!inv.ok()) {
        d.Error("KBU-ENCODE", category::kDesignViolation, in.bindings_path, ir.req->line,
                std::string(inv.status().message()));
        return std::nullopt;
      }
      boost::json::object rec;
      rec["reference"] = q.reference;
      rec["invariant"] = *inv;
      boost::json::object impl;
      impl["file"] = RecordFile(in.op, rel);
      impl["symbol"] = symbol;
      const Deviation* dv = deviation_of(q);
      impl["status"] = dv ? "deviated" : "implemented";
      rec["implementation"] = std::move(impl);
      if (dv) rec["justification"] = dv->justification;
      return rec;
    };
    auto order_of = [&](const boost::json::object& rec, size_t fallback) -> size_t {
      auto p = ParseInvariant(Str(rec, "invariant"));
      if (p.ok()) {
        Quad q{sel.class_id, Str(rec, "reference"), p->selection_field, p->req_id};
        auto it = in.requirements.find(q);
        if (it != in.requirements.end()) return it->second.order;
      }
      return 1000000 + fallback;
    };

    if (!sel_empty) {
      if (plan.mode == plan::Mode::kL0 || plan.mode == plan::Mode::kL1Finalize ||
          plan.mode == plan::Mode::kL1FinalizeRetry) {
        for (const auto& [q, ir] : active) {
          std::string sym = resolver.Resolve(q, ir, plan.product.rel, *product_syms, false);
          if (sym.empty()) continue;
          if (auto rec = make(q, ir, plan.product.rel, sym)) {
            out.push_back({ir.order, 1000, std::move(*rec)});
            ++cu.final_records;
          }
        }
      }
      if (staged_mode) {
        for (const auto& [q, ir] : active) {
          std::string sym = resolver.Resolve(q, ir, plan.product.rel, *product_syms, true);
          if (sym.empty()) continue;
          if (auto rec = make(q, ir, plan.product.rel, sym)) {
            out.push_back({ir.order, static_cast<int>(*plan.module_k), std::move(*rec)});
            ++cu.staged_records;
          }
        }
      }
    }

    // Carry over existing records per mode.
    size_t idx = 0;
    for (auto& rec : existing) {
      ++idx;
      std::string file = RecordFileOf(rec);
      auto rel = ParseRecordFile(in.op, file);
      std::int64_t k = 0;
      if (rel) {
        if (auto sk = StagedModuleOf(in.op, *rel)) k = *sk;
      }
      bool keep = false;
      std::string reason;
      if (plan.mode == plan::Mode::kL0) {
        reason = "L0 writes only final records";
      } else if (staged_mode) {
        keep = !(rel && *rel == plan.product.rel);
        reason = "replaced by this round's records for " + plan.product.rel;
      } else if (k == 0) {
        reason = "final records are rebuilt by the finalize";
      } else if (!checked.count(k)) {
        reason = "Module " + std::to_string(k) + " did not pass module-check";
      } else if (!fs::exists(fs::path(plan.op_dir) / *rel)) {
        reason = *rel + " no longer exists";
      } else {
        // Still valid: active quadruple, exact invariant, symbols present.
        auto p = ParseInvariant(Str(rec, "invariant"));
        const PythonSymbols* ss = staged_symbols(*rel);
        reason = "stale record";
        if (p.ok() && ss) {
          Quad q{sel.class_id, Str(rec, "reference"), p->selection_field, p->req_id};
          auto it = in.requirements.find(q);
          if (it != in.requirements.end() && it->second.req->IsActive()) {
            auto expect = BuildInvariant(q.selection_field, q.req_id,
                                         it->second.req->source_anchors, it->second.req->invariant);
            bool syms_ok = true;
            for (const auto& s : SplitSymbolList(RecordSymbolOf(rec))) syms_ok &= ss->Has(s);
            bool dup = std::any_of(out.begin(), out.end(), [&](const Out& o) {
              return RecordFileOf(o.rec) == file && order_of(o.rec, 0) == it->second.order;
            });
            keep = expect.ok() && *expect == Str(rec, "invariant") && syms_ok && !dup;
            if (!keep) reason = dup ? "duplicate staged record" : "stale record (invariant or symbol no longer matches)";
          } else {
            reason = "its requirement is not an active requirement";
          }
        }
      }
      if (keep) {
        int rank = k > 0 ? static_cast<int>(k) : 1000;
        out.push_back({order_of(rec, idx), rank, rec});
        ++cu.kept_records;
      } else {
        ++cu.dropped_records;
        if (plan.mode != plan::Mode::kL0 && !staged_mode && k > 0) {
          d.Add(Diagnostic{code::kGenStagedDropped, Severity::kNote,
                           std::string(category::kKbUsageInvalid), usage_path, 0, 0, "",
                           "staged record for " + Str(rec, "reference") + " in " + file +
                               " dropped: " + reason,
                           ""});
        }
      }
    }
    std::stable_sort(out.begin(), out.end(), [](const Out& a, const Out& b) {
      return std::tie(a.order, a.rank) < std::tie(b.order, b.rank);
    });

    boost::json::object doc;
    doc["schema_version"] = in.contract_version;
    doc["op"] = in.op;
    doc["class_id"] = sel.class_id;
    boost::json::array arr;
    for (auto& o : out) arr.push_back(std::move(o.rec));
    doc["invariants"] = std::move(arr);
    auto text = PyJsonDumps(doc, 2);
    if (!text.ok()) {
      d.Error("KBU-ENCODE", category::kKbUsageInvalid, usage_path, 0,
              std::string(text.status().message()));
      continue;
    }
    cu.content = *text + "\n";
    result.classes.push_back(std::move(cu));
  }
  if (d.ErrorCount() > errors_before) return fail("KB usage generation failed; nothing written");

  if (!opts.dry_run) {
    for (const auto& root : opts.protected_roots) {
      std::error_code ec;
      if (!root.empty() && fs::exists(root, ec) && IsInsideDirectory(plan.op_dir, root)) {
        d.Error(code::kGenProtected, category::kInputError, plan.op_dir, 0,
                "refusing to write KB usage inside " + root + " (read-only reference tree); "
                "work on a copy of the op dir");
        return fail("protected op dir");
      }
    }
    // A read-only KB_USAGE.json (or sidecar) is refused before anything is written, as gen
    // refuses a read-only kernel file.
    std::vector<std::string> targets;
    for (const auto& c : result.classes) targets.push_back((fs::path(plan.op_dir) / c.usage_rel).string());
    targets.push_back(sidecar_path);
    for (const auto& path : targets)
      if (absl::Status st = RefuseReadOnlyTarget(path); !st.ok()) {
        d.Error(code::kGenReadOnly, category::kInputError, path, 0, std::string(st.message()));
        return st;
      }
    for (const auto& c : result.classes) {
      std::string path = (fs::path(plan.op_dir) / c.usage_rel).string();
      if (auto st = WriteFileAtomic(path, c.content); !st.ok()) {
        d.Error(code::kGenWrite, category::kEnvError, path, 0, std::string(st.message()));
        return st;
      }
    }
    boost::json::object side;
    side["tool"] = "opdev";
    side["purpose"] = "upstream hash of the KB usage inputs; usage is wiped when it changes";
    side["upstream_sha256"] = result.upstream_sha256;
    auto st = WriteFileAtomic(sidecar_path, *PyJsonDumps(side, 2) + "\n");
    if (!st.ok()) {
      d.Error(code::kGenWrite, category::kEnvError, sidecar_path, 0, std::string(st.message()));
      return st;
    }
    result.written = true;
  }
  return result;
}

}  // namespace opdev::kbusage
