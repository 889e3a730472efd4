#!/usr/bin/env python3
"""Checks the nvprof door on a real GPU (docs/gpu.md, point 10): the CSV of
`computeprof nvprof --print-gpu-trace --csv --log-file FILE` read as scripts read it,
and the `.nvvp` of `computeprof nvprof -o FILE` read as nvprof's readers read it
(tests/e2e/check_nvvp.py, every kernel and copy joined to its call by correlation id).

    check_nvprof.py CSV|- NVVP KERNELS COPIES REPO_ROOT

KERNELS and COPIES: the kernel and copy records the program makes (its log's count).
Prints one PASS or FAIL line per check.
"""
import csv
import os
import sqlite3
import subprocess
import sys


def row(ok, what):
    print(("PASS " if ok else "FAIL ") + what)


def main():
    trace_csv, nvvp, kernels, copies, root = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    if trace_csv != "-":
        with open(trace_csv, encoding="utf-8") as f:
            lines = [line for line in f if not line.startswith("==")]
        table = list(csv.reader(lines))
        header, body = table[0], table[2:]  # the column names, the units, then the rows
        name = header.index("Name")
        n_copies = sum(1 for r in body if r[name].startswith("[CUDA memcpy"))
        n_kernels = sum(1 for r in body if not r[name].startswith("[CUDA "))
        row(n_kernels == kernels and n_copies == copies,
            f"--print-gpu-trace --csv: {n_kernels} kernels, {n_copies} copies (the log's {kernels}, {copies})")
        correlation = header.index("Correlation_ID") if "Correlation_ID" in header else None
        ids = [r[correlation] for r in body] if correlation is not None else []
        row(correlation is not None and len(set(ids)) == len(body) and all(i.isdigit() for i in ids),
            f"--print-gpu-trace --csv: {len(set(ids))} distinct correlation ids for {len(body)} rows")

    read = subprocess.run([sys.executable, os.path.join(root, "tests/e2e/check_nvvp.py"), nvvp,
                           os.path.join(root, "tests/e2e/nvprof_schema.txt")], capture_output=True, text=True)
    row(read.returncode == 0, "nvvp read as nvprof's readers do" +
        ("" if read.returncode == 0 else f": {(read.stdout + read.stderr).strip().splitlines()[-1:]}"))
    db = sqlite3.connect(f"file:{nvvp}?mode=ro", uri=True)
    (n_kernels,) = db.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL").fetchone()
    (n_copies,) = db.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY").fetchone()
    (joined,) = db.execute("SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL k JOIN (SELECT correlationId FROM "
                           "CUPTI_ACTIVITY_KIND_RUNTIME UNION ALL SELECT correlationId FROM CUPTI_ACTIVITY_KIND_DRIVER) r "
                           "ON k.correlationId = r.correlationId").fetchone()
    row(n_kernels == kernels and n_copies == copies,
        f"nvvp: {n_kernels} kernel rows, {n_copies} copy rows (the log's {kernels}, {copies})")
    row(joined == kernels, f"nvvp: {joined} kernels joined to their call (RUNTIME or DRIVER), expected {kernels}")


if __name__ == "__main__":
    main()
