#!/usr/bin/env python3
"""Command-line driver: argument parsing, files, try/except/else/finally and exit codes."""
import argparse
import json
import pathlib
import sys


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="run the operator cases")
    p.add_argument("op_dir", type=pathlib.Path)
    p.add_argument("--cases", nargs="*", default=[], help="case ids to run")
    p.add_argument("--json", action="store_true")
    p.add_argument("--repeat", type=int, default=1, choices=range(1, 11))
    return p.parse_args(argv)


def load_cases(path: pathlib.Path):
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        return []
    except json.JSONDecodeError as err:
        raise SystemExit(f"{path}:{err.lineno}:{err.colno}: {err.msg}") from err
    else:
        return data.get("cases", [])
    finally:
        pass


def main(argv=None) -> int:
    args = parse_args(argv)
    cases = load_cases(args.op_dir / "PERFORMANCE_CASES.json")
    wanted = set(args.cases)
    selected = [c for c in cases if not wanted or c.get("id") in wanted]
    results = []
    for case in selected:
        for attempt in range(args.repeat):
            status = "PASS" if case.get("shape") else "SKIP"
            results.append({"id": case.get("id"), "attempt": attempt, "status": status})
    if args.json:
        json.dump(results, sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
    else:
        for r in results:
            print("{id:>12} #{attempt}: {status}".format(**r))
    return 0 if all(r["status"] != "FAIL" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
