# -*- coding: utf-8 -*-
"""String literal forms: prefixes, escapes, concatenation and f-strings."""
plain = 'single' "double" '''triple single''' """triple double"""
escapes = "tab\tnewline\nquote\"backslash\\bell\a\x41\101\u00e9\U0001F600"
raw = r"C:\path\to\file" + R'\d+\.\d*' + rb"\x00" .decode()
data = b"\x00\xff bytes" + B'more' + Rb"raw\n" + bR"\t"
unicode_text = u"caf\u00e9 \u4e2d\u6587 中文"
multi = """line one
    line two with 'quotes' and "double"
\tline three\
 joined"""
width = 10
precision = 3
value = 3.14159
name = "pi"
items = {"a": 1, "b": [1, 2]}
formatted = f"{name!r:>{width}} = {value:.{precision}f} ({value:e}) {{literal}}"
nested = f"{'yes' if value > 3 else 'no'} {items['a']} {items['b'][1]:03d}"
self_doc = f"{value=} {value = :.2f} {name=!s}"
fmt_spec = f"{value:{width}.{precision}}|{width:#x}|{width:08b}|{1e6:,.0f}"
multi_f = f"""
total: {sum(items['b'])}
names: {', '.join(sorted(items))}
"""
raw_f = rf"\d{width}" + fr"{name}\n" + Rf"{value}"
expr_f = f"{(lambda x: x * 2)(width)} {[i for i in range(3)]} {dict(a=1)}"
concat_f = "prefix " f"{width}" " middle " f"{name:^9}" r" \raw"
empty_parts = f"" "" f"{''}"
print(plain, escapes, raw, data, unicode_text, multi, formatted, nested, self_doc, fmt_spec,
      multi_f, raw_f, expr_f, concat_f, empty_parts, sep="\n")
