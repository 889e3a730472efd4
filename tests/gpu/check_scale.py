#!/usr/bin/env python3
"""Counts what a run of torch_loop.py N left under `export json.gz,sqlite,nvprof`
(docs/gpu.md, point 11): the loop's kernel (the most frequent name of the log) N times
in the log, the gzip trace, the database and the .nvvp, and every kernel of the log in
each export.

    check_scale.py DIR N

Prints one PASS or FAIL line per check and INFO lines with the files' sizes.
"""
import collections
import gzip
import json
import os
import re
import sqlite3
import sys

METHOD = re.compile(r"^method=\[ (.*?) \] gputime=")


def row(ok, what):
    print(("PASS " if ok else "FAIL ") + what)


def main():
    d, n = sys.argv[1], int(sys.argv[2])
    names = collections.Counter()
    with open(os.path.join(d, "compute_profile.log"), encoding="utf-8", errors="replace") as f:
        for line in f:
            m = METHOD.match(line)
            if m and not m.group(1).startswith("mem"):
                names[m.group(1)] += 1
    loop_name, loop_count = names.most_common(1)[0]
    kernels = sum(names.values())
    row(loop_count == n, f"log: {loop_count} launches of the loop's kernel, expected {n} ({kernels} kernels in all)")

    path = os.path.join(d, "compute_profile.json.gz")
    with gzip.open(path, "rt", encoding="utf-8") as f:
        trace = json.load(f)
    gpu = [e for e in trace["traceEvents"] if e.get("cat") == "kernel"]
    row(len(gpu) == kernels, f"json.gz: {len(gpu)} kernel events, the log's {kernels}")
    print(f"INFO json.gz {os.path.getsize(path)} bytes, {os.path.getsize(path) / kernels:.1f} bytes a kernel")

    path = os.path.join(d, "compute_profile.sqlite")
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    (rows,) = db.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()
    row(rows == kernels, f"sqlite: {rows} KERNEL rows, the log's {kernels}")
    (runtime,) = db.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN CUPTI_ACTIVITY_KIND_KERNEL k "
                            "ON r.correlationId = k.correlationId").fetchone()
    row(runtime == kernels, f"sqlite: {runtime} kernels joined to their call, the log's {kernels}")
    print(f"INFO sqlite {os.path.getsize(path)} bytes, {os.path.getsize(path) / kernels:.1f} bytes a kernel")

    path = os.path.join(d, "compute_profile.nvvp")
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    (rows,) = db.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL").fetchone()
    row(rows == kernels, f"nvvp: {rows} CONCURRENT_KERNEL rows, the log's {kernels}")
    print(f"INFO nvvp {os.path.getsize(path)} bytes, {os.path.getsize(path) / kernels:.1f} bytes a kernel")
    path = os.path.join(d, "compute_profile.log")
    print(f"INFO log {os.path.getsize(path)} bytes, {os.path.getsize(path) / kernels:.1f} bytes a kernel")


if __name__ == "__main__":
    main()
