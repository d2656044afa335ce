#!/usr/bin/env python3
"""Draws the perf_tests CSV output as one PNG: per-case GFLOP/s bars of every implementation (one-shot and reuse
panels) and their performance profiles (Dolan-More: the fraction of cases an implementation solves within a factor
tau of the fastest). Prints a summary: geometric means over the cases every implementation of a panel completed, and
each implementation's ratio to ours there.

usage: plot_perf.py perf.csv [more.csv ...] [--out perf.png] [--title TEXT] [--no-plot] [--table]
--table also prints each panel as a Markdown table of GFLOP/s (case rows, implementation columns, a geomean row).
Rows whose status is not "ok", "sampled" or "unchecked" count as failures: no bar, never within tau of the best.
Needs Debian's python3-matplotlib for the plot (the summary needs only the standard library).
"""
import argparse
import csv
import math
import sys
from collections import OrderedDict


def read_rows(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            lines = [line for line in f if not line.startswith("#")]
        for r in csv.DictReader(lines):
            try:
                r["seconds"] = float(r["seconds"])
                r["gflops"] = float(r["gflops"])
            except (KeyError, ValueError):
                raise SystemExit(f"{path}: not a perf_tests CSV (row {r})")
            r["valid"] = r["status"] in ("ok", "sampled", "unchecked") and r["seconds"] > 0
            rows.append(r)
    if not rows:
        raise SystemExit("no result rows in " + ", ".join(paths))
    return rows


def panels(rows):
    """{panel: {impl: {case: row}}} with panels one-shot, reuse, and other (rows of other executables)."""
    out = OrderedDict((p, OrderedDict()) for p in ("one-shot", "reuse", "other"))
    for r in rows:
        impl = r["impl"]
        if impl.endswith("_oneshot"):
            panel, name = "one-shot", impl[: -len("_oneshot")]
        elif impl.endswith("_reuse"):
            panel, name = "reuse", impl[: -len("_reuse")]
        else:
            panel, name = "other", impl
        out[panel].setdefault(name, OrderedDict())[r["case"]] = r
    return OrderedDict((p, impls) for p, impls in out.items() if impls)


def cases_of(impls):
    cases = []
    for by_case in impls.values():
        for c in by_case:
            if c not in cases:
                cases.append(c)
    return cases


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def summary(name, impls):
    """Geometric means over the cases that every implementation run on all cases completed; implementations run on
    fewer cases (the reference: small ones only) over their own cases, ratios to ours on those same cases."""
    cases = cases_of(impls)
    full = [impl for impl, by in impls.items() if len(by) == len(cases)]
    common = [c for c in cases if all(impls[i][c]["valid"] for i in full)]
    print(f"== {name}: {len(cases)} cases, {len(common)} completed by every implementation run on all ==")
    for impl, by in impls.items():
        own = common if impl in full else [c for c in by if by[c]["valid"] and c in common]
        mean = geomean([by[c]["gflops"] for c in own])
        ours = impls.get("ours")
        ratio = ""
        if ours and own and all(c in ours and ours[c]["valid"] for c in own):
            ratio = f"  ours/this {geomean([ours[c]['gflops'] for c in own]) / mean:.2f}x"
        failed = [c for c in cases if c in by and not by[c]["valid"]]
        scope = "" if impl in full else f" ({len(own)} cases)"
        print(f"  {impl:<22} geomean {mean:10.3f} GFLOP/s{scope}{ratio}" + (f"  failed: {', '.join(failed)}" if failed else ""))
    return common


def table(name, impls, common):
    """A Markdown table of GFLOP/s: a row per case (failed: the word), a geomean row over the common cases."""
    cases = cases_of(impls)
    names = list(impls)
    print(f"\n{name} (GFLOP/s)\n")
    print("| case | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for c in cases:
        cells = []
        for impl in names:
            r = impls[impl].get(c)
            cells.append("" if r is None else (f"{r['gflops']:.2f}" if r["valid"] else "failed"))
        print(f"| {c} | " + " | ".join(cells) + " |")
    means = [geomean([impls[i][c]["gflops"] for c in common if c in impls[i] and impls[i][c]["valid"]]) for i in names]
    print(f"| geomean ({len(common)} cases) | " + " | ".join(f"{m:.2f}" for m in means) + " |")


def profile(ax, impls, title):
    cases = cases_of(impls)
    best = {}
    for c in cases:
        times = [by[c]["seconds"] for by in impls.values() if c in by and by[c]["valid"]]
        if times:
            best[c] = min(times)
    ratios = {
        impl: [by[c]["seconds"] / best[c] if c in by and by[c]["valid"] else math.inf for c in best]
        for impl, by in impls.items()
    }
    # Log-spaced taus up to just past the largest finite ratio, so that every curve reaches its final height.
    top = max([r for rs in ratios.values() for r in rs if r != math.inf] + [2.0]) * 1.1
    taus = [top ** (i / 400) for i in range(401)]
    for impl, rs in ratios.items():
        ax.step(taus, [sum(r <= t for r in rs) / max(1, len(rs)) for t in taus], where="post", label=impl)
    ax.set_xscale("log")
    ax.set_xlabel("tau (time / fastest time)")
    ax.set_ylabel("fraction of cases within tau")
    ax.set_ylim(0, 1.02)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)


def bars(ax, impls, title):
    cases = cases_of(impls)
    width = 0.8 / max(1, len(impls))
    for k, (impl, by) in enumerate(impls.items()):
        xs = [i + k * width for i in range(len(cases))]
        ys = [by[c]["gflops"] if c in by and by[c]["valid"] else 0 for c in cases]
        ax.bar(xs, ys, width, label=impl)
    ax.set_yscale("log")
    ax.set_ylabel("GFLOP/s (2 x products / time)")
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(cases))])
    ax.set_xticklabels(cases, rotation=60, ha="right", fontsize=7)
    ax.set_title(title)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv", nargs="+")
    p.add_argument("--out", default="perf.png")
    p.add_argument("--title", default="KokkosSpGEMM perf_tests")
    p.add_argument("--no-plot", action="store_true", help="print the summary only")
    p.add_argument("--table", action="store_true", help="also print Markdown tables of GFLOP/s")
    args = p.parse_args(argv)
    groups = panels(read_rows(args.csv))
    for name, impls in groups.items():
        common = summary(name, impls)
        if args.table:
            table(name, impls, common)
    if args.no_plot:
        return 0
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(groups), figsize=(8 * len(groups), 11), squeeze=False)
    for col, (name, impls) in enumerate(groups.items()):
        bars(axes[0][col], impls, f"{name}: GFLOP/s per case")
        profile(axes[1][col], impls, f"{name}: performance profile")
        axes[1][col].legend(fontsize=7)
    fig.suptitle(args.title)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
