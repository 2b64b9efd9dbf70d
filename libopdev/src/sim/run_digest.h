// The corpus proof of the simulator: with OPDEV_SIM_DIGEST_LOG=<file> in the environment every
// run (RunKernelSource, LaunchKernel) appends one line to <file> naming what ran (file name,
// entry, a digest of the source text, the inputs and the options) and digests of everything
// observable it produced (outputs, hazards with their text, statistics). scripts/sim-corpus
// runs the tests with it and compares the sorted lines of two builds: a change of the
// simulator's speed must leave every line as it was.
#pragma once

#include "opdev/sim/launch.h"
#include "opdev/sim/memory.h"
#include "opdev/sim/simulator.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace opdev::sim {

// 64-bit FNV-1a, stable across builds and machines.
class Digest {
 public:
  void Bytes(const void* p, size_t n);
  void Str(std::string_view s);  // length-prefixed
  void Int(int64_t v) { Bytes(&v, sizeof v); }
  void Double(double v) { Bytes(&v, sizeof v); }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 1469598103934665603ULL;
};

// The log file named by OPDEV_SIM_DIGEST_LOG, or empty (read once).
const std::string& DigestLogPath();

// Key of a RunKernelSource call: source, entry, inputs, options.
uint64_t RunKey(std::string_view source, const std::vector<precision::Tensor>& inputs, const SimOptions& o);

// Appends the line of a finished run to DigestLogPath() (one write, so concurrent test
// processes do not interleave lines).
void LogRun(const std::string& file, const std::string& entry, uint64_t key, const SimResult& r);
// A launch's line from its GM tensors after the run (`gm`, empty when nothing ran). A host
// allocates outputs uninitialised (torch.empty), so the key covers the data of the tensors
// no core wrote and only dtype and shape of the others, and the output digest covers the
// written elements and which core wrote each.
void LogLaunch(std::string_view source, const LaunchRequest& req, const std::vector<std::shared_ptr<GmTensor>>& gm,
               const LaunchResult& r);

}  // namespace opdev::sim
