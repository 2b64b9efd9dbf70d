"""Reference dumps from CPython's own parser for the pyfront differential tests.

usage: cpython_dump.py [--attributes] FILE...
Prints one line per file: ast.dump() of the module, or "SyntaxError <line> <col> <msg>".
With --attributes, positions are included, except for f-string format specs whose
JoinedStr positions CPython 3.11 reports inconsistently (they are removed).
"""
import ast
import sys


def strip_format_spec_positions(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            spec = node.format_spec
            for target in [spec] + [v for v in spec.values if isinstance(v, ast.Constant)]:
                for name in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
                    if hasattr(target, name):
                        delattr(target, name)


def main(argv):
    attributes = "--attributes" in argv
    for path in [a for a in argv if a != "--attributes"]:
        with open(path, encoding="utf-8") as fh:
            source = fh.read()
        try:
            tree = ast.parse(source)
        except SyntaxError as err:
            print(f"SyntaxError {err.lineno} {err.offset} {err.msg}")
            continue
        if attributes:
            strip_format_spec_positions(tree)
        print(ast.dump(tree, include_attributes=attributes))


if __name__ == "__main__":
    main(sys.argv[1:])
