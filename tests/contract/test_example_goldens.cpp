// The example's golden files against the pipeline's contract: softmax_golden.py exports
// _get_device() (CPU when torch_npu is absent) and a device golden in fp16; softmax_golden_cpu.py
// is the FP32 CPU reference. Run with /usr/bin/python3 (torch) and -B so nothing is written.
#include "contract_test_util.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>

using namespace contract_test;

namespace {
std::pair<int, std::string> Python(const std::string& code) {
  std::string dir = std::string(OPDEV_SOURCE_DIR) + "/examples/softmax";
  std::string cmd = "cd '" + dir + "' && " + OPDEV_PYTHON + " -B -c \"" + code + "\" 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int st = pclose(p);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}
}  // namespace

TEST_CASE("softmax_golden_cpu: FP32 CPU reference equals the SPEC formula on the P0 cases") {
  auto [code, out] = Python(
      "import torch, softmax_golden_cpu as c\n"
      "assert c._validate()\n"
      "x = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], dtype=torch.float16)\n"
      "y = c.softmax_golden_cpu(x)\n"
      "assert y.dtype == torch.float32 and y.device.type == 'cpu'\n"
      "import math\n"
      "s = math.exp(-2) + math.exp(-1) + 1\n"
      "assert abs(y[0, 2].item() - 1 / s) < 1e-7, y\n"
      "assert abs(y[1, 0].item() - 1 / 3) < 1e-7, y\n"
      "print('ok')");
  INFO(out);
  CHECK(code == 0);
  CHECK(out.find("ok") != std::string::npos);
}

TEST_CASE("softmax_golden: _get_device() and the fp16 device golden") {
  auto [code, out] = Python(
      "import importlib.util, torch, softmax_golden as g, softmax_golden_cpu as c\n"
      "npu = importlib.util.find_spec('torch_npu') is not None\n"
      "d = g._get_device()\n"
      "assert npu or d.type == 'cpu', d\n"
      "torch.manual_seed(0)\n"
      "x = (torch.randn(7, 200) * 4).to(torch.float16).to(d)\n"
      "y = g.softmax_golden(x)\n"
      "assert y.dtype == torch.float16 and tuple(y.shape) == (7, 200)\n"
      "err = (y.float().cpu() - c.softmax_golden_cpu(x)).abs().max().item()\n"
      "assert err < 1e-3, err\n"
      "print('device', d.type)");
  INFO(out);
  CHECK(code == 0);
  CHECK(out.find("device") != std::string::npos);
}
