#!/usr/bin/env python3
"""Reads `computeprof stats --format csv|json` output as a script would, and prints
every row of every table the same way for both, for the end-to-end tests to compare:

    read_stats_tables.py csv|json FILE

CSV (Python's csv module): tables separated by one empty line, each its column line
and rows; a table is named by its position (the JSON's member names are printed in
order, so the two outputs compare once the names are left out). Each row prints as
`key=value` pairs, numbers as Python reads them (int, else float; empty: None).
"""
import csv
import json
import sys


def number(text):
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def print_row(row):
    print(" ".join(f"{k}={v!r}" for k, v in row.items()))


def main(kind, path):
    with open(path, newline="", encoding="utf-8") as f:
        text = f.read()
    if kind == "json":
        tables = json.loads(text)
        for rows in tables.values():
            print("table")
            for row in rows:
                print_row(row)
        return
    rows = list(csv.reader(text.splitlines(keepends=True)))
    header = None
    for row in rows:
        if not row:
            header = None
            continue
        if header is None:
            header = row
            print("table")
            continue
        if len(row) != len(header):
            sys.exit(f"a row of {len(row)} fields under a column line of {len(header)}")
        print_row({k: (v if k in ("name", "rank", "slowest_rank", "verdict", "cause", "detail") else number(v))
                   for k, v in zip(header, row)})


main(sys.argv[1], sys.argv[2])
