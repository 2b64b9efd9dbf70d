"""Exceptions and warnings of the CPU device.

The compile-time errors derive from ``ParserError`` (also exported as
``pypto_pro.language.parser.diagnostics._exceptions.ParserError``), run-time failures from
``RuntimeError``, so ``pytest.raises`` in existing tests sees the types it expects.
Every error carries ``code`` (API-* / SIM-*), ``filename``, ``line`` and ``diagnostics``.
"""


class _Located:
    def _locate(self, code=None, filename=None, line=None, diagnostics=None):
        self.code = code
        self.filename = filename
        self.line = line
        self.diagnostics = list(diagnostics or [])


class PyptoError(Exception):
    pass


class ParserError(PyptoError, _Located):
    def __init__(self, message="", code=None, filename=None, line=None, diagnostics=None, **_kw):
        super().__init__(message)
        self._locate(code, filename, line, diagnostics)


class ParserSyntaxError(ParserError):
    pass


class ParserTypeError(ParserError):
    pass


class FinalRejectionError(ParserTypeError):
    pass


class UndefinedVariableError(ParserError):
    pass


class SSAViolationError(ParserError):
    pass


class UnsupportedFeatureError(ParserError):
    pass


class InvalidOperationError(ParserError):
    pass


class ScopeIsolationError(ParserError):
    pass


class KernelCompileError(ParserTypeError):
    """Compile-time API misuse found by the API catalog check (API-* codes)."""


class KernelCompileSyntaxError(KernelCompileError, ParserSyntaxError):
    """Compile-time misuse the frontend's parser rejects as a syntax error (API-STORE-ORDER:
    a descending store order); also a KernelCompileError."""


# API codes whose frontend counterpart is a ParserSyntaxError rather than a ParserTypeError.
SYNTAX_ERROR_CODES = frozenset({"API-STORE-ORDER"})

# Simulator codes for rules the frontend checks when it compiles the kernel (the simulator
# finds them when the call runs, once the operands' types are known): raised as the frontend's
# compile-time ParserSyntaxError. SIM-FIX-QUANT: scale= / relu_pre_mode= combinations and
# Scaling tiles the frontend's store / move builders reject (store.md, move.md).
COMPILE_TIME_SIM_CODES = frozenset({"SIM-FIX-QUANT"})


class KernelHazardError(RuntimeError, _Located):
    """An error hazard the simulator found (SIM-* codes): the kernel would fail, hang or
    corrupt memory on the device."""

    def __init__(self, message="", code=None, filename=None, line=None, diagnostics=None):
        super().__init__(message)
        self._locate(code, filename, line, diagnostics)


class UnsupportedKernelError(KernelHazardError):
    """A construct the simulator cannot run (named with its line)."""


class SimulatorWarning(UserWarning):
    """A warning hazard of the simulator (e.g. SIM-VF-STALE-VALUE)."""
