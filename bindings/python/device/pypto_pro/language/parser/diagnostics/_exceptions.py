"""The frontend's exception types, as raised by opdev's CPU device (opdev.device.errors)."""

from opdev.device.errors import (FinalRejectionError, InvalidOperationError, KernelCompileError,  # noqa: F401
                                 ParserError, ParserSyntaxError, ParserTypeError, PyptoError,
                                 ScopeIsolationError, SSAViolationError, UndefinedVariableError,
                                 UnsupportedFeatureError)

__all__ = ["PyptoError", "ParserError", "ParserSyntaxError", "ParserTypeError", "FinalRejectionError",
           "UndefinedVariableError", "SSAViolationError", "UnsupportedFeatureError",
           "InvalidOperationError", "ScopeIsolationError", "KernelCompileError"]
