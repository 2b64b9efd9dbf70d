"""The frontend's diagnostic exception types (opdev.device.errors)."""

from ._exceptions import *  # noqa: F401,F403
