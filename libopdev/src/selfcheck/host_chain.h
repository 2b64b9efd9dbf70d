// The audit of the wrapper's whole host call chain, shared by S4-5 (cheating: host compute,
// value-dependent host operations ⑤, anything after the launch that changes or replaces the
// kernel's output ⑥) and S4-15 (every other operation outside the wrapper-boundary
// allowlist). One walk classifies each operation once, so one root cause is reported under
// one item only (the verifier reports the most specific category).
#pragma once

#include "check_context.h"

#include <string>
#include <vector>

namespace opdev::selfcheck {

struct HostChainAudit {
  Diagnostics boundary;  // SC-WRAPPER-BOUNDARY (wrapper_boundary_violation)
  Diagnostics cheating;  // SC-HOST-COMPUTE, SC-VALUE-DEPENDENT (⑤), SC-POST-LAUNCH (⑥)
  std::vector<std::string> traced;   // host functions audited, wrapper first
  std::vector<std::string> outputs;  // tensors the wrapper allocates and hands to the launch
  int torch_empty = 0;
  bool launched = false;             // the launch was found in the chain
  bool returns_output = false;       // every returned value is a tensor the kernel received
};

// Requires c.file and the wrapper to exist (callers check).
HostChainAudit AuditHostChain(const CheckContext& c);

}  // namespace opdev::selfcheck
