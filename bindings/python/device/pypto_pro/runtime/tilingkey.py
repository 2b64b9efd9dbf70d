"""pypto_pro.runtime.tilingkey on opdev's CPU device: compile-time specialization keys.

A class whose attributes are ``TilingKeyField(bits=, values=)`` declares the key; a launch
``kernel[stream, block_dim, {"Field": v, ...}]`` checks the dict against it (the frontend's
messages, as ValueError) and the simulator sees each field as a module constant of that value.
"""

__all__ = ["TilingKeyField", "TilingKeySchema"]

_MAX_TOTAL_BITS = 64


class TilingKeyField:
    def __init__(self, *, bits, values):
        self.bits = bits
        self.values = list(values)
        self.name = None

    def __set_name__(self, owner, name):
        self.name = name


class TilingKeySchema:
    def __init__(self, cls):
        if not isinstance(cls, type):
            raise ValueError("tiling_key must be a class, got %s" % type(cls).__name__)
        self._cls = cls
        self._fields = [v for v in vars(cls).values() if isinstance(v, TilingKeyField)]
        if not self._fields:
            raise ValueError("tiling_key class '%s' has no TilingKeyField members" % cls.__name__)
        check = getattr(cls, "is_valid", None)
        if check is not None and not callable(check):
            raise ValueError("tiling_key class '%s' has a non-callable 'is_valid' member" % cls.__name__)
        # Bound as the frontend binds it (to an instance made without __init__): a plain method
        # gets that instance, a classmethod stays bound to the class.
        self.is_valid = check.__get__(object.__new__(cls), cls) if check is not None else None
        offset = 0
        for f in self._fields:
            if f.bits <= 0:
                raise ValueError("tilingkey field '%s' must have bits > 0, got %s" % (f.name, f.bits))
            if not f.values:
                raise ValueError("tilingkey field '%s' must have a non-empty 'values' list" % f.name)
            for v in f.values:
                if not isinstance(v, int) or isinstance(v, bool):
                    raise ValueError("tilingkey field '%s' values must be ints, got %r" % (f.name, v))
            if len(set(f.values)) != len(f.values):
                raise ValueError("tilingkey field '%s' values must be unique" % f.name)
            if max(f.values) >= (1 << f.bits) or min(f.values) < 0:
                raise ValueError("tilingkey field '%s' values %s do not fit in %d bits" % (f.name, f.values, f.bits))
            f.offset = offset
            offset += f.bits
        if offset > _MAX_TOTAL_BITS:
            raise ValueError("tiling_key class '%s' uses %d bits, exceeding the %d-bit limit"
                             % (cls.__name__, offset, _MAX_TOTAL_BITS))

    @property
    def cls_name(self):
        return self._cls.__name__

    def field_names(self):
        return [f.name for f in self._fields]

    def pack(self, key):
        packed = 0
        for f in self._fields:
            packed |= key[f.name] << f.offset
        return packed

    def validate_concrete(self, key):
        if not isinstance(key, dict):
            raise ValueError("tilingkey must be specified as a dict, got %s" % type(key).__name__)
        if sorted(key) != sorted(self.field_names()):
            raise ValueError("tilingkey keys %s do not match schema fields %s" % (sorted(key), sorted(self.field_names())))
        for f in self._fields:
            v = key[f.name]
            if v not in f.values:
                raise ValueError("tilingkey field '%s' value %r is not a candidate; allowed: %s" % (f.name, v, list(f.values)))
        if self.is_valid and not self.is_valid(tuple(key[f.name] for f in self._fields)):
            raise ValueError("tilingkey %s did not pass %s.is_valid" % (key, self.cls_name))
