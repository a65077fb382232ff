#!/usr/bin/env python3
"""A model on paper (issue 12 part 3): time per sweep against node count.

t_sweep = [ sum over a cycle of d sweeps of t_compute(extended block)
            + t_exchange(d) - overlap ] / d
t_exchange = phases x max(intra path, inter path), each path = latency + bytes/bandwidth.
Every input marked MEASURED comes from docs/results.md (section named in the comment);
every input marked ASSUMED did not (no multi-node machine was lent). Pure Python 3.
Usage: python3 scripts/scaling_model.py [--csv docs/results/scaling_model.csv]
"""
import itertools, math, sys

# ---------------- MEASURED inputs (docs/results.md) ----------------
# "Roofline: one H200": jacobi5 fp32 16384^2 556.9 us/sweep; jacobi7 fp32 512^3 323.9 us/sweep.
RATE_2D = 16384**2 / 556.9e-6          # cells/s, 4.82e11
RATE_3D = 512**3 / 323.9e-6            # cells/s, 4.14e11
T_LAUNCH = 5.0                         # us, "Roofline", latency-bound sizes: a sweep costs >= ~5 us
# "Thesis-style table: 4096^2 in total" segments: un-graphed sweeps in a cycle cost ~12 us vs
# 8.6 standalone; at 8192^2 per GPU the interior takes 148 us vs 139 predicted -> gap per sweep.
T_GAP_NOGRAPH = 3.5                    # us per sweep, host-driven cycle without CUDA graph
T_SHELL = 5.0                          # us, extra launch for the boundary shell when overlapping
# Host-staged MPI ("Ping-pong through the exchange API": 16 MiB one way 3.96 GB/s;
# "Thesis-style table: 4096^2 in total": direct serial depth 1 = 91.8 us/sweep at 2048^2/GPU,
# i.e. ~80 us exchange for 32 KiB of faces -> ~72 us fixed cost per phase on 4 GPUs).
MPI_ALPHA = 72.0                       # us per phase (8 neighbours, direct, 4 x H200)
MPI_BW = 3.96e9                        # B/s through pinned host memory (D2H + MPI + H2D)
# NCCL + CUDA graph ("Session 2", 4096^2 depth 16: nccl --graph 9.8 us/sweep = 157 us/cycle,
# of which 16 sweeps ~139 us -> ~18 us per exchange of 512 KiB); NVLink bandwidth from the
# ping-pong at 16 MiB (nccl 143 GB/s one way, API level, one pair).
NCCL_ALPHA = 14.0                      # us per phase, stream-ordered, graph-captured
NVLINK_BW = 143e9                      # B/s per GPU (measured one pair; conservative vs 900 GB/s spec)
# Kernel-initiated, persistent schedule ("Session 3": fit of the one-GPU runs: a pass of 1 level
# ~5 us, of 8 levels ~17 us, an exchange ~27 us; 3D 256^3 d4 on 2 GPUs 71.2 us/sweep;
# 2D 4096^2 d16 f8 on 2 GPUs 28.7 us/sweep). BW and 2D level rate are derived below from those.
KI_ALPHA = 27.0                        # us per exchange (grid barriers, flags, device pack)
KI_PASS1, KI_LEVEL = 5.0, 1.7          # us: pass of one level, each further level in a pass
KI_FUSE_2D, KI_FUSE_3D = 8, 1          # levels per pass used in the measurements
KI_NVLINK_PING = 0.68                  # us, "Ping-pong": NVLink flag ping-pong of the device path

# ---------------- ASSUMED inputs (not measured) ----------------
NET_LAT = 3.0                          # us, inter-node latency (400 Gb/s class NIC, one per GPU)
NET_BW = 50e9                          # B/s per GPU (400 Gb/s)
ELEM = 4                               # fp32
R = 1                                  # radius of jacobi5 / jacobi7
DEPTHS = (1, 2, 4, 8, 16, 32, 64)


def ext_cells(block, d, k):
    """cells updated by sweep k (0..d-1) of a cycle: the block grown by (d-1-k)*R each side"""
    e = (d - 1 - k) * R
    return math.prod(n + 2 * e for n in block)


# 3D faces: strided gathers. Derive an effective pack+unpack bandwidth from "issue 4, 3D 256^3
# total (np=4)": nccl d2 overlap on 60.8 us/sweep (no graph); block 128x128x256, 4 faces of
# 128x256 cells x 2 layers = 1 MiB per exchange. The un-graphed nccl fixed cost comes from
# "4096^2 total (np=4)": nccl d1 overlap off 56.9 us/sweep minus one un-graphed sweep.
NCCL_ALPHA_NOGRAPH = 56.9 - (4096 * 2048 / RATE_2D * 1e6 + T_GAP_NOGRAPH)
_blk = (128, 128, 256)
_cmp = [max(T_LAUNCH, ext_cells(_blk, 2, k) / RATE_3D * 1e6) + T_GAP_NOGRAPH for k in range(2)]
_x = 2 * 60.8 - sum(_cmp) - T_SHELL + _cmp[0]
_B = 4 * 128 * 256 * 2 * ELEM
PACK_BW_3D = _B / ((_x - NCCL_ALPHA_NOGRAPH - _B / NVLINK_BW * 1e6) * 1e-6)

# derive KI bandwidth from 3D 256^3 d4 on 2 GPUs (block 256x256x128, 2 faces of 256x256x4 cells)
_b3 = (256, 256, 128)
_c3 = sum(max(KI_PASS1, ext_cells(_b3, 4, k) / RATE_3D * 1e6) for k in range(4))
KI_BW = 2 * 256 * 256 * 4 * ELEM / ((4 * 71.2 - _c3 - KI_ALPHA) * 1e-6)
# derive the KI 2D level rate from 4096^2 d16 f8 on 2 GPUs (block 2048x4096, 2 faces 4096x16)
_x2 = KI_ALPHA + 2 * 4096 * 16 * ELEM / KI_BW * 1e6
_cells2 = sum(ext_cells((2048, 4096), 16, k) for k in range(16))
KI_RATE_2D = _cells2 / ((16 * 28.7 - _x2) * 1e-6)


def factorizations(p, nd):
    if nd == 1:
        yield (p,)
        return
    for a in range(1, p + 1):
        if p % a == 0:
            for rest in factorizations(p // a, nd - 1):
                yield (a,) + rest


def proc_grid(P, gdims):
    """most cubic blocks (as the halox --grid default), ties broken by the smaller surface"""
    best = None
    for f in factorizations(P, len(gdims)):
        if any(g % q for g, q in zip(gdims, f)):
            continue
        blk = tuple(g // q for g, q in zip(gdims, f))
        surf = sum(math.prod(blk) / b for b, q in zip(blk, f) if q > 1)
        key = (max(blk) / min(blk), surf)
        if best is None or key < best[0]:
            best = (key, f, blk)
    return best[1], best[2]


def face_bytes(blk, grid, node, w):
    """worst rank (corner of its node's block): (intra bytes, inter bytes) per exchange"""
    bi = bn = 0
    for a, (q, m) in enumerate(zip(grid, node)):
        if q == 1:
            continue                      # periodic onto itself: local copy, neglected
        f = math.prod(b for i, b in enumerate(blk) if i != a) * w * ELEM
        if m == q:
            bi += 2 * f
        elif m == 1:
            bn += 2 * f
        else:
            bi += f
            bn += f
    return bi, bn


def node_grid(grid, blk, g):
    """place g GPUs of a node as the sub-block that minimises the worst rank's inter-node bytes"""
    best = None
    for m in factorizations(g, len(grid)):
        if any(q % x for q, x in zip(grid, m)):
            continue
        key = face_bytes(blk, grid, m, 1)[1]
        if best is None or key < best[0]:
            best = (key, m)
    return best[1]


def exch_time(model, bi, bn, dim=2):
    """one phase of the direct pattern, us"""
    if bi == 0 and bn == 0:
        return 0.0
    if dim == 3 and model != "ki":       # strided 3D face gathers (KI_BW already includes them)
        return exch_time(model, bi, bn) + (bi + bn) / PACK_BW_3D * 1e6
    net = (NET_LAT + bn / NET_BW * 1e6) if bn else 0.0
    if model == "mpi":                   # everything crosses PCIe through host memory
        return MPI_ALPHA + (bi + bn) / MPI_BW * 1e6 + (NET_LAT if bn else 0.0)
    if model == "nccl":
        return NCCL_ALPHA + max(bi / NVLINK_BW * 1e6, net)
    if model == "ki":                    # device threads copy: KI_BW on both paths
        netk = (NET_LAT + bn / min(NET_BW, KI_BW) * 1e6) if bn else 0.0
        return KI_ALPHA + max(bi / KI_BW * 1e6, netk)
    raise ValueError(model)


def t_sweep(model, blk, grid, node, d, overlap, dim, graph=True):
    global NCCL_ALPHA
    if model == "nccl" and not graph:     # measured points without a CUDA graph
        saved, NCCL_ALPHA = NCCL_ALPHA, NCCL_ALPHA_NOGRAPH
        try:
            return t_sweep(model, blk, grid, node, d, overlap, dim, True) + T_GAP_NOGRAPH
        finally:
            NCCL_ALPHA = saved
    rate = RATE_2D if dim == 2 else RATE_3D
    w = d * R
    if min(blk) < w:
        return None
    bi, bn = face_bytes(blk, grid, node, w)
    x = exch_time(model, bi, bn, dim)
    if model == "ki":
        f = KI_FUSE_2D if dim == 2 else KI_FUSE_3D
        krate = KI_RATE_2D if dim == 2 else RATE_3D
        comp, k = 0.0, 0
        while k < d:
            lv = min(f, d - k)
            cells = sum(ext_cells(blk, d, j) for j in range(k, k + lv))
            comp += max(KI_PASS1 + KI_LEVEL * (lv - 1), cells / krate * 1e6)
            k += lv
        return (comp + x) / d
    gap = 0.0 if model == "nccl" else T_GAP_NOGRAPH
    comp = [max(T_LAUNCH, ext_cells(blk, d, k) / rate * 1e6) + gap for k in range(d)]
    cyc = sum(comp) + x
    if overlap and x > 0:
        cyc += T_SHELL - min(comp[0], x)
    return cyc / d


def best(model, blk, grid, node, dim):
    out = []
    for d in DEPTHS:
        for ov in ((False,) if model == "ki" else (False, True)):
            t = t_sweep(model, blk, grid, node, d, ov, dim)
            if t is not None:
                out.append((t, d, ov))
    return min(out)


CASES = [
    ("2D jacobi5 fp32, strong, 16384^2 in total", 2, "strong", (16384, 16384)),
    ("2D jacobi5 fp32, weak, 16384^2 per GPU", 2, "weak", (16384, 16384)),
    ("3D jacobi7 fp32, strong, 512^3 in total", 3, "strong", (512, 512, 512)),
    ("3D jacobi7 fp32, weak, 512^3 per GPU", 3, "weak", (512, 512, 512)),
]
NODES = (1, 2, 4, 8, 16, 32, 64)
MODELS = (("mpi", "host-staged mpi"), ("nccl", "nccl+graph"), ("ki", "kernel-init."))


def setup(dim, kind, size, P):
    if kind == "strong":
        return proc_grid(P, size)
    best_g = None                           # weak: the most cubic process grid, block fixed
    for f in factorizations(P, len(size)):
        key = max(f) / min(f)
        if best_g is None or key < best_g[0]:
            best_g = (key, f)
    return best_g[1], size


def fmt_best(b):
    t, d, ov = b
    return f"{t:.1f} (d{d}{'' if ov else ', no ov'})"


def rows():
    for title, dim, kind, size in CASES:
        rate = RATE_2D if dim == 2 else RATE_3D
        t1 = math.prod(size) / rate * 1e6        # one GPU, whole problem of one GPU's share
        for g in (4, 8):
            for n in NODES:
                P = n * g
                grid, blk = setup(dim, kind, size, P)
                node = node_grid(grid, blk, g)
                bs = {m: best(m, blk, grid, node, dim) for m, _ in MODELS}
                win = min(bs, key=lambda m: bs[m][0])
                tc = max(T_LAUNCH, math.prod(blk) / rate * 1e6)
                ideal = t1 / P if kind == "strong" else t1
                yield dict(case=title, g=g, nodes=n, gpus=P, grid="x".join(map(str, grid)),
                           node="x".join(map(str, node)), block="x".join(map(str, blk)),
                           tcomp=tc, best=bs, winner=win, eff=ideal / bs[win][0])


def print_tables():
    print(f"Derived: KI bandwidth {KI_BW/1e9:.1f} GB/s, 3D pack {PACK_BW_3D/1e9:.1f} GB/s, un-graphed nccl alpha {NCCL_ALPHA_NOGRAPH:.1f} us, KI 2D level rate {KI_RATE_2D:.2e} cells/s; "
          f"rates 2D {RATE_2D:.2e}, 3D {RATE_3D:.2e} cells/s\n")
    cur = None
    for r in rows():
        if r["case"] != cur:
            cur = r["case"]
            print(f"\n#### {cur}\n")
            print("| GPUs/node | nodes | grid (node) | block/GPU | t_comp | "
                  + " | ".join(n for _, n in MODELS) + " | winner | eff. |")
            print("|---|---|---|---|---|---|---|---|---|---|")
        b = r["best"]
        print(f"| {r['g']} | {r['nodes']} | {r['grid']} ({r['node']}) | {r['block']} | "
              f"{r['tcomp']:.1f} | " + " | ".join(fmt_best(b[m]) for m, _ in MODELS)
              + f" | {dict(MODELS)[r['winner']]} | {100*r['eff']:.0f}% |")


def validation():
    """model vs measured single-node points (us/sweep)"""
    pts = [  # (label, model, dim, global, P, d, overlap, measured, section)
        ("16384^2 on 1 GPU", "mpi", 2, (16384, 16384), 1, 1, True, 569.6, "issue 4, np=1"),
        ("16384^2 total, 4 GPUs, d1 ov", "mpi", 2, (16384, 16384), 4, 1, True, 162.5, "issue 3"),
        ("16384^2 total, 4 GPUs, d1 serial", "mpi", 2, (16384, 16384), 4, 1, False, 253.0, "issue 3"),
        ("32768^2 total, 4 GPUs, d2 ov", "mpi", 2, (32768, 32768), 4, 2, True, 568.2, "thesis 16384^2/GPU"),
        ("4096^2 total, 4 GPUs, d1 serial", "mpi", 2, (4096, 4096), 4, 1, False, 91.8, "thesis 4096^2 (calibration)"),
        ("4096^2 total, 4 GPUs, d16 serial", "mpi", 2, (4096, 4096), 4, 16, False, 30.3, "thesis 4096^2"),
        ("4096^2 total, 4 GPUs, d64 serial", "mpi", 2, (4096, 4096), 4, 64, False, 24.2, "thesis 4096^2"),
        ("4096^2 total, 4 GPUs, d16, graph", "nccl", 2, (4096, 4096), 4, 16, True, 9.8, "session 2 (calibration)"),
        ("16384^2 total, 4 GPUs, d1 ov (no graph)", "nccl", 2, (16384, 16384), 4, 1, True, 155.0, "issue 4"),
        ("3D 256^3, 4 GPUs, d2 ov", "mpi", 3, (256, 256, 256), 4, 2, True, 223.7, "issue 4, 3D"),
        ("3D 256^3, 4 GPUs, d2 ov (no graph)", "nccl", 3, (256, 256, 256), 4, 2, True, 60.8, "issue 4, 3D (calibration)"),
        ("512^2, 2 GPUs, persistent d16 f8", "ki", 2, (512, 512), 2, 16, False, 3.70, "session 3 (calibration)"),
        ("1024^2, 2 GPUs, persistent d16 f8", "ki", 2, (1024, 1024), 2, 16, False, 5.81, "session 3"),
        ("4096^2, 2 GPUs, persistent d16 f8", "ki", 2, (4096, 4096), 2, 16, False, 28.7, "session 3 (calibration)"),
        ("3D 256^3, 2 GPUs, persistent d4", "ki", 3, (256, 256, 256), 2, 4, False, 71.2, "session 3 (calibration)"),
    ]
    print("\n| point (measured section) | model | measured | modelled | model/measured |")
    print("|---|---|---|---|---|")
    for lab, m, dim, size, P, d, ov, meas, sec in pts:
        grid, blk = proc_grid(P, size)
        t = t_sweep(m, blk, grid, grid, d, ov, dim, graph="no graph" not in lab)
        print(f"| {lab} ({sec}) | {m} | {meas} | {t:.1f} | {t/meas:.2f} |")


# NCCL's network path, MEASURED on one host (session 39, scripts/netpath.sh, 4 x H200): peer-to-peer,
# shared memory and InfiniBand off, NCCL's sockets over loopback. Ping-pong, ranks 0-1 unbound:
# 8 B 50.0 us against 23.1 on NVLink (so ~27 us more a message), 16 MiB 2.12 GB/s one way.
SOCK_LAT, SOCK_BW = 27.0, 2.12e9
SOCK_POINTS = [  # (label, dim, global, d, measured us/sweep: 4 ranks, nccl without graph, overlap on)
    ("8192^2 total, d1", 2, (8192, 8192), 1, 221.8),
    ("8192^2 total, d8", 2, (8192, 8192), 8, 92.8),
    ("3D 512^3 total, d1", 3, (512, 512, 512), 1, 2007.6),
    ("3D 512^3 total, d2", 3, (512, 512, 512), 2, 1265.8),
]


def net_path_check():
    """the model with the measured socket path as its network, every GPU its own node, against
    the one-host runs over that path"""
    global NET_LAT, NET_BW
    saved, (NET_LAT, NET_BW) = (NET_LAT, NET_BW), (SOCK_LAT, SOCK_BW)
    print("\n| point (4 GPUs, every link over NCCL's sockets) | measured | modelled | model/measured |")
    print("|---|---|---|---|")
    try:
        for lab, dim, size, d, meas in SOCK_POINTS:
            grid, blk = proc_grid(4, size)
            t = t_sweep("nccl", blk, grid, tuple(1 for _ in grid), d, True, dim, graph=False)
            print(f"| {lab} | {meas} | {t:.1f} | {t/meas:.2f} |")
    finally:
        NET_LAT, NET_BW = saved


def crossovers():
    """smallest node count at which the winner changes, per case and node size"""
    print("\n| case | GPUs/node | winner by node count 1,2,4,...,64 |")
    print("|---|---|---|")
    cur = {}
    for r in rows():
        cur.setdefault((r["case"], r["g"]), []).append(
            f"{r['nodes']}:{dict(MODELS)[r['winner']].split()[0]} d{r['best'][r['winner']][1]}")
    for (c, g), v in cur.items():
        print(f"| {c.split(',')[0]} {c.split(',')[2].strip()} {c.split(',')[1].strip()} | {g} | {', '.join(v)} |")


if __name__ == "__main__":
    print_tables()
    print("\n#### Crossovers\n")
    crossovers()
    print("\n#### Model against measured points\n")
    validation()
    print("\n#### Model against the network path measured on one host\n")
    net_path_check()
    if "--csv" in sys.argv:
        with open(sys.argv[sys.argv.index("--csv") + 1], "w") as fh:
            fh.write("case,gpus_per_node,nodes,gpus,grid,node_grid,block,t_comp_us,"
                     "mpi_us,mpi_depth,nccl_us,nccl_depth,ki_us,ki_depth,winner,efficiency\n")
            for r in rows():
                b = r["best"]
                fh.write(f"\"{r['case']}\",{r['g']},{r['nodes']},{r['gpus']},{r['grid']},{r['node']},"
                         f"{r['block']},{r['tcomp']:.2f}," + ",".join(
                             f"{b[m][0]:.2f},{b[m][1]}" for m, _ in MODELS)
                         + f",{r['winner']},{r['eff']:.3f}\n")
