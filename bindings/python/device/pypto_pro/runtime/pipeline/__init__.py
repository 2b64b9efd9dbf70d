"""pypto_pro.runtime.pipeline on opdev's CPU device: PipelineConfig (recorded, not applied)."""

from pypto_pro.language import PipelineConfig  # noqa: F401
