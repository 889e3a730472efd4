#!/bin/bash
# The CSV logs of make_csv_logs.sh (LOG_DIR), read with Python's csv module as README.md's
# "Reading the logs" says: check_csv_logs.py on each, expecting vector_add's 5 records
# (opencl_vector_add's 5 too, and README.md's example log, which must pass the same
# checks). every_column.csv has every column a CUDA config can ask for, its
# gpustarttimestamps are on the `timestamp` column's scale as README.md says,
# `computeprof stats` must read it, and the checker must refuse a log with a field
# missing (so that it can fail at all).
#
#   check_csv_log_of_sample.sh PYTHON3 CHECKER LAUNCHER LOG_DIR SCRATCH_DIR
set -u
python=$1 checker=$2 launcher=$3 logs=$4 scratch=$5
fail() { echo "check_csv_log_of_sample: FAILED: $*" >&2; exit 1; }

rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch" || fail "cannot make $scratch"
"$python" "$checker" --records 5 "$logs"/*.csv || fail "check_csv_logs.py found problems in $logs"

# Every column of the config is there (25: 24 of the options and counters, callstackid).
columns=$(grep -v '^#' "$logs/every_column.csv" | head -n 1)
[ "$columns" = "gpustarttimestamp,gpuendtimestamp,timestamp,method,gputime,cputime,gridsizeX,gridsizeY,gridsizeZ,threadblocksizeX,threadblocksizeY,threadblocksizeZ,dynsmemperblock,stasmemperblock,regperthread,occupancy,streamid,cacheconfigexecuted,cacheconfigrequested,gld_request,inst_executed,memtransfersize,memtransferdir,memtransferhostmemtype,callstackid" ] ||
  fail "unexpected column line: $columns"

# "From TIMESTAMPFACTOR it is on the scale of the timestamp column": timed serialized, each
# operation's GPU start, in ns after TIMESTAMPFACTOR, lies between its call's entry
# (timestamp) and the end of its wait (timestamp + cputime).
"$python" - "$logs/every_column.csv" <<'PY' || fail "gpustarttimestamp - TIMESTAMPFACTOR is not on the timestamp column's scale"
import csv, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
base = int(next(line for line in lines if line.startswith("# TIMESTAMPFACTOR ")).split()[2], 16)
ok = True
for record in csv.DictReader(line for line in lines if not line.startswith("#")):
    start = int(record["gpustarttimestamp"], 16) - base
    entry, wait = (int(record[c].replace(".", "")) for c in ("timestamp", "cputime"))
    print(f"{record['method']}: timestamp {entry} ns, GPU start {start} ns, end of wait {entry + wait} ns")
    ok &= entry <= start <= entry + wait
sys.exit(0 if ok else 1)
PY

"$launcher" stats "$logs/every_column.csv" >stats.stdout 2>stats.stderr ||
  { cat stats.stdout stats.stderr >&2; fail "computeprof stats cannot read every_column.csv"; }
grep -qx 'Profiling result:' stats.stdout || fail "computeprof stats printed no table: $(cat stats.stdout)"
cat stats.stdout

# The checker fails where a record lost a field, and on a wrong record count.
awk '/^[0-9a-f]+,[0-9a-f]+,/ && !done { sub(/,[^,]*$/, ""); done = 1 } { print }' "$logs/every_column.csv" >broken.csv
"$python" "$checker" --records 5 broken.csv 2>checker.stderr && fail "check_csv_logs.py accepted a record with a field missing"
grep -q 'fields, the column line has' checker.stderr || fail "check_csv_logs.py did not say what is wrong: $(cat checker.stderr)"
"$python" "$checker" --records 4 "$logs/every_column.csv" 2>/dev/null && fail "check_csv_logs.py accepted 5 records for 4"
echo "check_csv_log_of_sample: passed"
