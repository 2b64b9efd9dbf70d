// S4-15 (and the boundary part of MC-5): the wrapper boundary over the whole host call
// chain. The host-chain audit (host_chain.h) classifies every operation; this item reports
// those outside the allowlist that are not cheating (cheating is S4-5's root cause).
#include "host_chain.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace opdev::selfcheck {

ItemResult CheckWrapperBoundary(const CheckContext& c) {
  ItemResult r;
  const KernelFile& f = *c.file;
  if (!f.Find(c.wrapper)) {
    r.status = ItemStatus::kBlocked;
    r.category = std::string(cat::kSignatureMismatch);
    r.evidence = absl::StrCat("no ", c.wrapper, " to audit");
    return r;
  }
  HostChainAudit audit = AuditHostChain(c);
  r.findings = audit.boundary;
  r.evidence = absl::StrCat("host chain: ", absl::StrJoin(audit.traced, ", "), "; ", audit.torch_empty,
                            " torch.empty call(s)",
                            audit.cheating.empty() ? ""
                                                   : absl::StrCat("; ", audit.cheating.size(),
                                                                  " host operation(s) reported as cheating under S4-5"));
  Conclude(&r);
  return r;
}

}  // namespace opdev::selfcheck
