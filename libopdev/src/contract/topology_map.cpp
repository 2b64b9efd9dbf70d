// Loader of the KB's topology-map.json (see topology_map.h).
#include "opdev/contract/topology_map.h"

#include "contract/json_fields.h"
#include "contract/read_input.h"

#include <boost/json/serialize.hpp>

#include <algorithm>

namespace opdev::contract {

absl::StatusOr<TopologyMap> ParseTopologyMap(std::string_view text, const std::string& path,
                                             Diagnostics* diags) {
  JsonLocator loc(text);
  auto parsed =
      ParseJsonContract(text, path, loc, category::kKbSelectionInvalid, "TOPOLOGY", diags);
  if (!parsed.ok()) return parsed.status();
  const auto& root = parsed->get_object();
  TopologyMap tm;
  tm.path = path;
  if (const auto* v = root.if_contains("schema_version"); v && v->is_int64())
    tm.schema_version = v->get_int64();
  if (const auto* t = root.if_contains("topologies"); t && t->is_object())
    for (const auto& kv : t->get_object()) tm.topologies.emplace_back(kv.key());
  std::sort(tm.topologies.begin(), tm.topologies.end());
  const auto* c = root.if_contains("contract");
  tm.contract_version_line = loc.Line("/contract/contract_version");
  if (!c || !c->is_object()) {
    if (diags) diags->Error("TOPOLOGY-CONTRACT-VERSION", category::kKbSelectionInvalid, path,
                            loc.Line("/contract"), "topology-map.json has no 'contract' object");
    return tm;
  }
  const auto& co = c->get_object();
  const auto* cv = co.if_contains("contract_version");
  if (!cv) {
    if (diags) diags->Error("TOPOLOGY-CONTRACT-VERSION", category::kKbSelectionInvalid, path,
                            loc.Line("/contract"), "contract.contract_version is missing");
  } else if (!cv->is_int64() && !cv->is_uint64()) {
    if (diags) diags->Error("TOPOLOGY-CONTRACT-VERSION", category::kKbSelectionInvalid, path,
                            tm.contract_version_line,
                            "contract.contract_version must be a JSON integer (got " +
                                std::string(boost::json::serialize(*cv)) + ")");
  } else {
    tm.contract_version = cv->is_int64() ? cv->get_int64() : static_cast<std::int64_t>(cv->get_uint64());
  }
  auto strs = [&](const char* key, std::vector<std::string>* out) {
    if (const auto* a = co.if_contains(key); a && a->is_array())
      for (const auto& e : a->get_array())
        if (e.is_string()) out->emplace_back(e.get_string());
  };
  strs("property_keys", &tm.property_keys);
  strs("implementation_statuses", &tm.implementation_statuses);
  if (const auto* s = co.if_contains("selection_filename"); s && s->is_string())
    tm.selection_filename = std::string(s->get_string());
  if (const auto* s = co.if_contains("usage_filename"); s && s->is_string())
    tm.usage_filename = std::string(s->get_string());
  return tm;
}

absl::StatusOr<TopologyMap> LoadTopologyMap(const std::string& path, Diagnostics* diags) {
  auto text = ReadContractText(path, diags);
  if (!text.ok()) return text.status();
  return ParseTopologyMap(*text, path, diags);
}

}  // namespace opdev::contract
