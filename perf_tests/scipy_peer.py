#!/usr/bin/env python3
"""scipy as a CPU peer of KokkosSpGEMM_PerfSpGEMM, in the same run: times C = A @ B (one thread, unsorted rows as
scipy leaves them) and A @ B followed by sort_indices (sorted, as ours), on the matrices that
`KokkosSpGEMM_PerfSpGEMM --export DIR` wrote (<case>.A.csr, <case>.B.csr unless B is A, and <case>.C.csr, ours,
which PerfSpGEMM checked against the reference), checks each C against ours, and appends rows to that run's CSV.

    KokkosSpGEMM_PerfSpGEMM --export DIR --csv run.csv ...
    python3 perf_tests/scipy_peer.py --export DIR --csv run.csv [--repeat N]
"""
import argparse
import csv
import os
import sys
import time

import numpy as np
import scipy
import scipy.sparse as sp


def read_csr(path):
    """The format of write_csr_binary (PerfCommon.hpp): int64 rows, columns, entries; int64 row map; int32 columns;
    float64 values."""
    with open(path, "rb") as f:
        rows, cols, nnz = np.fromfile(f, dtype=np.int64, count=3)
        row_map = np.fromfile(f, dtype=np.int64, count=rows + 1)
        entries = np.fromfile(f, dtype=np.int32, count=nnz)
        values = np.fromfile(f, dtype=np.float64, count=nnz)
    if len(values) != nnz:
        raise ValueError(f"{path}: truncated")
    return sp.csr_matrix((values, entries, row_map), shape=(int(rows), int(cols)))


def time_median(repeat, f):
    """Median of `repeat` calls after a warm-up, short calls timed more often (as time_median in PerfCommon.hpp)."""
    t0 = time.perf_counter()
    f()
    warm = time.perf_counter() - t0
    repeat = max(repeat, min(31, int(0.05 / warm)) if warm > 0 else 31)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


def check(c, ours):
    """'ok' when c equals ours within a relative 1e-10 of each row's largest value. scipy leaves out the entries whose
    sum is exactly zero (cancellation), which ours keeps; the difference compares them as zeros."""
    if c.shape != ours.shape:
        return f"WRONG: shape {c.shape}, expected {ours.shape}"
    diff = (c - ours).tocsr()
    diff.sum_duplicates()
    scale = np.maximum(abs(ours).max(axis=1).toarray().ravel(), 1e-300)
    rows = np.repeat(np.arange(diff.shape[0]), np.diff(diff.indptr))
    err = np.abs(diff.data) / scale[rows]
    if err.size and err.max() > 1e-10:
        return f"WRONG: relative error {err.max():.3g} in row {rows[err.argmax()]}"
    return "ok"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--export", required=True, help="the folder PerfSpGEMM --export wrote")
    p.add_argument("--csv", required=True, help="the CSV of that PerfSpGEMM run, to append to")
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    cases = sorted(f[: -len(".C.csr")] for f in os.listdir(args.export) if f.endswith(".C.csr"))
    if not cases:
        sys.exit(f"scipy_peer: no <case>.C.csr in {args.export} (run KokkosSpGEMM_PerfSpGEMM --export first)")
    print(f"scipy {scipy.__version__}, numpy {np.__version__}: one thread")
    all_ok = True
    with open(args.csv, "a", newline="") as out:
        w = csv.writer(out)
        for case in cases:
            a = read_csr(os.path.join(args.export, case + ".A.csr"))
            b_path = os.path.join(args.export, case + ".B.csr")
            b = read_csr(b_path) if os.path.exists(b_path) else a  # no B file: A * A
            ours = read_csr(os.path.join(args.export, case + ".C.csr"))
            products = int(np.diff(b.indptr)[a.indices].sum())

            def sorted_product():
                c = a @ b
                c.sort_indices()
                return c

            for impl, f in (("scipy_oneshot", lambda: a @ b), ("scipy_sorted_oneshot", sorted_product)):
                status = check(f(), ours)
                seconds = time_median(args.repeat, f)
                gflops = 2.0 * products / seconds * 1e-9
                all_ok = all_ok and status == "ok"
                print(f"{case:24s} {impl:26s} {seconds:11.6f} {gflops:9.3f} {ours.nnz:12d} {products:13d}  {status}")
                w.writerow([case, impl, seconds, gflops, ours.nnz, products, products / max(ours.nnz, 1), 0, 0, 0,
                            -1, status, -1])
    print("all results validated" if all_ok else "SOME RESULTS FAILED VALIDATION")
    sys.exit(0 if all_ok else 1)


if __name__ == "__main__":
    main()
