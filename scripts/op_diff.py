#!/usr/bin/env python3
"""Compares two per-op dumps (TERN_DUMP_OPS, runtime/src/nn/op_probe.h) of the same translation on two
CPUs and names the first op and element where the values part, and by how much:

    TERN_DUMP_OPS=/tmp/x86.ops build/targets/desktop/tern translate --beam 1 < one_sentence.txt
    TERN_DUMP_OPS=/tmp/a76.ops TERN_QEMU_CPU=cortex-a76 targets/rpi/qemu-run.sh \\
        build-rpi-arm64/targets/desktop/tern translate -m models/en-de/en-de.int8.tern --beam 1 < one_sentence.txt
    /usr/bin/python3 scripts/op_diff.py /tmp/x86.ops /tmp/a76.ops

Prints the number of records, how many differ, and for the first that differs: its op and layer, the first
differing element's index, both values, the absolute difference and the distance in float ULPs. Exit status
0 when the dumps are identical, 1 when they differ.
"""
import argparse
import struct
import sys

import numpy as np

DTYPES = {"f32": (np.dtype("<f4"), 4), "i8": (np.dtype("i1"), 1), "i32f32": (np.dtype([("zp", "<i4"), ("scale", "<f4")]), 8)}


def records(path):
    with open(path, "rb") as f:
        data = f.read()
    at = 0
    while at < len(data):
        end = data.index(b"\n", at)
        op, name, kind, count = data[at:end].decode().split(" ")
        dtype, size = DTYPES[kind]
        count = int(count)
        body = np.frombuffer(data, dtype=dtype, count=count, offset=end + 1)
        at = end + 1 + count * size
        yield op, name, kind, body


def ulps(a, b):
    ia = np.array([a], dtype="<f4").view("<i4")[0].astype(np.int64)
    ib = np.array([b], dtype="<f4").view("<i4")[0].astype(np.int64)
    ia = ia if ia >= 0 else -(ia & 0x7FFFFFFF)
    ib = ib if ib >= 0 else -(ib & 0x7FFFFFFF)
    return abs(int(ia) - int(ib))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    args = ap.parse_args()
    ra, rb = list(records(args.a)), list(records(args.b))
    print("%s: %d records; %s: %d records" % (args.a, len(ra), args.b, len(rb)))
    first, differing = None, 0
    for i, (x, y) in enumerate(zip(ra, rb)):
        if x[:3] != y[:3] or len(x[3]) != len(y[3]):
            print("record %d: different ops (%s %s / %s %s): the runs took different paths" % (i, x[0], x[1], y[0], y[1]))
            return 1
        if x[3].tobytes() != y[3].tobytes():
            differing += 1
            if first is None:
                first = (i, x, y)
    if first is None:
        print("identical" if len(ra) == len(rb) else "identical for the first %d records" % min(len(ra), len(rb)))
        return 0 if len(ra) == len(rb) else 1
    i, (op, name, kind, va), (_, _, _, vb) = first
    if kind == "i32f32":
        j = int(np.nonzero(va != vb)[0][0])
        detail = "row %d: zero point %d / %d, scale %r / %r" % (j, va[j]["zp"], vb[j]["zp"], va[j]["scale"], vb[j]["scale"])
    else:
        diff = np.nonzero(va != vb)[0]
        j = int(diff[0])
        detail = "element %d of %d (%d differ): %r / %r" % (j, len(va), len(diff), va[j].item(), vb[j].item())
        if kind == "f32":
            d = np.abs(va.astype(np.float64) - vb.astype(np.float64))
            detail += ", |difference| %.3g, %d ULPs; largest |difference| %.3g" % (d[j], ulps(va[j], vb[j]), d.max())
    print("%d of %d records differ; the first is record %d: %s %s (%s)" % (differing, min(len(ra), len(rb)), i, op, name, kind))
    print("  " + detail)
    return 1


if __name__ == "__main__":
    sys.exit(main())
