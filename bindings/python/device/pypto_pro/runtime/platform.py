"""pypto_pro.runtime.platform on opdev's CPU device: the simulated chip's information.

A5 (default): soc_version DAV_3510; A3 (OPDEV_DEVICE_TARGET=a3): DAV_2201. Core counts:
OPDEV_CUBE_CORES (24) cube cores, OPDEV_VECTOR_CORES (48) vector cores, core_num = the
cube count (the AI core count of the framework's query).
"""

from dataclasses import dataclass

import opdev.device as _device
from opdev.device.kernel import platform_counts as _counts

_ARCH_MAP = {"DAV_1001": "a3", "DAV_2201": "a3", "DAV_3510": "a5"}


@dataclass
class PlatformInfo:
    soc_version: str = ""
    core_num: int = 0
    cube_core_num: int = 0
    vector_core_num: int = 0

    @property
    def arch(self):
        if not self.soc_version:
            return ""
        return _ARCH_MAP.get(self.soc_version, "a3")


_cached = None


def get_platform_info(force_refresh=False):
    global _cached
    if _cached is None or force_refresh:
        core, cube, vec = _counts()
        _cached = PlatformInfo(soc_version=_device.soc_version(), core_num=core, cube_core_num=cube,
                               vector_core_num=vec)
    return _cached
