#!/bin/bash
# The CSV logs README.md's "Reading the logs" is about, written once for the tests that
# read them (check_csv_log_of_sample.sh, check_spreadsheet_import.py,
# check_pandas_snippet.py): every header the section names, so that every row it gives
# for the column names is met. vector_add under the launcher:
#   default.csv          --csv alone: column names on line 5
#   readme_columns.csv   the README example's config (gpustarttimestamp, gpuendtimestamp,
#                        memtransfersize): line 6, after '# TIMESTAMPFACTOR'
#   every_column.csv     every option of docs/format.md "Options" that applies to CUDA
#                        (and two counters, which read n/a there: empty fields); not
#                        conckerneltrace, which would drop the counters; `kernels vecAdd`
#                        limits only the counters (kernelfilterscope's default)
#   dropped_counters.csv conckerneltrace with a counter and the hex columns: line 7,
#                        after the '# WARNING' line
#   opencl.csv           opencl_vector_add on PoCL with the hex columns (only where the
#                        sample was built and PoCL is installed, as check_readme_commands.sh)
#   readme_example.csv   README.md's example log (the first plain code block of the section)
# CUDA runs on the simulated driver. A complaint about a config file fails (a log
# without the columns asked for would test nothing), but the one that says the counters
# are dropped, which dropped_counters.csv must have.
#
#   make_csv_logs.sh LAUNCHER SIMDRIVER_DIR VECTOR_ADD OPENCL_VECTOR_ADD|- README OUT_DIR
set -u
launcher=$1 simdriver=$2 vector_add=$3 opencl_vector_add=$4 readme=$5 out=$6
fail() { echo "make_csv_logs: FAILED: $*" >&2; exit 1; }

rm -rf "$out" && mkdir -p "$out" && cd "$out" || fail "cannot make $out"

# run NAME CONFIG_TEXT EXPECTED_COMPLAINT PROGRAM [ENV...]: NAME.csv from PROGRAM under
# the launcher; the complaints about NAME.conf must be EXPECTED_COMPLAINT (a line, or '').
run() {
  local name=$1 config=$2 expected=$3 program=$4
  shift 4
  printf '%s\n' "$config" >"$name.conf"
  env "$@" "$launcher" --csv --config "$name.conf" -o "$name.csv" -- "$program" \
    >"$name.stdout" 2>"$name.stderr" || { cat "$name.stdout" "$name.stderr" >&2; fail "the $name run failed"; }
  [ -f "$name.csv" ] || { cat "$name.stderr" >&2; fail "no $name.csv written"; }
  complaints=$(grep "^computeprof: $name.conf" "$name.stderr")
  [ "$complaints" = "$expected" ] || { cat "$name.stderr" >&2; fail "$name.conf: complaints '$complaints', expected '$expected'"; }
  echo "--- $name.csv"; cat "$name.csv"
}

cuda=("LD_LIBRARY_PATH=$simdriver")
run default '# nothing: the default columns' '' "$vector_add" "${cuda[@]}"
run readme_columns $'gpustarttimestamp\ngpuendtimestamp\nmemtransfersize' '' "$vector_add" "${cuda[@]}"
run every_column '# every option of docs/format.md "Options" that applies to CUDA, but conckerneltrace
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
gld_request' '' "$vector_add" "${cuda[@]}"
run dropped_counters $'conckerneltrace\ngpustarttimestamp\ngpuendtimestamp\ninst_executed' \
  'computeprof: dropped_counters.conf: counters cannot be collected with conckerneltrace; counters ignored' \
  "$vector_add" "${cuda[@]}"

vendors=${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}
if [ "$opencl_vector_add" = - ]; then
  echo "make_csv_logs: no opencl.csv: the OpenCL samples were not built (CMake found no OpenCL)"
elif ! grep -qsil pocl "$vendors" "$vendors"/*.icd 2>/dev/null; then
  echo "make_csv_logs: no opencl.csv: PoCL is not installed (no pocl ICD in $vendors)"
else
  # PoCL's kernel cache kept between runs; one worker thread, as tests/opencl (ctest -j2).
  run opencl $'gpustarttimestamp\ngpuendtimestamp\nmemtransfersize' '' "$opencl_vector_add" \
    "POCL_CACHE_DIR=$out.pocl-cache" POCL_MAX_PTHREAD_COUNT=1
fi

awk '/^## / { section = ($0 == "## Reading the logs") } section && /^```/ { if (inside) exit; inside = 1; plain = ($0 == "```"); if (!plain) inside = 0; next }
     inside { print }' "$readme" >readme_example.csv
[ -s readme_example.csv ] || fail "README.md's \"## Reading the logs\" shows no example log"
echo "make_csv_logs: written:" *.csv
