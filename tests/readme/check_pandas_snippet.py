#!/usr/bin/env python3
"""README.md's pandas snippet of "Reading the logs", run as written on computeprof's CSV logs.

    check_pandas_snippet.py LOG_DIR README SCRATCH_DIR

The snippet (the section's ```python block) reads 'run.csv': each log of LOG_DIR
(make_csv_logs.sh's) with the hex timestamp columns the snippet converts is copied to
SCRATCH_DIR/<log>/run.csv and the snippet runs there, unchanged; so does one more, a
copy of readme_columns.csv whose gpustarttimestamps are digits only but one, digits and
one `e` (pandas reads such a column as numbers unless told it is text). Its `df` must hold,
column for column, exactly what Python's csv module reads from the log:
- `method` as the same strings;
- the hex columns as int64 nanoseconds, int(x, 16) of the field, and `start` as
  datetime64[ns] of that many ns since the epoch;
- every other column numeric: int64 where no field is empty, else float64 with NaN
  for the empty fields (as the section says), each value the field's;
and the section's other two expressions, also copied from README.md, must do what it
says: `df['memtransfersize'].astype('Int64')` gives integers (and <NA>), the
csv.DictReader expression the same rows as the csv module.
No pandas for this Python: exit 77 (ctest's skip) with the reason.
"""
import csv
import os
import re
import shutil
import sys

HEX_COLUMNS = ("gpustarttimestamp", "gpuendtimestamp")
errors = []


def fail(message):
    errors.append(message)


def readme_section(path):
    with open(path, encoding="utf-8") as file:
        return file.read().split("\n## Reading the logs\n", 1)[1].split("\n## ", 1)[0]


def extract(section, pattern, what):
    found = re.search(pattern, section, re.S | re.M)
    if not found:
        sys.exit(f"check_pandas_snippet: FAILED: README.md's Reading the logs has no {what}")
    return found.group(1)


def read_log(path):
    with open(path, newline="", encoding="utf-8") as file:
        rows = list(csv.reader(line for line in file if not line.startswith("#")))
    return rows[0], rows[1:]


def check_column(pd, name, series, fields):
    if name == "method":
        if series.dtype != object or list(series) != fields:
            fail(f"method: {series.dtype} {list(series)}, expected the strings {fields}")
        return
    if name in HEX_COLUMNS:
        expected = [int(field, 16) for field in fields]
        if series.dtype != "int64" or [int(value) for value in series] != expected:
            fail(f"{name}: {series.dtype} {list(series)}, expected int64 {expected}")
        return
    if not pd.api.types.is_numeric_dtype(series):
        fail(f"{name}: {series.dtype}, not numeric: {list(series)}")
        return
    if "" in fields:
        expected_dtype = "float64"
        expected = [float(field) if field else None for field in fields]
        got = [None if pd.isna(value) else float(value) for value in series]
    elif all(re.fullmatch(r"[0-9]+", field) for field in fields):
        expected_dtype, expected, got = "int64", [int(field) for field in fields], [int(value) for value in series]
    else:
        expected_dtype, expected, got = "float64", [float(field) for field in fields], [float(v) for v in series]
    if series.dtype != expected_dtype or got != expected:
        fail(f"{name}: {series.dtype} {got}, expected {expected_dtype} {expected}")


def with_digit_timestamps(log, scratch):
    """The log with its gpustarttimestamps made of digits (and the last of digits and one e)."""
    header, records = read_log(log)
    column = header.index("gpustarttimestamp")
    with open(log, newline="", encoding="utf-8") as file:
        lines = file.read().splitlines()
    first = len(lines) - len(records)
    for number in range(len(records)):
        fields = lines[first + number].split(",")
        fields[column] = "1912345678901e23" if number == len(records) - 1 else f"{1900123456789012 + number}"
        lines[first + number] = ",".join(fields)
    path = os.path.join(scratch, "digit_timestamps.csv")
    with open(path, "w", encoding="utf-8") as file:
        file.write("\n".join(lines) + "\n")
    return path


def check_log(pd, log, snippet, integers, dict_reader, scratch):
    header, records = read_log(log)
    where = os.path.join(scratch, os.path.basename(log).removesuffix(".csv"))
    os.makedirs(where)
    shutil.copy(log, os.path.join(where, "run.csv"))
    os.chdir(where)
    names = {}
    exec(snippet, names)
    df = names["df"]
    if list(df.columns) != header + ["start"] or len(df) != len(records):
        fail(f"{log}: df has columns {list(df.columns)} and {len(df)} rows; the log {header} and {len(records)}")
        return
    for index, name in enumerate(header):
        before = len(errors)
        check_column(pd, name, df[name], [record[index] for record in records])
        errors[before:] = [f"{log}: {error}" for error in errors[before:]]
    starts = [int(record[header.index("gpustarttimestamp")], 16) for record in records]
    if df["start"].dtype != "datetime64[ns]" or [value.value for value in df["start"]] != starts:
        fail(f"{log}: start is {df['start'].dtype} {list(df['start'])}, expected datetime64[ns] of {starts}")
    if "memtransfersize" in header:
        sizes = eval(integers, names)
        fields = [record[header.index("memtransfersize")] for record in records]
        expected = [int(field) if field else None for field in fields]
        got = [None if value is pd.NA else int(value) for value in sizes]
        if sizes.dtype != "Int64" or got != expected:
            fail(f"{log}: {integers} is {sizes.dtype} {got}, expected Int64 {expected}")
    rows = [dict(row) for row in eval(dict_reader, {"csv": csv})]
    if rows != [dict(zip(header, record)) for record in records]:
        fail(f"{log}: {dict_reader} read {rows}")


def main():
    log_dir, readme, scratch = map(os.path.abspath, sys.argv[1:4])
    try:
        import pandas as pd
    except ImportError:
        print(f"check_pandas_snippet: skipped: no pandas for {sys.executable} (Debian: apt-get install python3-pandas)")
        return 77
    section = readme_section(readme)
    snippet = extract(section, r"^```python\n(.*?)^```$", "```python block")
    integers = extract(section, r"`(df\['memtransfersize'\]\.astype\('Int64'\))`", "df['memtransfersize'].astype('Int64')")
    dict_reader = extract(section, r"`(csv\.DictReader\([^`]*\))`", "csv.DictReader(...) expression")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    logs = []
    for name in sorted(os.listdir(log_dir)):
        path = os.path.join(log_dir, name)
        if name.endswith(".csv") and set(HEX_COLUMNS) <= set(read_log(path)[0]):
            logs.append(path)
    if "readme_columns.csv" not in map(os.path.basename, logs):
        fail(f"no readme_columns.csv with the hex columns in {log_dir}")
    else:
        logs.append(with_digit_timestamps(os.path.join(log_dir, "readme_columns.csv"), scratch))
    for log in logs:
        check_log(pd, log, snippet, integers, dict_reader, scratch)
    for error in errors:
        print(f"check_pandas_snippet: {error}", file=sys.stderr)
    if errors:
        print(f"check_pandas_snippet: FAILED, {len(errors)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_pandas_snippet: passed with pandas {pd.__version__}: {', '.join(map(os.path.basename, logs))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
