#!/usr/bin/env python3
"""Checks the files of one run under `export json,sqlite`, `memtrace` and `callstack`
against what its program makes by construction (docs/gpu.md, point 8).

    check_exports.py DIR KERNELS COPIES DEVICE_BYTES PINNED_BYTES

DIR holds compute_profile.{log,sqlite,stacks}; KERNELS and COPIES are the numbers of
kernel and copy records expected in the log and the database; DEVICE_BYTES and
PINNED_BYTES are comma-separated sizes of the device and page-locked host allocations
the program makes, each to be found allocated and freed in the database (memory the
CUDA runtime allocates for itself may come beside them). The trace is checked by
tests/e2e/check_trace.py. Prints one PASS or FAIL line per check.
"""
import collections
import os
import re
import sqlite3
import sys

MEM_KIND_DEVICE = 2
MEM_KIND_PINNED = 1


def row(ok, what):
    print(("PASS " if ok else "FAIL ") + what)
    return ok


def main(argv):
    directory, kernels, copies = argv[1], int(argv[2]), int(argv[3])
    device_bytes = collections.Counter(int(b) for b in argv[4].split(",") if b)
    pinned_bytes = collections.Counter(int(b) for b in argv[5].split(",") if b)
    ok = True

    with open(os.path.join(directory, "compute_profile.log"), encoding="utf-8") as f:
        records = [line for line in f if line.startswith("method=")]
    log_copies = sum(1 for r in records if r.startswith("method=[ memcpy"))
    ok &= row(len(records) - log_copies == kernels and log_copies == copies,
              f"log: {len(records) - log_copies} kernel and {log_copies} copy records "
              f"(expected {kernels}, {copies})")

    db = sqlite3.connect(os.path.join(directory, "compute_profile.sqlite"))
    db_kernels = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    db_copies = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY").fetchone()[0]
    ok &= row(db_kernels == kernels and db_copies == copies,
              f"database: {db_kernels} kernel and {db_copies} copy rows (expected {kernels}, {copies})")
    # Each GPU row's correlation id names the call that made it in the RUNTIME table.
    orphans = db.execute(
        "SELECT count(*) FROM (SELECT correlationId FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL "
        "SELECT correlationId FROM CUPTI_ACTIVITY_KIND_MEMCPY) g WHERE g.correlationId NOT IN "
        "(SELECT correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME)").fetchone()[0]
    ok &= row(orphans == 0, f"database: {orphans} GPU rows without their call's RUNTIME row")
    # GPU times are plausible: each operation ends after it starts and within the run.
    bad_times = db.execute(
        "SELECT count(*) FROM (SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL "
        "SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY) WHERE end <= start").fetchone()[0]
    ok &= row(bad_times == 0, f"database: {bad_times} GPU rows ending before they start")

    for kind, name, wanted in ((MEM_KIND_DEVICE, "device", device_bytes),
                               (MEM_KIND_PINNED, "page-locked", pinned_bytes)):
        for operation, verb in ((0, "allocated"), (1, "freed")):
            seen = collections.Counter(b for (b,) in db.execute(
                "SELECT bytes FROM CUDA_GPU_MEMORY_USAGE_EVENTS WHERE memKind = ? AND "
                "memoryOperationType = ?", (kind, operation)))
            missing = wanted - seen
            ok &= row(not missing, f"memory: {name} {verb} {sorted(seen.elements())} "
                                   f"(the program's {sorted(wanted.elements())})")

    with open(os.path.join(directory, "compute_profile.stacks"), encoding="utf-8") as f:
        stacks = set(int(m.group(1)) for m in re.finditer(r"^stack (\d+)$", f.read(), re.M))
    ids = [re.search(r"callstackid=\[ (\d+) \]", r) for r in records]
    unnamed = sum(1 for m in ids if m is None or int(m.group(1)) not in stacks)
    ok &= row(unnamed == 0, f"call stacks: {len(records) - unnamed} of {len(records)} records "
                            f"name a stack of compute_profile.stacks ({len(stacks)} stacks)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
