"""computeprof merge on JSON traces of the simulated driver: the merged events equal the
inputs' (ts moved by exactly each file's anchor offset, pids and ids remapped one to one),
and --align's shifts undo anchors skewed by known offsets.

check_merge.py COMPUTEPROF SCRATCH TRACE... (each trace of a run with a rank; the first
plain, the last gzip). Prints "merge ok: ..." or the problems, exit status 1."""
import gzip
import json
import os
import re
import socket
import subprocess
import sys
from decimal import Decimal

computeprof, scratch, traces = sys.argv[1], sys.argv[2], sys.argv[3:]
problems = []
ALIGN = "spin(unsigned long long)"


def text_of(path):
    with open(path, "rb") as f:
        data = f.read()
    return (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode()


def load(path):
    return json.loads(text_of(path), parse_float=Decimal)


def write(path, text):
    data = text.encode()
    if path.endswith(".gz"):
        # Two members, as the shim writes several.
        half = len(data) // 2
        data = gzip.compress(data[:half]) + gzip.compress(data[half:])
    with open(path, "wb") as f:
        f.write(data)


def ns(value):
    return int(Decimal(value) * 1000)


def merge(args):
    return subprocess.run([computeprof, "merge"] + args, capture_output=True, text=True)


def host_pid(trace):
    return next(e["pid"] for e in trace["traceEvents"]
                if e.get("ph") == "M" and e.get("name") == "process_labels" and e["args"]["labels"] == "CPU")


def check_merged(out_path, inputs, shifts, label):
    """inputs: (trace, rank) in rank order; shifts: each one's ts shift in ns."""
    merged = load(out_path)
    events = merged["traceEvents"]
    at = 0
    for (trace, rank), shift in zip(inputs, shifts):
        prefix = "rank {} ({}, {}) ".format(rank, socket.gethostname(), host_pid(trace))
        pid_map, id_offsets = {}, set()
        for e in trace["traceEvents"]:
            o = events[at]
            at += 1
            for key in set(e) | set(o):
                if key == "pid":
                    pid_map.setdefault(e["pid"], o["pid"])
                    if pid_map[e["pid"]] != o["pid"]:
                        problems.append(f"{label}: pid {e['pid']} of rank {rank} became two pids")
                elif key == "ts":
                    if ns(o["ts"]) != ns(e["ts"]) + shift:
                        problems.append(f"{label}: rank {rank}: ts {e['ts']} became {o['ts']}, not +{shift} ns")
                elif key == "id":
                    id_offsets.add(o["id"] - e["id"])
                elif key == "args" and e.get("ph") == "M" and e.get("name") == "process_name":
                    if o["args"] != {"name": prefix + e["args"]["name"]}:
                        problems.append(f"{label}: process name {o['args']} for {e['args']}")
                elif e.get(key) != o.get(key):
                    problems.append(f"{label}: rank {rank}: {key} {e.get(key)!r} became {o.get(key)!r}")
        if len(set(pid_map.values())) != len(pid_map):
            problems.append(f"{label}: rank {rank}: two pids became one")
        if len(id_offsets) > 1:
            problems.append(f"{label}: rank {rank}: ids moved by different amounts {id_offsets}")
        # Then the added metadata: a sort index per process.
        for pid in sorted(pid_map.values()):
            expected = {"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0, "args": {"sort_index": pid}}
            if events[at] != expected:
                problems.append(f"{label}: {events[at]} where {expected} is expected")
            at += 1
    if at != len(events):
        problems.append(f"{label}: {len(events) - at} events more than the inputs' and their sort indexes")
    all_pids = [e["pid"] for e in events if "pid" in e]
    per_rank = [{e["pid"] for e in t["traceEvents"]} for t, _ in inputs]
    if len(set(all_pids)) != sum(len(p) for p in per_rank):
        problems.append(f"{label}: the ranks' pids collide")
    return merged, sum(len(p) for p in per_rank)


def summary_line(count, files, out, added):
    return f"merged {count} events of {files} files into {out} ({added} metadata events added)\n"


# 1. Separate runs, on their own anchors.
runs = [(load(t), load(t)["distributedInfo"]["rank"]) for t in traces]
runs.sort(key=lambda r: r[1])
earliest = min(t["baseTimeNanoseconds"] for t, _ in runs)
out = os.path.join(scratch, "runs.json")
r = merge(list(reversed(traces)) + ["-o", out])
count = sum(len(t["traceEvents"]) for t, _ in runs)
processes = sum(len({e["pid"] for e in t["traceEvents"]}) for t, _ in runs)
if r.returncode != 0 or r.stdout != summary_line(count, len(traces), out, processes) or r.stderr:
    problems.append(f"runs: exit {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr!r}")
else:
    merged, _ = check_merged(out, runs, [t["baseTimeNanoseconds"] - earliest for t, _ in runs], "runs")
    if merged["baseTimeNanoseconds"] != earliest:
        problems.append(f"runs: baseTimeNanoseconds {merged['baseTimeNanoseconds']}, not {earliest}")

# 2. The first run's trace as three ranks whose anchors are skewed by known offsets.
offsets = [0, 2_500_000_123, -1_000_000_007]
source = text_of(traces[0])
base = load(traces[0])["baseTimeNanoseconds"]
copies = []
for rank, offset in enumerate(offsets):
    text = source.replace(f'"baseTimeNanoseconds":{base},', f'"baseTimeNanoseconds":{base + offset},', 1)
    text = re.sub(r'"distributedInfo":\{"rank":\d+,', f'"distributedInfo":{{"rank":{rank},', text, count=1)
    path = os.path.join(scratch, f"skewed_{rank}.json" + (".gz" if rank == 2 else ""))
    write(path, text)
    copies.append(path)
inputs = [(load(p), rank) for rank, p in enumerate(copies)]
count = sum(len(t["traceEvents"]) for t, _ in inputs)
processes = sum(len({e["pid"] for e in t["traceEvents"]}) for t, _ in inputs)
anchored = [o - min(offsets) for o in offsets]
out = os.path.join(scratch, "skewed.json")
r = merge(copies + ["-o", out])
if r.returncode != 0 or r.stdout != summary_line(count, 3, out, processes):
    problems.append(f"skewed: exit {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr!r}")
else:
    check_merged(out, inputs, anchored, "skewed")

out = os.path.join(scratch, "aligned.json.gz")
r = merge(["--align", ALIGN, "-o", out] + copies)
expected = "".join(f"rank {rank}: {-(o - offsets[0]):+d} ns ({p})\n" for rank, (o, p) in enumerate(zip(offsets, copies)))
if r.returncode != 0 or r.stdout != expected + summary_line(count, 3, out, processes):
    problems.append(f"aligned: exit {r.returncode}, stdout {r.stdout!r} not {expected!r}, stderr {r.stderr!r}")
else:
    # Every rank lands where rank 0 is: the anchors' skew undone exactly.
    check_merged(out, inputs, [anchored[0]] * 3, "aligned")
    with gzip.open(out) as f:
        json.load(f)

if problems:
    print("\n".join(problems[:20]))
    sys.exit(1)
print(f"merge ok: {len(traces)} runs, 3 skewed copies of {len(inputs[0][0]['traceEvents'])} events")
