#!/usr/bin/env python3
"""GPU check point 5: the shim's counters of vector_add's kernels against what the
kernels do by construction and against ncu's reading of the same metrics.

  compare_counters.py <aggregate log> <per-SM log> <ncu csv> <SM count>

Prints one line per comparison: PASS|FAIL <label> <detail> (INFO: shown, not compared).
"""
import csv
import re
import sys

# legacy name -> Perfworks metric (config/counters.cpp; only those this check uses)
METRICS = {
    "sm_cta_launched": "sm__ctas_launched.sum",
    "warps_launched": "smsp__warps_launched.sum",
    "threads_launched": "smsp__threads_launched.sum",
    "gld_request": "smsp__inst_executed_op_global_ld.sum",
    "gst_request": "smsp__inst_executed_op_global_st.sum",
    "inst_executed": "smsp__inst_executed.sum",
    "branch": "smsp__sass_branch_targets.sum",
    "divergent_branch": "smsp__sass_branch_targets_threads_divergent.sum",
}
# spiny loops until its clock says 2 ms have passed: how many instructions and
# branches that takes depends on the clock under each tool's replay, not on the kernel.
TIME_DEPENDENT = {"_Z4spiny": {"inst_executed", "branch"}}
# vector_add: vecAdd over 50000 floats, grid 196 x block 256; spiny: one thread.
BY_CONSTRUCTION = {
    "_Z6vecAddPKfS0_Pfi": {"sm_cta_launched": 196, "warps_launched": 196 * 8, "threads_launched": 196 * 256},
    "_Z4spiny": {"sm_cta_launched": 1, "warps_launched": 1, "threads_launched": 1},
}


def shim_values(path):
    values = {}
    with open(path) as f:
        for line in f:
            fields = dict(re.findall(r"(\w+)=\[ ([^\]]*?) \]", line))
            if "method" in fields and fields["method"].startswith("_Z"):
                values[fields["method"]] = fields
    return values


def ncu_values(path):
    values = {}
    with open(path) as f:
        rows = [line for line in f if line.startswith('"')]
    for row in csv.DictReader(rows):
        value = row["Metric Value"].replace(",", "")
        values.setdefault(row["Kernel Name"], {})[row["Metric Name"]] = float(value)
    return values


def main():
    aggregate, per_sm, ncu = shim_values(sys.argv[1]), shim_values(sys.argv[2]), ncu_values(sys.argv[3])
    sms = int(sys.argv[4])
    for kernel in ("_Z6vecAddPKfS0_Pfi", "_Z4spiny"):
        shim = aggregate.get(kernel, {})
        for legacy, expected in BY_CONSTRUCTION[kernel].items():
            got = shim.get(legacy)
            ok = got is not None and got != "n/a" and int(got) == expected
            print(f"{'PASS' if ok else 'FAIL'} {kernel} {legacy} {got} (by construction {expected})")
        for legacy, metric in METRICS.items():
            got = shim.get(legacy)
            reference = ncu.get(kernel, {}).get(metric)
            if legacy in TIME_DEPENDENT.get(kernel, ()):
                print(f"INFO {kernel} {legacy} shim {got} ncu {reference} (time-based loop: not compared)")
                continue
            ok = got not in (None, "n/a") and reference is not None and int(got) == round(reference)
            print(f"{'PASS' if ok else 'FAIL'} {kernel} {legacy} shim {got} ncu {reference}")
        for legacy in ("sm_cta_launched", "warps_launched"):
            whole, one = shim.get(legacy), per_sm.get(kernel, {}).get(legacy)
            ok = whole not in (None, "n/a") and one not in (None, "n/a") and int(one) == round(int(whole) / sms)
            print(f"{'PASS' if ok else 'FAIL'} {kernel} {legacy} per SM {one} (aggregate {whole} / {sms} SMs)")


if __name__ == "__main__":
    main()
