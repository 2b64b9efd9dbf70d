"""A validator for the subset of JSON Schema (draft 2020-12) that docs/schemas/*.json and
docs/report-schema.json use, in the Python standard library only.

Keywords: type, const, enum, required, properties, additionalProperties, items, minItems,
minimum, maximum, anyOf, $ref (to "#/$defs/..." or to another schema file, relative to the
referring file) and $defs. Annotations ($schema, $id, title, description, $comment, default,
examples) are ignored. Any other keyword is an error in the schema, so a schema can never
rely on a check this validator silently skips.

    errors = validate(document, "docs/schemas/check.schema.json")   # [] when valid
"""

import json
import os

ANNOTATIONS = {"$schema", "$id", "title", "description", "$comment", "default", "examples", "$defs"}
KEYWORDS = {"type", "const", "enum", "required", "properties", "additionalProperties", "items",
            "minItems", "minimum", "maximum", "anyOf", "$ref"}

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


class SchemaError(Exception):
    """The schema itself uses something outside the subset (or a broken $ref)."""


class _Validator:
    def __init__(self):
        self.files = {}

    def load(self, path):
        path = os.path.abspath(path)
        if path not in self.files:
            with open(path, encoding="utf-8") as f:
                self.files[path] = json.load(f)
        return path, self.files[path]

    def resolve(self, ref, base):
        target, _, fragment = ref.partition("#")
        path = base
        if target:
            path = os.path.join(os.path.dirname(base), target)
        path, root = self.load(path)
        node = root
        for part in [p for p in fragment.split("/") if p]:
            if not isinstance(node, dict) or part not in node:
                raise SchemaError("unresolvable $ref %r from %s" % (ref, base))
            node = node[part]
        return node, path

    def check(self, value, schema, base, where, errors):
        if schema is True or schema == {}:
            return
        if schema is False:
            errors.append("%s: no value is allowed here" % where)
            return
        if not isinstance(schema, dict):
            raise SchemaError("%s: a schema must be an object or a boolean" % where)
        unknown = set(schema) - KEYWORDS - ANNOTATIONS
        if unknown:
            raise SchemaError("%s: keywords outside the supported subset: %s" % (where, sorted(unknown)))
        if "$ref" in schema:
            node, path = self.resolve(schema["$ref"], base)
            self.check(value, node, path, where, errors)
        if "type" in schema:
            types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            for t in types:
                if t not in _TYPES:
                    raise SchemaError("%s: unknown type %r" % (where, t))
            if not any(_TYPES[t](value) for t in types):
                errors.append("%s: expected %s, got %s" % (where, "/".join(types), type(value).__name__))
                return
        if "const" in schema and not _same(value, schema["const"]):
            errors.append("%s: expected %r, got %r" % (where, schema["const"], value))
        if "enum" in schema and not any(_same(value, e) for e in schema["enum"]):
            errors.append("%s: %r is not one of %r" % (where, value, schema["enum"]))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if "minimum" in schema and value < schema["minimum"]:
                errors.append("%s: %r is below the minimum %r" % (where, value, schema["minimum"]))
            if "maximum" in schema and value > schema["maximum"]:
                errors.append("%s: %r is above the maximum %r" % (where, value, schema["maximum"]))
        if isinstance(value, dict):
            for key in schema.get("required", []):
                if key not in value:
                    errors.append("%s: missing required property %r" % (where, key))
            props = schema.get("properties", {})
            extra = schema.get("additionalProperties", True)
            for key, v in value.items():
                if key in props:
                    self.check(v, props[key], base, "%s.%s" % (where, key), errors)
                elif extra is False:
                    errors.append("%s: unexpected property %r" % (where, key))
                elif isinstance(extra, dict):
                    self.check(v, extra, base, "%s.%s" % (where, key), errors)
        if isinstance(value, list):
            if "minItems" in schema and len(value) < schema["minItems"]:
                errors.append("%s: fewer than %d items" % (where, schema["minItems"]))
            if "items" in schema:
                for i, v in enumerate(value):
                    self.check(v, schema["items"], base, "%s[%d]" % (where, i), errors)
        if "anyOf" in schema:
            for option in schema["anyOf"]:
                sub = []
                self.check(value, option, base, where, sub)
                if not sub:
                    break
            else:
                errors.append("%s: matches none of the anyOf alternatives" % where)


def _same(a, b):
    return type(a) is type(b) and a == b or (
        isinstance(a, (int, float)) and isinstance(b, (int, float))
        and not isinstance(a, bool) and not isinstance(b, bool) and a == b)


def validate(document, schema_path):
    """The list of violations of `document` against the schema file (empty when valid).
    Raises SchemaError when the schema leaves the supported subset."""
    v = _Validator()
    path, schema = v.load(schema_path)
    errors = []
    v.check(document, schema, path, "$", errors)
    return errors
