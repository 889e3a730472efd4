#!/usr/bin/env python3
"""Reads computeprof nvprof's --csv output as scripts written for nvprof read it, and
prints what it read, for the end-to-end tests to compare:

    read_nvprof_csv.py FILE

Python's csv module: the lines before the header ("==PID== ..."), the header row, the
units row, then the rows; pandas.read_csv(FILE, skiprows=[0, 1, 2, 4]) (the three
==PID== lines of a --log-file and the units row) where pandas is installed, else one line
saying it is not.
"""
import csv
import sys


def main(path):
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    preamble = [l for l in lines if l.startswith("==")]
    table = [l for l in lines if not l.startswith("==")]
    rows = list(csv.reader(table))
    header, units, data = rows[0], rows[1], rows[2:]
    if any(len(r) != len(header) for r in data + [units]):
        print("a row's width differs from the header's")
        sys.exit(1)
    print("preamble: %d lines" % len(preamble))
    print("columns: %s" % "|".join(header))
    print("units: %s" % "|".join(units))
    print("rows: %d" % len(data))
    name = header.index("Name")
    print("names: %s" % "|".join(sorted(set(r[name] for r in data))))
    try:
        import pandas
    except ImportError:
        print("pandas: not installed")
        return
    frame = pandas.read_csv(path, skiprows=[0, 1, 2, 4])
    print("pandas: %d rows, %d columns, names %s" % (
        len(frame), len(frame.columns), "|".join(sorted(set(frame["Name"])))))


if __name__ == "__main__":
    main(sys.argv[1])
