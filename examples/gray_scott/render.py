#!/usr/bin/env python3
"""Turn gray_scott's .npy snapshots into PNG images, with NumPy and zlib only.

    python3 render.py DIR_OR_FILES... [--lo 0] [--hi 0.4]

Each 2D array becomes an 8-bit RGB image of the same name (.png): values from lo to hi mapped
through a dark-blue to yellow ramp (lo and hi default to each array's own range). Row 0 of the
array is the top row of the image."""
import os
import struct
import sys
import zlib

import numpy as np

# the colour ramp: stops at 0, 1/3, 2/3 and 1
STOPS = np.array([[8, 16, 48], [40, 90, 170], [90, 200, 160], [250, 240, 90]], dtype=np.float64)


def colour(a, lo, hi):
    """RGB bytes (H, W, 3) of the 2D array a, lo..hi mapped onto the ramp."""
    t = np.clip((a.astype(np.float64) - lo) / (hi - lo if hi > lo else 1.0), 0.0, 1.0) * (len(STOPS) - 1)
    i = np.minimum(t.astype(np.int64), len(STOPS) - 2)
    f = (t - i)[..., None]
    return np.round(STOPS[i] * (1.0 - f) + STOPS[i + 1] * f).astype(np.uint8)


def chunk(kind, data):
    """One PNG chunk: length, type, data, CRC over type and data."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(rgb):
    """The bytes of an 8-bit RGB PNG of rgb (H, W, 3): each row led by filter type 0 (none)."""
    h, w, _ = rgb.shape
    rows = np.concatenate([np.zeros((h, 1), dtype=np.uint8), rgb.reshape(h, w * 3)], axis=1)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)) + chunk(b"IEND", b""))


def main(argv):
    lo = hi = None
    paths = []
    i = 0
    while i < len(argv):
        if argv[i] in ("--lo", "--hi") and i + 1 < len(argv):
            v = float(argv[i + 1])
            lo, hi = (v, hi) if argv[i] == "--lo" else (lo, v)
            i += 2
            continue
        if argv[i].startswith("-"):
            print(__doc__, file=sys.stderr)
            return 2
        p = argv[i]
        paths += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".npy")) if os.path.isdir(p) else [p]
        i += 1
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    for p in paths:
        a = np.load(p)
        if a.ndim != 2:
            print(f"render.py: {p} is {a.ndim}D: only 2D snapshots become images", file=sys.stderr)
            return 1
        out = os.path.splitext(p)[0] + ".png"
        with open(out, "wb") as f:
            f.write(png(colour(a, float(a.min()) if lo is None else lo, float(a.max()) if hi is None else hi)))
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
