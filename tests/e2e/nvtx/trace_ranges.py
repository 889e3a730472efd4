#!/usr/bin/env python3
"""Prints a computeprof JSON trace's NVTX events and the range path of its GPU events.

    trace_ranges.py TRACE.json

One line per user_annotation event, in the order of their times:
"<ph> <name> <args as sorted key=value>", "same thread" or "other thread" for the end
of an async range; then one line per GPU event: "gpu <name> <args['nvtx range'] or ->".
"""
import json
import sys


def main(argv):
    with open(argv[1], encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    ranges = sorted((e for e in events if e.get("cat") == "user_annotation"), key=lambda e: (e["ts"], e["ph"]))
    begins = {}
    for e in ranges:
        args = " ".join(f"{k}={v}" for k, v in sorted(e.get("args", {}).items()))
        line = f"{e['ph']} {e['name']}"
        if e["ph"] == "b":
            begins[e["id"]] = e["tid"]
        if e["ph"] == "e":
            line += " same thread" if begins.get(e["id"]) == e["tid"] else " other thread"
        print(f"{line} {args}".rstrip())
    for e in events:
        if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
            print(f"gpu {e['name']} {e['args'].get('nvtx range', '-')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
