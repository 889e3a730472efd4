#!/usr/bin/env python3
"""Checks one run of torch_nvtx.py under `nvtxrange`, `export json,sqlite` and `summary`
(docs/gpu.md, point 9) against what the script makes by construction.

    check_nvtx.py DIR

DIR holds compute_profile.{log,json,sqlite} and shim.err (the summary). One product
makes k kernels (k read from the range `calib`, which holds one): `step/forward` holds
2k, `step/backward` k, emit_nvtx's `aten::` ranges k, `window` 3k, in the log and in
the trace; NVTX_EVENTS has each push/pop range once; the summary's per-range GPU time
is the sum of the log's gputime of the kernels inside. Prints one PASS or FAIL line per
check.
"""
import json
import os
import re
import sqlite3
import sys

RANGE = re.compile(r" nvtxrange=\[ (.*?) \](?: [a-z0-9]+=\[| ?$)")
METHOD = re.compile(r"^method=\[ (.*?) \] gputime=\[ ([0-9.]+) \]")


def row(ok, what):
    print(("PASS " if ok else "FAIL ") + what)


def main():
    d = sys.argv[1]
    kernels = []  # (range path, gputime us)
    with open(os.path.join(d, "compute_profile.log"), encoding="utf-8", errors="replace") as f:
        for line in f:
            m = METHOD.match(line)
            if not m or m.group(1).startswith("mem"):
                continue
            r = RANGE.search(line)
            kernels.append((r.group(1) if r else None, float(m.group(2))))

    def count(pred):
        return sum(1 for path, _ in kernels if path is not None and pred(path))

    k = count(lambda p: p == "calib")
    row(k >= 1, f"log: one product makes {k} kernels (range calib)")
    if k < 1:
        return
    expected = {"step/forward": 2 * k, "step/backward": k, "window": 3 * k}
    for path, n in expected.items():
        got = count(lambda p, path=path: p == path)
        row(got == n, f"log: {got} kernels in {path}, expected {n}")
    emitted = count(lambda p: p.startswith("aten::") and "aten::mm" in p)
    row(emitted == k, f"log: {emitted} kernels in emit_nvtx's aten::mm ranges, expected {k}")
    unranged_paths = [p for p, _ in kernels if p is None]
    row(not unranged_paths, "log: every kernel record has the nvtxrange column")

    with open(os.path.join(d, "compute_profile.json"), encoding="utf-8") as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    gpu = [e for e in events if e.get("cat") == "kernel"]
    for path, n in expected.items():
        got = sum(1 for e in gpu if e.get("args", {}).get("nvtx range") == path)
        row(got == n, f"trace: {got} kernels with nvtx range {path}, expected {n}")
    annotations = [e["name"] for e in events if e.get("cat") == "user_annotation"]
    for name in ("calib", "step", "forward", "backward", "window"):
        row(annotations.count(name) == 1, f"trace: user_annotation {name} x{annotations.count(name)}, expected 1")

    db = sqlite3.connect(f"file:{os.path.join(d, 'compute_profile.sqlite')}?mode=ro", uri=True)
    texts = [t for (t,) in db.execute("SELECT text FROM NVTX_EVENTS WHERE eventType = 59")]
    for name in ("calib", "step", "forward", "backward", "window"):
        row(texts.count(name) == 1, f"NVTX_EVENTS: push/pop {name} x{texts.count(name)}, expected 1")
    aten = sum(1 for t in texts if t and t.startswith("aten::mm"))
    row(aten >= 1, f"NVTX_EVENTS: {aten} emit_nvtx aten::mm ranges")

    # The summary's per-range GPU time against the log's kernels inside each range.
    with open(os.path.join(d, "shim.err"), encoding="utf-8", errors="replace") as f:
        err = f.read()
    table = err.split("NVTX ranges:\n", 1)
    row(len(table) == 2, "summary: an NVTX ranges table on stderr")
    if len(table) != 2:
        return
    gpu_by_name = {}
    for line in table[1].splitlines()[1:]:
        cells = line.split(None, 6)
        if len(cells) == 7 and cells[0].isdigit():
            gpu_by_name[cells[6]] = cells[5]
    units = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    for name in ("forward", "backward", "window", "step"):
        text = gpu_by_name.get(name, "")
        m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s)", text)
        inside = sum(t for p, t in kernels if p is not None and name in p.split("/"))
        if not m:
            row(False, f"summary: no GPU time for {name} ({text!r})")
            continue
        shown = float(m.group(1)) * units[m.group(2)]
        row(abs(shown - inside) <= 1e-3 * inside + 0.002,
            f"summary: {name} GPU time {text}, the log's kernels inside {inside:.3f}us")


if __name__ == "__main__":
    main()
