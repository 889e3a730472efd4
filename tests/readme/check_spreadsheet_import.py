#!/usr/bin/env python3
"""LibreOffice Calc imports computeprof's CSV logs as README.md's "Reading the logs" says.

    check_spreadsheet_import.py LOG_DIR README SCRATCH_DIR

LOG_DIR holds make_csv_logs.sh's logs. `soffice --headless --convert-to fods` imports
them with the CSV filter options that are the section's Text Import recipe (below) and
writes flat ODF, whose cells say what Calc made of each field: office:value-type
"float" with office:value for a number, "string" for text. Checked:
- the column names are on the row the section says (its numbers read from its words:
  5, 6 after '# TIMESTAMPFACTOR', one more after '# WARNING'): importing from that row
  puts them in row 1;
- every field arrives as the section promises: numbers as numbers of exactly the
  log's value, the hex timestamps and `method` as the same text, empty fields empty;
- the section's formula, copied from README.md and filled down as a user would,
  gives each gpustarttimestamp in µs after the TIMESTAMPFACTOR base, to the ns (and
  one more timestamp, seconds later, whose upper half differs);
- what the recipe's settings prevent does happen without them: in a German locale a
  time loses its decimal point (69.413 is 69413), in a French one it stays text; a hex
  timestamp of digits only, or digits and one `e`, not imported as text is a number.
soffice missing: exit 77 (ctest's skip) with the reason. Python's standard library only.
"""
import csv
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

HEX_COLUMNS = ("gpustarttimestamp", "gpuendtimestamp")
TEXT_COLUMNS = set(HEX_COLUMNS) | {"method"}
TIME_COLUMNS = ("timestamp", "gputime", "cputime")
NS = {
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
}
# LibreOffice's language identifiers (Microsoft LCIDs) of the locales tried.
EN_US, DE_DE, FR_FR = 1033, 1031, 1036
# Column format code of Calc's CSV filter options: 2 is Text.
TEXT_FORMAT = 2
# Hex timestamps a spreadsheet takes for numbers when not told they are text.
DIGITS_ONLY, DIGITS_AND_E = "1900123456789012", "1912345678901e23"

errors = []


def fail(message):
    errors.append(message)


class Log:
    """A CSV log as Python's csv module reads it, and the row README.md gives for its column
    names: `readme_rows` is (default, with TIMESTAMPFACTOR, more with WARNING) as README.md says."""

    def __init__(self, path, readme_rows):
        self.path = path
        self.name = os.path.basename(path)
        with open(path, newline="", encoding="utf-8") as file:
            self.lines = file.read().splitlines()
        self.comments = [line for line in self.lines if line.startswith("#")]
        self.column_line = len(self.comments) + 1
        rows = list(csv.reader(self.lines[len(self.comments):]))
        self.header, self.records = rows[0], rows[1:]
        default, with_factor, more_with_warning = readme_rows
        self.readme_row = ((with_factor if any(c.startswith("# TIMESTAMPFACTOR ") for c in self.comments) else default)
                           + more_with_warning * any(c.startswith("# WARNING") for c in self.comments))
        factor = [c.split()[2] for c in self.comments if c.startswith("# TIMESTAMPFACTOR ")]
        self.factor = factor[0] if factor else None

    def text_columns(self):
        """The 1-based numbers of the columns the recipe imports as Text: the hex timestamps."""
        return [i + 1 for i, name in enumerate(self.header) if name in HEX_COLUMNS]


def csv_filter(first_row, text_columns, language, evaluate_formulas=False):
    """Calc's CSV filter options: separator ',' (44), string delimiter '"' (34), UTF-8, the
    first row imported, column formats (column/format pairs), the language, then the Text
    Import dialog's defaults: quoted fields as text off, detect special numbers off. Token
    13 (evaluate formulas) only where the test itself writes formulas."""
    formats = "/".join(f"{column}/{TEXT_FORMAT}" for column in text_columns)
    options = f"44,34,UTF8,{first_row},{formats},{language},false,false"
    if evaluate_formulas:
        options += ",false,false,false,-1,true"
    return "CSV:" + options


def convert(scratch, label, options, paths):
    """The sheets soffice makes of `paths` with filter `options`, one call for all of them:
    {file name: rows of (value-type, office:value, text)}."""
    out = os.path.join(scratch, label)
    os.makedirs(out)
    command = ["soffice", f"-env:UserInstallation=file://{scratch}/profile", "--headless",
               f"--infilter={options}", "--convert-to", "fods", "--outdir", out] + paths
    done = subprocess.run(command, capture_output=True, text=True, timeout=240)
    sheets = {}
    for path in paths:
        name = os.path.basename(path)
        fods = os.path.join(out, os.path.splitext(name)[0] + ".fods")
        if not os.path.exists(fods):
            fail(f"{label}: soffice wrote no {fods} (status {done.returncode}): {done.stdout}{done.stderr}")
            continue
        sheets[name] = read_sheet(fods)
    print(f"{label}: {options}: {' '.join(os.path.basename(p) for p in paths)}")
    return sheets


def read_sheet(fods):
    """The first table's rows, trailing empty cells and rows dropped."""
    table = ET.parse(fods).getroot().find(".//table:table", NS)
    rows = []
    for row in table.iter(f"{{{NS['table']}}}table-row"):
        cells = []
        for cell in row.findall("table:table-cell", NS):
            value = (cell.get(f"{{{NS['office']}}}value-type"), cell.get(f"{{{NS['office']}}}value"),
                     "\n".join("".join(p.itertext()) for p in cell.findall("text:p", NS)))
            cells += [value] * int(cell.get(f"{{{NS['table']}}}number-columns-repeated", "1"))
        while cells and cells[-1] == (None, None, ""):
            cells.pop()
        rows += [cells] * int(row.get(f"{{{NS['table']}}}number-rows-repeated", "1"))
    while rows and not rows[-1]:
        rows.pop()
    return rows


def cell(rows, row, column):
    """(value-type, value, text) of the 1-based row and column; empty past the end."""
    cells = rows[row - 1] if row <= len(rows) else []
    return cells[column - 1] if column <= len(cells) else (None, None, "")


def check_recipe_import(log, rows):
    """The column names in row 1, then each record's fields as the section promises."""
    where = f"{log.name} (column names on line {log.column_line}, imported from row {log.readme_row})"
    if log.readme_row != log.column_line:
        fail(f"{where}: README.md's row for the column names is not this log's")
    names = [cell(rows, 1, c + 1) for c in range(len(log.header))]
    if names != [("string", None, name) for name in log.header]:
        fail(f"{where}: row 1 is {names}, not the column names {log.header}")
    if len(rows) != 1 + len(log.records):
        fail(f"{where}: {len(rows)} rows, expected the column names and {len(log.records)} records")
    for number, record in enumerate(log.records):
        for column, (name, field) in enumerate(zip(log.header, record)):
            got = cell(rows, number + 2, column + 1)
            if field == "":
                expected_ok = got == (None, None, "")
            elif name in TEXT_COLUMNS:
                expected_ok = got == ("string", None, field)
            else:
                expected_ok = got[0] == "float" and float(got[1]) == float(field)
            if not expected_ok:
                fail(f"{where}: row {number + 2} {name}: {field!r} arrived as {got}")


def formula_starts(log):
    """The gpustarttimestamps the formula is tried on: the records', then one 2^33 - 1 ns
    after the base, whose upper 8 hex digits are 2 more and lower 8 one less (a run of a
    few seconds crosses such a boundary)."""
    starts = [record[log.header.index("gpustarttimestamp")] for record in log.records]
    base = int(log.factor, 16)
    return starts + [f"{base + 2**33 - 1:016x}"]


def formula_sheet(log, formula, scratch):
    """What the recipe imports of the log (the lines from the column line on) with, as the
    section says, the base as text in H1 and its formula filled down column I (A2 -> A3
    ...), one more row holding only the last of formula_starts; None where H is a column
    of the log."""
    if log.header[:1] != ["gpustarttimestamp"] or len(log.header) > 7:
        return None
    lines = log.lines[log.column_line - 1:] + [formula_starts(log)[-1]]
    lines[0] += "," * (8 - len(lines[0].split(","))) + log.factor
    for row in range(2, len(lines) + 1):
        filled = re.sub(r"(?<![$A-Z])A2\b", f"A{row}", formula)
        lines[row - 1] += "," * (9 - len(lines[row - 1].split(","))) + '"' + filled.replace('"', '""') + '"'
    path = os.path.join(scratch, "formula_" + log.name)
    with open(path, "w", encoding="utf-8") as file:
        file.write("\n".join(lines) + "\n")
    return path


def check_formula(log, rows):
    for number, start in enumerate(formula_starts(log)):
        nanoseconds = int(start, 16) - int(log.factor, 16)
        got = cell(rows, number + 2, 9)
        # Calc computes in doubles: exact for an integer number of ns, then one division.
        if got[0] != "float" or float(got[1]) != nanoseconds / 1000:
            fail(f"{log.name}: the formula on {start} gave {got}, not {nanoseconds} ns / 1000 "
                 f"= {nanoseconds / 1000!r} µs after {log.factor}")


def with_digit_timestamps(log, scratch):
    """The log with its first two gpustarttimestamps made of digits, and of digits and one e."""
    lines = list(log.lines)
    for number, value in enumerate((DIGITS_ONLY, DIGITS_AND_E)):
        fields = lines[log.column_line + number].split(",")
        fields[log.header.index("gpustarttimestamp")] = value
        lines[log.column_line + number] = ",".join(fields)
    path = os.path.join(scratch, "digit_timestamps.csv")
    with open(path, "w", encoding="utf-8") as file:
        file.write("\n".join(lines) + "\n")
    return path


def check_german(log, rows):
    """German groups thousands with '.': every time and occupancy loses its decimal point."""
    for number, record in enumerate(log.records):
        for name in TIME_COLUMNS + ("occupancy",):
            if name in log.header and record[log.header.index(name)]:
                field = record[log.header.index(name)]
                got = cell(rows, number + 2, log.header.index(name) + 1)
                if got[0] != "float" or float(got[1]) != int(field.replace(".", "")):
                    fail(f"{log.name} in de-DE: {name} {field!r} arrived as {got}, not {field.replace('.', '')}")


def check_french(log, rows):
    """French groups thousands with a space: a time with a decimal point stays text."""
    for number, record in enumerate(log.records):
        for name in TIME_COLUMNS:
            if name in log.header:
                field = record[log.header.index(name)]
                got = cell(rows, number + 2, log.header.index(name) + 1)
                if got != ("string", None, field):
                    fail(f"{log.name} in fr-FR: {name} {field!r} arrived as {got}, not as text")


def check_digit_timestamps(rows, as_text, column):
    for row, value, number in ((2, DIGITS_ONLY, 1900123456789012.0), (3, DIGITS_AND_E, 1.912345678901e35)):
        got = cell(rows, row, column)
        expected_ok = got == ("string", None, value) if as_text else (got[0] == "float" and float(got[1]) == number)
        if not expected_ok:
            fail(f"gpustarttimestamp {value} {'as Text' if as_text else 'not as Text'} arrived as {got}")


def from_readme(section, pattern, what):
    found = re.search(pattern, section, re.M)
    if not found:
        sys.exit(f"check_spreadsheet_import: FAILED: README.md's Reading the logs does not say {what}")
    return found.group(1)


def readme_claims(readme):
    """The rows of the column names, as numbers, and the formula (the first line of a code
    block that is a HEX2DEC formula), from README.md's "## Reading the logs"."""
    section = readme.split("\n## Reading the logs\n", 1)[1].split("\n## ", 1)[0]
    words = " ".join(section.split())  # its lines joined: a claim may span two
    numbers = {"one": 1, "two": 2}
    rows = (int(from_readme(words, r"names are on the line after the last `#` line: row (\d+) of a default CSV log",
                            "the row of a default log's column names")),
            int(from_readme(words, r"row (\d+) when `gpustarttimestamp` or `gpuendtimestamp` adds the `# TIMESTAMPFACTOR` line",
                            "the row with TIMESTAMPFACTOR")),
            numbers[from_readme(words, r"(one|two) more when counters were dropped", "the rows a # WARNING adds")])
    formula = from_readme(section, r"^```\n(=.*HEX2DEC.*)\n```$", "a =...HEX2DEC... formula block")
    return rows, formula


def main():
    log_dir, readme_path, scratch = sys.argv[1:4]
    if not shutil.which("soffice"):
        print("check_spreadsheet_import: skipped: no soffice on PATH (Debian: apt-get install libreoffice-calc-nogui)")
        return 77
    with open(readme_path, encoding="utf-8") as file:
        readme_rows, formula = readme_claims(file.read())
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    logs = {name: Log(os.path.join(log_dir, name), readme_rows) for name in sorted(os.listdir(log_dir)) if name.endswith(".csv")}
    readme_columns = logs["readme_columns.csv"]
    digits = with_digit_timestamps(readme_columns, scratch)
    start_column = readme_columns.header.index("gpustarttimestamp") + 1

    # The recipe: one soffice call per first row and set of Text columns.
    groups = {}
    for log in logs.values():
        groups.setdefault((log.readme_row, tuple(log.text_columns())), []).append(log)
    for (row, text_columns), group in sorted(groups.items()):
        # The digit timestamps go where the log they were made from goes.
        paths = [log.path for log in group] + ([digits] if readme_columns in group else [])
        sheets = convert(scratch, f"recipe_row{row}", csv_filter(row, text_columns, EN_US), paths)
        for log in group:
            if log.name in sheets:
                check_recipe_import(log, sheets[log.name])
        if readme_columns in group and "digit_timestamps.csv" in sheets:
            check_digit_timestamps(sheets["digit_timestamps.csv"], True, start_column)

    with_formula = {}
    for log in logs.values():
        path = formula_sheet(log, formula, scratch)
        if path:
            with_formula[os.path.basename(path)] = log
    if "formula_readme_columns.csv" not in with_formula:
        fail(f"readme_columns.csv cannot take the formula: columns {readme_columns.header}")
    sheets = convert(scratch, "formula", csv_filter(1, [1, 2, 8], EN_US, True),
                     [os.path.join(scratch, name) for name in with_formula])
    for name, log in with_formula.items():
        if name in sheets:
            check_formula(log, sheets[name])

    # Without the recipe's locale (and, for the digit timestamps, without Text columns).
    row = readme_columns.readme_row
    sheets = convert(scratch, "german", csv_filter(row, [], DE_DE), [readme_columns.path, digits])
    if readme_columns.name in sheets:
        check_german(readme_columns, sheets[readme_columns.name])
    if "digit_timestamps.csv" in sheets:
        check_digit_timestamps(sheets["digit_timestamps.csv"], False, start_column)
    sheets = convert(scratch, "french", csv_filter(row, readme_columns.text_columns(), FR_FR), [readme_columns.path])
    if readme_columns.name in sheets:
        check_french(readme_columns, sheets[readme_columns.name])

    for error in errors:
        print(f"check_spreadsheet_import: {error}", file=sys.stderr)
    if errors:
        print(f"check_spreadsheet_import: FAILED, {len(errors)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_spreadsheet_import: passed: {', '.join(logs)}; formula on {', '.join(with_formula)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
