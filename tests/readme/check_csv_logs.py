#!/usr/bin/env python3
"""Reads computeprof CSV logs the way README.md's "Reading the logs" tells a user to.

    check_csv_logs.py [--records N] LOG.csv...

Each file: the '#' lines skipped (pandas' comment='#'), the rest read with Python's csv
module, and checked against docs/format.md ("Header", "CSV records", "Values"):
- exactly one header (column) row, then records; every record has as many fields as
  the header;
- `method` is never empty; the columns that apply to every record are never empty;
- every other field is empty (the column does not apply, or a counter could not be
  counted) or a number in the column's format: hex (16 lower-case digits, no 0x, read
  with int(x, 16)) for gpustarttimestamp/gpuendtimestamp, µs with three decimals for
  the times, three decimals for occupancy, a decimal integer for everything else;
- gpuendtimestamp - gpustarttimestamp is gputime in ns, and TIMESTAMPFACTOR is in the
  header where the hex columns are (the base README.md subtracts);
- with --records N, exactly N records.
Every problem is printed with file and line; the exit status is 1 if there was any.
Python's standard library only.
"""
import argparse
import csv
import re
import sys

HEX_COLUMNS = {"gpustarttimestamp", "gpuendtimestamp"}
TIME_COLUMNS = {"timestamp", "gputime", "cputime"}
# Columns that apply to every record (docs/format.md, "Values").
EVERY_RECORD = HEX_COLUMNS | TIME_COLUMNS | {"method", "streamid"}

HEX = re.compile(r"[0-9a-f]{16}")
MICROSECONDS = re.compile(r"[0-9]+\.[0-9]{3}")
OCCUPANCY = re.compile(r"[01]\.[0-9]{3}")
INTEGER = re.compile(r"[0-9]+")


def check_value(column, value):
    """An error message for a non-empty field of `column`, or None."""
    if column == "method":
        return None
    if column in HEX_COLUMNS:
        if not HEX.fullmatch(value):
            return f"{column} {value!r} is not 16 lower-case hex digits"
        int(value, 16)
    elif column in TIME_COLUMNS:
        if not MICROSECONDS.fullmatch(value):
            return f"{column} {value!r} is not a time in µs with three decimals"
        float(value)
    elif column == "occupancy":
        if not OCCUPANCY.fullmatch(value) or float(value) > 1:
            return f"occupancy {value!r} is not a number from 0 to 1 with three decimals"
    else:
        if not INTEGER.fullmatch(value):
            return f"{column} {value!r} is not a decimal integer"
        int(value)
    return None


def check_file(path, expected_records):
    errors = []
    with open(path, newline="", encoding="utf-8") as file:
        text = file.read()
    lines = text.split("\n")
    if not text.endswith("\n"):
        errors.append(f"{path}: does not end with a newline")
    comments = [line for line in lines if line.startswith("#")]
    first_data = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    if any(line.startswith("#") for line in lines[first_data:]):
        errors.append(f"{path}: '#' lines after the column line")
    if "# CUDA_PROFILE_CSV 1" not in comments and "# OPENCL_PROFILE_CSV 1" not in comments:
        errors.append(f"{path}: no '# CUDA_PROFILE_CSV 1' header line: not a CSV log")

    rows = list(csv.reader((line for line in text.splitlines(keepends=True) if not line.startswith("#")),
                           strict=True))
    if not rows:
        return errors + [f"{path}: no column line"]
    header, records = rows[0], rows[1:]
    column_line = first_data + 1  # 1-based line number (the spreadsheet's row)
    if len(set(header)) != len(header):
        errors.append(f"{path}:{column_line}: repeated column names {header}")
    for required in ("method", "gputime", "cputime", "occupancy"):
        if required not in header:
            errors.append(f"{path}:{column_line}: no column {required!r} in {header}")
    if "method" in header and any(row and row[header.index("method")] == "method" for row in records):
        errors.append(f"{path}: a second column line")
    if HEX_COLUMNS & set(header):
        factor = [line for line in comments if line.startswith("# TIMESTAMPFACTOR ")]
        if len(factor) != 1 or not re.fullmatch(r"# TIMESTAMPFACTOR [0-9a-f]+", factor[0]):
            errors.append(f"{path}: hex timestamp columns without one '# TIMESTAMPFACTOR <hex>' line")

    for number, row in enumerate(records):
        where = f"{path}:{column_line + 1 + number}"
        if len(row) != len(header):
            errors.append(f"{where}: {len(row)} fields, the column line has {len(header)}")
            continue
        fields = dict(zip(header, row))
        if not fields["method"]:
            errors.append(f"{where}: empty method")
        for column, value in fields.items():
            if value == "":
                if column in EVERY_RECORD:
                    errors.append(f"{where}: empty {column}, which every record has")
                continue
            problem = check_value(column, value)
            if problem:
                errors.append(f"{where}: {problem}")
        if (HEX_COLUMNS <= set(header) and HEX.fullmatch(fields["gpustarttimestamp"])
                and HEX.fullmatch(fields["gpuendtimestamp"]) and MICROSECONDS.fullmatch(fields["gputime"])):
            span = int(fields["gpuendtimestamp"], 16) - int(fields["gpustarttimestamp"], 16)
            if span != int(fields["gputime"].replace(".", "")):
                errors.append(f"{where}: gpuendtimestamp - gpustarttimestamp is {span} ns, "
                              f"gputime {fields['gputime']} µs")

    if expected_records is not None and len(records) != expected_records:
        errors.append(f"{path}: {len(records)} records, expected {expected_records}")
    if not errors:
        print(f"{path}: {len(records)} records of {len(header)} columns, column names on line "
              f"{column_line}: {','.join(header)}")
    return errors


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, help="the exact number of records each file must have")
    parser.add_argument("logs", nargs="+")
    arguments = parser.parse_args()
    errors = []
    for path in arguments.logs:
        try:
            errors += check_file(path, arguments.records)
        except (OSError, UnicodeDecodeError, csv.Error) as error:
            errors.append(f"{path}: {error}")
    for error in errors:
        print(f"check_csv_logs: {error}", file=sys.stderr)
    if errors:
        print(f"check_csv_logs: FAILED, {len(errors)} problem(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
