"""Exception groups (except*), chaining, custom hierarchy and cleanup."""


class OpError(Exception):
    """Base error of the operator pipeline."""


class ShapeError(OpError, ValueError):
    def __init__(self, shape, reason="bad shape"):
        super().__init__(f"{reason}: {shape}")
        self.shape = shape


class DeviceError(OpError):
    pass


def validate(shapes):
    errors = []
    for s in shapes:
        if any(d <= 0 for d in s):
            errors.append(ShapeError(s))
        elif len(s) > 4:
            errors.append(ShapeError(s, reason="rank too high"))
    if errors:
        raise ExceptionGroup("invalid shapes", errors)


def run(shapes):
    log = []
    try:
        validate(shapes)
    except* ShapeError as group:
        log.extend(str(e) for e in group.exceptions)
    except* DeviceError:
        log.append("device")
    return log


def convert(text):
    try:
        return int(text)
    except (TypeError, ValueError) as exc:
        raise OpError(f"not an int: {text!r}") from exc
    finally:
        convert.calls = getattr(convert, "calls", 0) + 1


def risky():
    try:
        raise DeviceError("busy")
    except DeviceError:
        raise
    except Exception:  # pragma: no cover
        return None


if __name__ == "__main__":
    print(run([(1, 2), (0, 3), (1, 1, 1, 1, 1)]))
    try:
        convert("x")
    except OpError as e:
        assert isinstance(e.__cause__, ValueError)
    try:
        risky()
    except DeviceError as e:
        print("re-raised", e)
    assert convert.calls == 1
