#!/bin/bash
# The CSV log README.md's "Reading the logs" is about, with every column it can have:
# the vector_add sample under the launcher, on the simulated driver, with --csv and a
# config holding every option of docs/format.md "Options" that applies to CUDA (and two
# counters, which read n/a there: empty fields), then check_csv_logs.py on the log,
# expecting the sample's 5 records. `conckerneltrace` is left out: with counters it
# drops them (and another run of it is the e2e tests' business); `kernels vecAdd` limits
# only the counters (kernelfilterscope's default), so every record is still written.
# `computeprof stats` must read the CSV log too, and the checker must refuse a log
# with a field missing (so that it can fail at all). README.md's example CSV log (the
# first plain code block of "## Reading the logs") must pass the same checks.
#
#   check_csv_log_of_sample.sh PYTHON3 CHECKER LAUNCHER SIMDRIVER_DIR VECTOR_ADD SCRATCH_DIR README
set -u
python=$1 checker=$2 launcher=$3 simdriver=$4 vector_add=$5 scratch=$6 readme=$7
fail() { echo "check_csv_log_of_sample: FAILED: $*" >&2; exit 1; }

rm -rf "$scratch" && mkdir -p "$scratch" && cd "$scratch" || fail "cannot make $scratch"
cat >every_option.conf <<'EOF'
# every option of docs/format.md "Options" that applies to CUDA, but conckerneltrace
timestamp
gpustarttimestamp
gpuendtimestamp
gridsize
gridsize3d
threadblocksize
dynsmemperblock
stasmemperblock
regperthread
streamid
cacheconfigexecuted
cacheconfigrequested
memtransfersize
memtransferdir
memtransferhostmemtype
countermodeaggregate
enableonstart 1
profilelogformat CSV
export json,sqlite
summary
memtrace
kernels vecAdd
kernelexclude ^nothing$
launchskip 0
launchcount 100
kernelfilterscope counters
callstack 8
inst_executed
gld_request
EOF

LD_LIBRARY_PATH=$simdriver "$launcher" --csv --config every_option.conf -o vector_add.csv -- "$vector_add" \
  >run.stdout 2>run.stderr || { cat run.stdout run.stderr >&2; fail "the run failed"; }
[ -f vector_add.csv ] || { cat run.stderr >&2; fail "no vector_add.csv written"; }
echo "--- vector_add.csv"; cat vector_add.csv; echo "---"
if grep -q '^computeprof: every_option.conf' run.stderr; then
  cat run.stderr >&2; fail "the config file was complained about"
fi
"$python" "$checker" --records 5 vector_add.csv || fail "check_csv_logs.py found problems in vector_add.csv"

# Every column of the config is there (25: 24 of the options and counters, callstackid).
columns=$(grep -v '^#' vector_add.csv | head -n 1)
[ "$columns" = "gpustarttimestamp,gpuendtimestamp,timestamp,method,gputime,cputime,gridsizeX,gridsizeY,gridsizeZ,threadblocksizeX,threadblocksizeY,threadblocksizeZ,dynsmemperblock,stasmemperblock,regperthread,occupancy,streamid,cacheconfigexecuted,cacheconfigrequested,gld_request,inst_executed,memtransfersize,memtransferdir,memtransferhostmemtype,callstackid" ] ||
  fail "unexpected column line: $columns"

"$launcher" stats vector_add.csv >stats.stdout 2>stats.stderr ||
  { cat stats.stdout stats.stderr >&2; fail "computeprof stats cannot read vector_add.csv"; }
grep -qx 'Profiling result:' stats.stdout || fail "computeprof stats printed no table: $(cat stats.stdout)"
cat stats.stdout

# The checker fails where a record lost a field, and on a wrong record count.
awk '/^[0-9a-f]+,[0-9a-f]+,/ && !done { sub(/,[^,]*$/, ""); done = 1 } { print }' vector_add.csv >broken.csv
"$python" "$checker" --records 5 broken.csv 2>checker.stderr && fail "check_csv_logs.py accepted a record with a field missing"
grep -q 'fields, the column line has' checker.stderr || fail "check_csv_logs.py did not say what is wrong: $(cat checker.stderr)"
"$python" "$checker" --records 4 vector_add.csv 2>/dev/null && fail "check_csv_logs.py accepted 5 records for 4"

awk '/^## / { section = ($0 == "## Reading the logs") } section && /^```/ { if (inside) exit; inside = 1; plain = ($0 == "```"); if (!plain) inside = 0; next }
     inside { print }' "$readme" >readme_example.csv
[ -s readme_example.csv ] || fail "README.md's \"## Reading the logs\" shows no example log"
"$python" "$checker" --records 5 readme_example.csv || fail "README.md's example CSV log does not pass check_csv_logs.py"
echo "check_csv_log_of_sample: passed"
