# The device tests run under `opdev exec` (see CMakeLists.txt): pypto_pro, pypto and torch_npu
# are opdev's CPU device. Each test file is an ordinary PyPTO-Pro test file.
import pypto_pro


def pytest_configure(config):
    config.addinivalue_line("markers", "soc(name): the SoC a test targets (informational)")
    assert getattr(pypto_pro, "CPU_DEVICE", False), "these tests must run on opdev's CPU device (opdev exec)"
