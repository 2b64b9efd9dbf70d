"""Tabs for indentation, backslash continuation, implicit joining and semicolons."""
import os, sys

TOTAL = 1 + \
    2 + \
    3


def tabbed(values):
	out = []
	for v in values:
		if v > 1 and \
				v < 10:
			out.append(v)  # a comment after code
		else:
			pass
	return out


def joined(a,
           b,   # comment inside brackets
           c=[1,
              2,
              ],
           ):
    x = 1; y = 2; z = (x +
                     y)
    return (a, b, c, x,
            y, z)


if __name__ == "__main__": print(tabbed([1, 5, 20]), joined(1, 2), TOTAL, os.sep, sys.platform); print("done");
