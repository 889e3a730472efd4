#!/bin/bash
# Runs README.md's own commands and compares what they write with what README.md shows.
#
#   check_readme_commands.sh README BUILD_DIR SCRATCH_DIR cuda|opencl|beyond
#
# The commands are found in README.md's code blocks by matching, so a change of the
# README is a change of what runs here; `build/` in them becomes BUILD_DIR. Each runs in
# an empty SCRATCH_DIR, as a user would in a fresh directory:
#   cuda    "Build, test, run", the main job on the simulated driver
#           (LD_LIBRARY_PATH=build/simdriver build/tools/computeprof -o LOG -- build/samples/vector_add)
#   opencl  "OpenCL, on any machine" (build/tools/computeprof -o LOG -- build/samples/opencl_vector_add),
#           only where PoCL is installed: exit 77 (ctest's skip) otherwise
#   beyond  "Beyond the old profiler": the --export ... run and `computeprof stats`
# The produced log's shape must equal the example log shown after the command: the same
# header lines (the OpenCL device name aside: PoCL names the CPU), the same column line,
# the same sequence of methods and the same keys in each record; values differ. For
# `beyond`: the files the README says are written exist, the log has the records it
# says, and the table rows equal those shown (and `stats` gives the at-exit table).
set -u

readme=$1 build=$2 scratch=$3 mode=$4
fail() { echo "check_readme_commands ($mode): FAILED: $*" >&2; exit 1; }
skip() { echo "check_readme_commands ($mode): skipped: $*"; exit 77; }
[ -f "$readme" ] || fail "no README at $readme"
[ -d "$build" ] || fail "no build directory $build"
build=$(cd "$build" && pwd)

# The first line inside a fenced code block that matches the extended regex $1, with its
# line number: "NR:text".
code_line() {
  awk -v re="$1" '/^```/ { inside = !inside; next } inside && $0 ~ re { print NR ":" $0; exit }' "$readme"
}
# The contents of the first plain (no language) fenced block that opens after line $1.
plain_block_after() {
  awk -v from="$1" '
    /^```/ {
      if (NR <= from) { inside = !inside; next }
      if (inside) { inside = 0; if (plain) exit; next }
      inside = 1; plain = ($0 == "```"); next
    }
    NR > from && inside && plain { print }' "$readme"
}
# README.md's build/ (at the start of the command or of a value) -> the real build dir.
localize() { sed -E "s#(^|[ =])build/#\\1${build}/#g" <<<"$1"; }
# A log's shape: header lines, the column line, then per record its method and keys.
shape() {
  awk -v opencl="$2" '
    /^#/ {
      if (opencl && $0 ~ /^# OPENCL_DEVICE [0-9]+ /) { print $1 " " $2 " " $3 " <device name>"; next }
      print; next
    }
    !columns { print "columns: " $0; columns = 1; next }
    {
      line = $0; method = ""; keys = ""
      if (match(line, /^method=\[ [^ ]* \]/)) method = substr(line, 10, RLENGTH - 11)
      while (match(line, /[A-Za-z0-9_]+=\[/)) {
        keys = keys " " substr(line, RSTART, RLENGTH - 2); line = substr(line, RSTART + RLENGTH)
      }
      print "record: " method " |" keys
    }' "$1"
}
# Runs README command $1 (already localized) in the scratch directory.
run_in_scratch() {
  echo "running in $scratch: $1"
  (cd "$scratch" && eval "$1") >"$scratch.stdout" 2>"$scratch.stderr"
  local status=$?
  [ $status -eq 0 ] || { cat "$scratch.stdout" "$scratch.stderr" >&2; fail "exit status $status of: $1"; }
}
# Compares the shape of log $1 with README's example block after line $2.
compare_with_readme() {
  local log=$1 after=$2 opencl=$3
  plain_block_after "$after" >"$scratch.readme_log"
  [ -s "$scratch.readme_log" ] || fail "README.md shows no example log after line $after"
  shape "$scratch.readme_log" "$opencl" >"$scratch.readme_shape"
  shape "$log" "$opencl" >"$scratch.actual_shape"
  if ! diff -u "$scratch.readme_shape" "$scratch.actual_shape" >"$scratch.diff"; then
    cat "$scratch.diff" >&2
    fail "the shape of $log differs from README.md's example (- README, + this run)"
  fi
  echo "$log: the shape of README.md's example: $(grep -c '^record: ' "$scratch.actual_shape") records," \
       "$(grep -c '^#' "$scratch.actual_shape") header lines"
}

rm -rf "$scratch" && mkdir -p "$scratch" || fail "cannot make $scratch"
case "$mode" in
cuda)
  found=$(code_line '^LD_LIBRARY_PATH=build/simdriver build/tools/computeprof .*-o [^ ]+ .*-- build/samples/vector_add$')
  [ -n "$found" ] || fail "README.md has no 'LD_LIBRARY_PATH=build/simdriver build/tools/computeprof -o LOG -- build/samples/vector_add' line"
  at=${found%%:*} command=${found#*:}
  log=$(sed -E 's/.* -o ([^ ]+) .*/\1/' <<<"$command")
  run_in_scratch "$(localize "$command")"
  [ -f "$scratch/$log" ] || fail "no $log written"
  grep -qx "computeprof: log written to $scratch/$log" "$scratch.stderr" ||
    fail "stderr does not say 'computeprof: log written to .../$log': $(cat "$scratch.stderr")"
  [ "$(grep -c 'CUPTI activity tracing unavailable' "$scratch.stderr")" = 1 ] ||
    fail "stderr does not have one line saying that CUPTI cannot trace: $(cat "$scratch.stderr")"
  compare_with_readme "$scratch/$log" "$at" 0
  ;;
opencl)
  found=$(code_line '^build/tools/computeprof .*-o [^ ]+ .*-- build/samples/opencl_vector_add$')
  [ -n "$found" ] || fail "README.md has no 'build/tools/computeprof -o LOG -- build/samples/opencl_vector_add' line"
  # As tests/opencl: the OpenCL samples exist when CMake found OpenCL; they run where an
  # OpenCL platform is installed. README.md's example is PoCL's.
  [ -x "$build/samples/opencl_vector_add" ] || skip "no OpenCL samples in $build (OpenCL not found by CMake)"
  vendors=${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}
  grep -qsil pocl "$vendors" "$vendors"/*.icd 2>/dev/null || skip "PoCL is not installed (no pocl ICD in $vendors)"
  at=${found%%:*} command=${found#*:}
  log=$(sed -E 's/.* -o ([^ ]+) .*/\1/' <<<"$command")
  # PoCL's kernel cache kept between runs; one worker thread, as tests/opencl (ctest -j2).
  export POCL_CACHE_DIR="$scratch.pocl-cache" POCL_MAX_PTHREAD_COUNT=1
  run_in_scratch "$(localize "$command")"
  [ -f "$scratch/$log" ] || fail "no $log written"
  compare_with_readme "$scratch/$log" "$at" 1
  ;;
beyond)
  found=$(code_line '^LD_LIBRARY_PATH=build/simdriver build/tools/computeprof --export ')
  [ -n "$found" ] || fail "README.md has no 'LD_LIBRARY_PATH=build/simdriver build/tools/computeprof --export ...' line"
  at=${found%%:*} command=${found#*:}
  while [[ $command == *'\' ]]; do  # continuation lines
    at=$((at + 1))
    command="${command%\\} $(sed -n "${at}p" "$readme" | sed -E 's/^ +//')"
  done
  found=$(code_line '^build/tools/computeprof stats [^ ]+$')
  [ -n "$found" ] || fail "README.md has no 'build/tools/computeprof stats FILE' line"
  stats_at=${found%%:*} stats_command=${found#*:}
  # The prose between the commands and the table: "The first command writes `...`".
  files=$(awk -v from="$stats_at" 'NR > from + 1 && /^```/ { exit } NR > from + 1' "$readme" |
          tr '\n' ' ' | sed -E 's/.*[Tt]he first command writes//; s/prints.*//' |
          grep -oE '`compute_profile[^`]*`' | tr -d '`' | sort -u)
  [ -n "$files" ] || fail "README.md's paragraph after the stats command names no file written"

  run_in_scratch "$(localize "$command")"
  cp "$scratch.stderr" "$scratch.run_stderr"
  for file in $files; do
    [ -s "$scratch/$file" ] || fail "README.md says $file is written; it is not (or empty): $(ls "$scratch")"
  done
  echo "written, as README.md says: $(echo $files)"
  # "the copies and the one vecAdd launch; the spin kernel is not chosen"
  methods=$(sed -nE 's/^method=\[ ([^ ]*) \].*/\1/p' "$scratch/compute_profile.log" | tr '\n' ' ')
  [ "$methods" = "memcpyHtoD memcpyHtoD _Z6vecAddPKfS0_Pfi memcpyDtoH " ] ||
    fail "compute_profile.log's records are '$methods', not the copies and the one vecAdd launch"

  run_in_scratch "$(localize "$stats_command")"
  table_rows() {  # the Name column of the GPU activities' and API calls' rows
    sed -nE 's/^( GPU activities:|      API calls:|        +) +[0-9.]+% +[0-9.]+[a-z]+ +[0-9]+ +[0-9.]+[a-z]+ +[0-9.]+[a-z]+ +[0-9.]+[a-z]+  (.*)$/\2/p' "$1" | sort
  }
  plain_block_after "$stats_at" >"$scratch.readme_table"
  grep -qx 'Profiling result:' "$scratch.readme_table" || fail "README.md shows no table after the stats command"
  grep -qx 'Profiling result:' "$scratch.stdout" || fail "stats printed no table: $(cat "$scratch.stdout" "$scratch.stderr")"
  table_rows "$scratch.readme_table" >"$scratch.readme_rows"
  table_rows "$scratch.stdout" >"$scratch.rows"
  [ -s "$scratch.readme_rows" ] || fail "no rows found in README.md's table"
  if ! diff -u "$scratch.readme_rows" "$scratch.rows" >&2; then
    fail "the rows of 'computeprof stats' differ from README.md's table (- README, + this run)"
  fi
  [ "$(wc -l <"$scratch.rows")" = "$(grep -cE '^( GPU activities:|      API calls:|        +) +[0-9.]+%' "$scratch.stdout")" ] ||
    fail "stats printed rows this check cannot read: $(cat "$scratch.stdout")"
  # "prints nvprof's table at exit; the second prints the same table from the database"
  sed -nE '/^==[0-9]+== Profiling result:$/,/^[^ ]/p' "$scratch.run_stderr" | sed -E 's/^==[0-9]+== //' |
    grep -E '^(Profiling result:| )' >"$scratch.exit_table"
  diff -u "$scratch.exit_table" "$scratch.stdout" >&2 ||
    fail "the table printed at exit and the one 'computeprof stats' prints differ"
  echo "stats rows, as README.md's table: $(tr '\n' ';' <"$scratch.rows")"
  ;;
*) fail "unknown mode (cuda, opencl or beyond)" ;;
esac
echo "check_readme_commands ($mode): passed"
