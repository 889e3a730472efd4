#!/usr/bin/env python3
"""Prints the API calls (apitrace) of a JSON trace, one line each in the order of their
start: name, result, kind, stream and event (events numbered e1, e2, ... in the order
first named); for a synchronization, `waited` when it returned at or after the end of
the first kernel still running when it was called (the one it waited for), else
`returned-early`; not with --no-waits (kernels timed by event pairs, whose launches
already waited for them and whose times are placed on the wall clock within
microseconds)."""
import json
import sys


def main(path, check_waits):
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    calls = [e for e in events if e.get("cat") == "cuda_driver" and "result" in e.get("args", {})]
    gpu_ends = sorted(e["ts"] + e["dur"] for e in events if e.get("cat") == "kernel")
    names = {}
    for c in sorted(calls, key=lambda c: c["ts"]):
        a = c["args"]
        words = [c["name"], str(a["result"]), a.get("kind", "other")]
        if "stream" in a:
            words.append("stream=%d" % a["stream"])
        if "event" in a:
            words.append("event=" + names.setdefault(a["event"], "e%d" % (len(names) + 1)))
        if check_waits and a.get("kind", "").endswith("synchronize"):
            end = c["ts"] + c["dur"]
            # The kernels that ended while the call was made: it waited for the last.
            during = [g for g in gpu_ends if c["ts"] <= g]
            words.append("waited" if not during or end >= during[0] else "returned-early")
        print(" ".join(words))


if __name__ == "__main__":
    main(sys.argv[-1], "--no-waits" not in sys.argv)
