#!/usr/bin/env python3
"""Distributed benchmark (issue 32): kokkosspgemm-mpi over a list of cases at several rank counts, ours against
Tpetra's own MatrixMatrix::Multiply / TripleMatrixMultiply::MultiplyRAP in the same process (each run checks that
both give the same C). Prints a Markdown table and, with --csv FILE, writes the rows as CSV.

  python3 perf_tests/distributed_scaling.py --tool BUILD/src/tool/kokkosspgemm-mpi --ranks 1 2 4 [--repeat 5]
      [--case multiply:gen:p3d7:40 ...] [--mpirun "mpirun --oversubscribe"]

A case is multiply:A, multiply:A:with:B or rap:A:with:P (A, B, P as the tool takes them). When Tpetra's product
fails on a case (Tpetra 13.2's serial kernels overrun their output on some inputs), the case is run again without
it and Tpetra's columns say so.
"""
import argparse
import csv
import os
import re
import shlex
import subprocess
import sys

DEFAULT_CASES = [
    "multiply:gen:p3d7:48",
    "multiply:gen:p3d27:32",
    "multiply:gen:rmat:14:8",
    "rap:gen:p3d7:48:with:gen:prolong:48:2:tentative",
    "rap:gen:p3d7:48:with:gen:prolong:48:2:smoothed",
]


def parse_case(case):
    kind, _, rest = case.partition(":")
    if kind not in ("multiply", "rap"):
        raise SystemExit(f"bad case {case!r}: starts with multiply: or rap:")
    first, _, second = rest.partition(":with:")
    flags = ["--a", first]
    if second:
        flags += ["--p" if kind == "rap" else "--b", second]
    elif kind == "rap":
        raise SystemExit(f"bad case {case!r}: rap needs :with:P")
    return kind, flags


def number(pattern, text):
    m = re.search(pattern, text, re.M)
    return float(m.group(1)) if m else None


def run(mpirun, ranks, tool, kind, flags, repeat, layout, tpetra, timeout):
    cmd = shlex.split(mpirun) + ["-np", str(ranks), tool, kind] + flags + ["--repeat", str(repeat), "--layout", layout]
    if not tpetra:
        cmd.append("--no-tpetra")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout"
    return p.returncode, p.stdout + p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--layout", default="contiguous")
    ap.add_argument("--case", action="append", dest="cases")
    default_mpirun = "mpirun --oversubscribe" + (" --allow-run-as-root" if os.geteuid() == 0 else "")
    ap.add_argument("--mpirun", default=default_mpirun)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--csv")
    args = ap.parse_args()

    rows = []
    failed = False
    for case in args.cases or DEFAULT_CASES:
        kind, flags = parse_case(case)
        for ranks in args.ranks:
            rc, out = run(args.mpirun, ranks, args.tool, kind, flags, args.repeat, args.layout, True, args.timeout)
            tpetra_note = ""
            if rc != 0:
                tpetra_note = "Tpetra failed" if rc is not None else "timeout"
                rc, out = run(args.mpirun, ranks, args.tool, kind, flags, args.repeat, args.layout, False,
                              args.timeout)
            if rc != 0:
                print(f"{case} at {ranks} ranks: ours failed\n{out}", file=sys.stderr)
                failed = True
                continue
            row = {
                "case": case,
                "ranks": ranks,
                "nnz_c": int(number(r"^nnz\(C\)\s+(\d+)", out) or 0),
                "ours_one_shot_s": number(r"^ours one-shot\s+([0-9.]+)", out),
                "ours_reuse_s": number(r"^ours reuse\s+([0-9.]+)", out),
                "ours_symbolic_import_s": number(r"last symbolic.*?import ([0-9.]+)", out),
                "ours_numeric_import_s": number(r"last numeric.*?import ([0-9.]+)", out),
                "tpetra_one_shot_s": number(r"^Tpetra one-shot\s+([0-9.]+)", out),
                "tpetra_reuse_s": number(r"^Tpetra reuse\s+([0-9.]+)", out),
                "check": ("same C as Tpetra" if "same C as Tpetra" in out else tpetra_note or "?"),
            }
            rows.append(row)

    def ratio(t, o):
        return f"{t / o:.2f}x" if t and o else "-"

    print("| case | ranks | nnz(C) | ours one-shot s | Tpetra one-shot s | ratio | ours reuse s | Tpetra reuse s | "
          "ratio | import (sym / num) s | check |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        t1 = f"{r['tpetra_one_shot_s']:.4f}" if r["tpetra_one_shot_s"] else "-"
        t2 = f"{r['tpetra_reuse_s']:.4f}" if r["tpetra_reuse_s"] else "-"
        print(f"| {r['case']} | {r['ranks']} | {r['nnz_c']} | {r['ours_one_shot_s']:.4f} | {t1} | "
              f"{ratio(r['tpetra_one_shot_s'], r['ours_one_shot_s'])} | {r['ours_reuse_s']:.4f} | {t2} | "
              f"{ratio(r['tpetra_reuse_s'], r['ours_reuse_s'])} | "
              f"{r['ours_symbolic_import_s']:.4f} / {r['ours_numeric_import_s']:.4f} | {r['check']} |")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["case"])
            w.writeheader()
            w.writerows(rows)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
