#!/usr/bin/env python3
"""Checks a computeprof JSON trace against the key-value log written beside it.

    check_trace.py TRACE.json|TRACE.json.gz LOG [LOG ...]

The trace must parse as JSON; every complete event must nest on its track; every flow
start must have its end, both at the start of an event on their tracks; the GPU events,
in the order written, must be the logs' records in order (method and gputime equal).
Prints "trace ok: ..." and exits 0, or prints each problem and exits 1.
"""
import gzip
import json
import re
import sys

GPU_CATEGORIES = {"kernel", "gpu_memcpy", "gpu_memset", "cuda_graph"}
PAIR = re.compile(r"(\S+)=\[ (.*?) \] ")


def log_records(path):
    records = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("method="):
                records.append(dict(PAIR.findall(line)))
    return records


def main(argv):
    problems = []
    opener = gzip.open if argv[1].endswith(".gz") else open
    with opener(argv[1], "rt", encoding="utf-8") as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    if trace.get("displayTimeUnit") != "ms" or "baseTimeNanoseconds" not in trace:
        problems.append("top level: displayTimeUnit 'ms' and baseTimeNanoseconds expected")

    tracks = {}
    starts = {}
    for e in events:
        if e["ph"] == "X":
            key = (e["pid"], e["tid"])
            tracks.setdefault(key, []).append((e["ts"], e["ts"] + e["dur"], e["name"]))
            starts.setdefault(key, set()).add(e["ts"])
    for key, slices in tracks.items():
        slices.sort(key=lambda s: (s[0], -s[1]))
        open_ends = []
        for begin, end, name in slices:
            while open_ends and open_ends[-1] <= begin + 1e-9:
                open_ends.pop()
            if open_ends and end > open_ends[-1] + 1e-9:
                problems.append(f"track {key}: '{name}' [{begin}, {end}] overlaps without nesting")
            open_ends.append(end)

    flows = {}
    for e in events:
        if e["ph"] in ("s", "f"):
            flows.setdefault(e["id"], {})[e["ph"]] = e
    for fid, ends in flows.items():
        if set(ends) != {"s", "f"}:
            problems.append(f"flow {fid}: only {sorted(ends)}")
            continue
        for ph, e in ends.items():
            if e["ts"] not in starts.get((e["pid"], e["tid"]), set()):
                problems.append(f"flow {fid}: its '{ph}' at {e['ts']} starts no event on track {(e['pid'], e['tid'])}")
        if ends["f"].get("bp") != "e":
            problems.append(f"flow {fid}: end not bound to its enclosing event")

    begins = sorted((e["cat"], e["id"], e["name"]) for e in events if e["ph"] == "b")
    ends = sorted((e["cat"], e["id"], e["name"]) for e in events if e["ph"] == "e")
    if begins != ends:
        problems.append(f"async events: {len(begins)} begins and {len(ends)} ends do not pair up")

    gpu = [e for e in events if e.get("cat") in GPU_CATEGORIES and e["ph"] in ("X", "b")]
    records = [r for path in argv[2:] for r in log_records(path)]
    if len(gpu) != len(records):
        problems.append(f"{len(gpu)} GPU events, {len(records)} log records")
    for i, (e, r) in enumerate(zip(gpu, records)):
        # No method arg where it is the name (a graph launch, a kernel not mangled).
        method = e["args"].get("method", e["name"])
        if method != r["method"]:
            problems.append(f"GPU event {i}: method {method}, log {r['method']}")
        duration = e["dur"] if e["ph"] == "X" else None
        if duration is not None and f"{duration:.3f}" != r["gputime"]:
            problems.append(f"GPU event {i} ({r['method']}): dur {duration:.3f}, log gputime {r['gputime']}")

    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"trace ok: {len(events)} events, {len(gpu)} GPU events, {len(flows)} flows")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
