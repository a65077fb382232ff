#!/usr/bin/env python3
"""halox report: plots and the overlap-coverage table of `halox run` and `halox pingpong` CSVs.

usage: halox report FILE.csv... [--out DIR] [--quiet]   (or: python3 scripts/halox_report.py ...)

Each CSV is told apart by its header: `halox pingpong --format csv` rows have bench=pingpong,
`halox run --format csv` rows have us_per_sweep. Draws, as PNG and SVG under DIR (default
halox-report):
  run_time_per_sweep   microseconds per sweep vs depth, one line per configuration
                       (pattern, overlap, transport, and whatever else varies between rows)
  run_segments         pack, message, unpack and desync time per sweep vs depth (slowest rank)
  run_speedup          speed-up of each transport over mpi vs depth (needs mpi and another transport
                       of otherwise equal runs)
  pingpong_latency     median (and p99) half round trip vs message size, per transport and pair
  pingpong_bandwidth   bandwidth vs message size
and prints the overlap-coverage table per depth (runs with --overlap on and off of otherwise equal
configurations): serial - overlap time per sweep, the serial run's message + desync time per sweep
(what overlap could hide), and the fraction covered = (serial - overlap) / (message + desync).
The table is also written to DIR/overlap_coverage.csv. Needs matplotlib (Debian: python3-matplotlib).
--quiet leaves out the warnings and notes on stderr (errors still show); --verbose is accepted, as by
every halox subcommand, and changes nothing here.
"""
import argparse
import csv
import math
import os
import sys
from collections import OrderedDict, defaultdict

QUIET = False  # --quiet: no warnings or notes


def warn(msg):
    if not QUIET:
        print(msg, file=sys.stderr)


# Configuration columns of a run row; a series is every one of them but depth.
RUN_CONFIG = ["dim", "nx", "ny", "nz", "ranks", "px", "py", "pz", "stencil", "dtype", "pattern", "overlap", "boundary",
              "backend", "transport", "iters", "fuse", "graph", "schedule", "desync_barrier", "gpu", "devices"]
SEGMENTS = ["pack", "message", "unpack", "desync"]


def number(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def read_csvs(paths):
    runs, pings = [], []
    for path in paths:
        with open(path, newline="") as f:
            lines = [ln for ln in f if ln.strip()]
        header_idx = [i for i, ln in enumerate(lines) if ln.startswith("dim,") or ln.startswith("bench,")]
        if not header_idx:
            warn(f"halox report: warning: {path}: no halox run or pingpong CSV header, skipped")
            continue
        # a file may hold several CSV outputs one after another (each with its header)
        for n, start in enumerate(header_idx):
            end = header_idx[n + 1] if n + 1 < len(header_idx) else len(lines)
            for row in csv.DictReader(lines[start:end]):
                if row.get("bench") == "pingpong":
                    pings.append(row)
                elif "us_per_sweep" in row:
                    runs.append(row)
    return runs, pings


def varying(rows, keys):
    return [k for k in keys if len({r.get(k, "") for r in rows}) > 1]


def label_of(row, keys):
    parts = []
    for k in keys:
        v = row.get(k, "")
        if k == "overlap":
            parts.append("overlap" if v == "1" else "serial")
        elif k in ("pattern", "transport", "stencil", "dtype", "backend", "schedule"):
            parts.append(v)
        else:
            parts.append(f"{k}={v}")
    return " ".join(parts) if parts else "run"


LINESTYLES = ["-", "--", ":", "-."]
MARKERS = ["o", "s", "^", "v", "D", "P", "X", "*"]


def colour_map(n):
    """Enough distinct colours for n series (matplotlib's tab10 repeats after ten)."""
    import matplotlib
    return matplotlib.colormaps["tab10" if n <= 10 else "tab20"]


def looks_of(rows, keys):
    """Series told apart by look, not by a colour cycle that repeats: the first of keys (put the
    transport first) picks the colour, the second the line style, the third the marker; later keys
    only label. Returns (style, rank): style(row) gives plot keyword arguments, rank(row) a sort key
    that lists each colour's series together, in the order the rows first show the values."""
    values = {k: list(OrderedDict.fromkeys(r.get(k, "") for r in rows)) for k in keys}
    cmap = colour_map(len(values[keys[0]]) if keys else 1)

    def rank(row):
        return [values[k].index(row.get(k, "")) for k in keys]

    def style(row):
        idx = rank(row)
        kw = {"color": cmap(idx[0] % cmap.N) if idx else cmap(0), "marker": "o", "ls": "-"}
        if len(idx) > 1:
            kw["ls"] = LINESTYLES[idx[1] % len(LINESTYLES)]
        if len(idx) > 2:
            kw["marker"] = MARKERS[idx[2] % len(MARKERS)]
        return kw
    return style, rank


def legend_outside(ax, fontsize=7):
    """The legend right of the axes, where it hides no line (savefig's tight box keeps it)."""
    ax.legend(fontsize=fontsize, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)


def per_sweep_us(row, seg):
    return 1e6 * number(row.get(f"{seg}_max_s")) / number(row.get("iters"))


def series(rows, exclude):
    """rows grouped by every configuration column but those in exclude; each group sorted by depth,
    duplicates (same depth) averaged."""
    keys = [k for k in RUN_CONFIG if k not in exclude]
    groups = OrderedDict()
    for r in rows:
        groups.setdefault(tuple(r.get(k, "") for k in keys), []).append(r)
    return keys, groups


def by_depth(rows, value):
    acc = defaultdict(list)
    for r in rows:
        v = value(r)
        if math.isfinite(v):
            acc[int(number(r["depth"]))].append(v)
    ds = sorted(acc)
    return ds, [sum(acc[d]) / len(acc[d]) for d in ds]


def save(fig, out, name, written):
    for ext in ("png", "svg"):
        path = os.path.join(out, f"{name}.{ext}")
        fig.savefig(path, dpi=120, bbox_inches="tight")
        written.append(path)


def plot_runs(plt, runs, out, written):
    # transport first: it picks the colour (looks_of) and leads each label
    lab_keys = sorted((k for k in varying(runs, RUN_CONFIG) if k != "depth"), key=lambda k: k != "transport")
    keys, groups = series(runs, {"depth"})
    style, rank = looks_of(runs, lab_keys)
    ordered = sorted(groups.values(), key=lambda g: rank(g[0]))

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for g in ordered:
        ds, us = by_depth(g, lambda r: number(r["us_per_sweep"]))
        ax.plot(ds, us, label=label_of(g[0], lab_keys), **style(g[0]))
    ax.set_xscale("log", base=2)
    ax.set_xlabel("halo depth (sweeps per exchange)")
    ax.set_ylabel("time per sweep (us, slowest rank)")
    ax.set_title("halox run: time per sweep vs depth")
    ax.grid(True, alpha=0.3)
    legend_outside(ax)
    save(fig, out, "run_time_per_sweep", written)
    plt.close(fig)

    fig, axes = plt.subplots(2, 2, figsize=(10, 7), sharex=True)
    for ax, seg in zip(axes.flat, SEGMENTS):
        for g in ordered:
            ds, us = by_depth(g, lambda r, s=seg: per_sweep_us(r, s))
            ax.plot(ds, us, label=label_of(g[0], lab_keys), **style(g[0]))
        ax.set_title(f"{seg} per sweep")
        ax.set_xscale("log", base=2)
        ax.set_ylabel("us (slowest rank)")
        ax.grid(True, alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("halo depth")
    fig.suptitle("halox run: segments vs depth")
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 0.93))
    save(fig, out, "run_segments", written)
    plt.close(fig)

    # speed-up over mpi: rows equal but for the transport
    keys_nt, groups_nt = series(runs, {"depth", "transport"})
    fig, ax = plt.subplots(figsize=(7, 4.5))
    drawn = 0
    lab_nt = [k for k in lab_keys if k != "transport"]
    lines = []
    for g in groups_nt.values():
        per_tr = OrderedDict()
        for r in g:
            per_tr.setdefault(r["transport"], []).append(r)
        if "mpi" not in per_tr or len(per_tr) < 2:
            continue
        base = dict(zip(*by_depth(per_tr["mpi"], lambda r: number(r["us_per_sweep"]))))
        for tr, rs in per_tr.items():
            if tr == "mpi":
                continue
            ds, us = by_depth(rs, lambda r: number(r["us_per_sweep"]))
            pts = [(d, base[d] / u) for d, u in zip(ds, us) if d in base and u > 0]
            if pts:
                lines.append((rank(rs[0]), pts, " ".join([tr, label_of(g[0], lab_nt)]).strip(), style(rs[0])))
    for _, pts, label, kw in sorted(lines, key=lambda ln: ln[0]):  # each colour's lines together
        ax.plot([p[0] for p in pts], [p[1] for p in pts], label=label, **kw)
        drawn += 1
    if drawn:
        ax.axhline(1.0, color="gray", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("halo depth")
        ax.set_ylabel("speed-up over mpi (time per sweep ratio)")
        ax.set_title("halox run: speed-up over host-staged mpi")
        ax.grid(True, alpha=0.3)
        legend_outside(ax)
        save(fig, out, "run_speedup", written)
    else:
        warn("halox report: note: no speed-up plot: the CSVs hold no mpi run with a matching run of another transport")
    plt.close(fig)


def coverage(runs, out):
    """Rows with overlap on and off of otherwise equal configurations, per depth."""
    keys, groups = series(runs, {"depth", "overlap"})
    lab_keys = [k for k in varying(runs, RUN_CONFIG) if k not in ("depth", "overlap")]
    table = []
    for g in groups.values():
        on = dict(zip(*by_depth([r for r in g if r["overlap"] == "1"], lambda r: number(r["us_per_sweep"]))))
        off_rows = [r for r in g if r["overlap"] == "0"]
        off = dict(zip(*by_depth(off_rows, lambda r: number(r["us_per_sweep"]))))
        comm = dict(zip(*by_depth(off_rows, lambda r: per_sweep_us(r, "message") + per_sweep_us(r, "desync"))))
        for d in sorted(set(on) & set(off)):
            diff = off[d] - on[d]
            c = comm.get(d, math.nan)
            pct = 100.0 * diff / c if c and c > 0 else math.nan
            table.append((label_of(g[0], lab_keys), d, off[d], on[d], diff, c, pct))
    if not table:
        print("overlap coverage: no pair of runs with --overlap=on and off of the same configuration "
              "(run e.g. halox run --overlap=on,off --depth 1,2,4 --format csv)")
        return
    print("overlap coverage per depth (us per sweep, slowest rank; covered = (serial - overlap) / (message + desync "
          "of the serial run))")
    hdr = ("configuration", "depth", "serial_us", "overlap_us", "diff_us", "msg+desync_us", "covered_%")
    w = max(len(hdr[0]), max(len(t[0]) for t in table))
    print(f"{hdr[0]:<{w}} {hdr[1]:>5} {hdr[2]:>11} {hdr[3]:>11} {hdr[4]:>10} {hdr[5]:>14} {hdr[6]:>10}")
    for lab, d, s, o, diff, c, pct in table:
        print(f"{lab:<{w}} {d:>5} {s:>11.3f} {o:>11.3f} {diff:>10.3f} {c:>14.3f} {pct:>10.1f}")
    with open(os.path.join(out, "overlap_coverage.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["configuration", "depth", "serial_us", "overlap_us", "diff_us", "message_desync_us", "covered_pct"])
        for t in table:
            wr.writerow([t[0], t[1]] + [f"{v:.4f}" for v in t[2:]])


def plot_pings(plt, pings, out, written):
    groups = OrderedDict()
    for r in pings:
        groups.setdefault((r["backend"], r["transport"], r["rank_a"], r["rank_b"], r.get("compute_us", "0")), []).append(r)
    multi_pair = len({(k[2], k[3]) for k in groups}) > 1
    multi_backend = len({k[0] for k in groups}) > 1

    def label(k):
        s = k[1]
        if multi_backend:
            s = f"{k[0]} {s}"
        if multi_pair:
            s += f" {k[2]}-{k[3]}"
        if k[4] not in ("", "0"):
            s += f" compute {k[4]} us"
        return s

    # a colour a transport (and backend), a marker a pair: every pair of a --pairs all run stays told apart
    looks = list(OrderedDict.fromkeys((k[0], k[1]) for k in groups))
    pairs = list(OrderedDict.fromkeys((k[2], k[3]) for k in groups))
    cmap = colour_map(len(looks))

    def colour_of(k):
        return cmap(looks.index((k[0], k[1])) % cmap.N)

    def marker_of(k):
        return MARKERS[pairs.index((k[2], k[3])) % len(MARKERS)]

    for name, col, ylabel in (("pingpong_latency", "median_us", "half round trip (us)"),
                              ("pingpong_bandwidth", "bandwidth_gbs", "bandwidth (GB/s, one direction)")):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for k, rs in groups.items():
            pts = sorted((number(r["bytes"]), number(r[col]), number(r.get("p99_us"))) for r in rs)
            pts = [p for p in pts if math.isfinite(p[1])]
            line, = ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker_of(k), color=colour_of(k),
                            label=label(k) + (" median" if col == "median_us" else ""))
            if col == "median_us":
                ax.plot([p[0] for p in pts], [p[2] for p in pts], ls="--", color=line.get_color(), alpha=0.6,
                        label=label(k) + " p99")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel(ylabel)
        ax.set_title("halox pingpong: " + ("latency" if col == "median_us" else "bandwidth") + " vs size")
        ax.grid(True, which="both", alpha=0.3)
        legend_outside(ax)
        save(fig, out, name, written)
        plt.close(fig)


def global_options(argv):
    """--quiet and --verbose in the spellings halox accepts for every subcommand, taken out of argv."""
    global QUIET
    rest = []
    for x in argv:
        if x in ("--quiet", "--quiet=on"):
            QUIET = True
        elif x in ("--quiet=off", "--no-quiet"):
            QUIET = False
        elif x not in ("--verbose", "--no-verbose") and not x.startswith("--verbose="):
            rest.append(x)
    return rest


def main(argv):
    ap = argparse.ArgumentParser(prog="halox report",
                                 description="Plots (PNG and SVG) and the overlap-coverage table of halox run and "
                                             "halox pingpong CSVs (--format csv).",
                                 epilog="--quiet: no warnings or notes on stderr; --verbose: accepted, as by every "
                                        "halox subcommand")
    ap.add_argument("files", nargs="+", metavar="FILE.csv")
    ap.add_argument("--out", default="halox-report", metavar="DIR", help="where the figures go (default halox-report)")
    a = ap.parse_args(global_options(argv))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        # the Debian package (python3-matplotlib) serves /usr/bin/python3, which may not be the python3
        # first on PATH (pyenv, a virtual environment): try it once (there, sys.executable is it)
        sysp = "/usr/bin/python3"
        if os.path.exists(sysp) and os.path.realpath(sys.executable) != os.path.realpath(sysp):
            os.execv(sysp, [sysp, os.path.abspath(__file__)] + argv)
        print("halox report: error: matplotlib is missing: install python3-matplotlib (Debian/Ubuntu) or "
              "pip install matplotlib", file=sys.stderr)
        return 3
    for p in a.files:
        if not os.path.isfile(p):
            print(f"halox report: error: no such file '{p}'", file=sys.stderr)
            return 2
    runs, pings = read_csvs(a.files)
    if not runs and not pings:
        print("halox report: error: no halox run or pingpong rows in the files: make them with --format csv",
              file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    written = []
    if runs:
        plot_runs(plt, runs, a.out, written)
        coverage(runs, a.out)
    if pings:
        plot_pings(plt, pings, a.out, written)
    print(f"halox report: {len(runs)} run rows, {len(pings)} pingpong rows; wrote {len(written)} files in {a.out}:")
    for p in written:
        print("  " + p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
