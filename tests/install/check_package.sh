#!/usr/bin/env bash
# The .deb cpack makes of the build tree: its exact file list, its control fields,
# stripped binaries, and the extracted command running with the extracted library
# (found relative to itself, as an install finds it); the bash completion; the
# uninstall script removing exactly what was installed.
# Usage: check_package.sh BUILD_DIR SCRATCH_DIR SOURCE_DIR VERSION BINDIR LIBDIR LIBEXECDIR
# (CMAKE_INSTALL_BINDIR, _LIBDIR and _LIBEXECDIR, relative to the package's /usr)
set -euo pipefail
build=$1 scratch=$2 source=$3 version=$4 bindir=$5 libdir=$6 libexecdir=$7
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$scratch"
mkdir -p "$scratch"
# cpack runs the install scripts, which rewrite build/install_manifest.txt with the
# package's paths; keep the user's (`make uninstall` reads it).
manifest=$build/install_manifest.txt
if [[ -e $manifest ]]; then cp -p "$manifest" "$scratch/user_manifest.txt"; fi
restore() {
  if [[ -e $scratch/user_manifest.txt ]]; then
    cp -p "$scratch/user_manifest.txt" "$manifest"
  else
    rm -f "$manifest"
  fi
}
trap restore EXIT
(cd "$scratch" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$scratch" >cpack.log 2>&1) ||
  { cat "$scratch/cpack.log" >&2; fail "cpack failed"; }
cp "$manifest" "$scratch/package_manifest.txt"
restore
trap - EXIT

shopt -s nullglob
packages=("$scratch"/computeprof_"$version"_*.deb)
((${#packages[@]} == 1)) || fail "expected one computeprof_${version}_<arch>.deb in $scratch, found ${#packages[*]}"
deb=${packages[0]}

# Files and links (directories are lines ending in /; a link's line ends "-> target").
actual=$(dpkg-deb -c "$deb" | awk '{print $6}' | grep -v '/$' | sort)
expected=$(sort <<LIST
./usr/$bindir/computeprof
./usr/$libexecdir/computeprof/nvprof
./usr/$libdir/libcomputeprof.so
./usr/$libdir/libcomputeprof_re2.so
./usr/share/bash-completion/completions/computeprof
./usr/share/doc/computeprof/LICENSE
./usr/share/man/man1/computeprof.1
./usr/share/man/man5/computeprof.conf.5
LIST
)
[[ $actual == "$expected" ]] || fail "package files differ:"$'\n'"$(diff <(echo "$expected") <(echo "$actual"))"

[[ $(dpkg-deb -f "$deb" Package) == computeprof ]] || fail "Package is not computeprof"
[[ $(dpkg-deb -f "$deb" Version) == "$version" ]] || fail "Version is not $version"
[[ -n $(dpkg-deb -f "$deb" Maintainer) ]] || fail "no Maintainer"
depends=$(dpkg-deb -f "$deb" Depends)
for dependency in libc6 libsqlite3-0 libre2-9; do
  [[ $depends =~ (^|, )$dependency( |,|$) ]] || fail "Depends ($depends) lacks $dependency"
done
[[ ! $depends =~ (libcuda|libcupti|libOpenCL|libunwind|libdw) ]] || fail "Depends ($depends) names a library loaded at run time"
# What call stacks load when asked for: recommended, so that apt installs them by default.
[[ $(dpkg-deb -f "$deb" Recommends) == "libunwind8, libdw1" ]] || fail "Recommends is not 'libunwind8, libdw1'"

root=$scratch/root
dpkg-deb -x "$deb" "$root"
for binary in "$root/usr/$bindir/computeprof" "$root/usr/$libdir/libcomputeprof.so"; do
  if readelf -S --wide "$binary" | grep -Eq '\.(symtab|debug_info)\b'; then
    fail "$binary is not stripped"
  fi
done
cmp -s "$root/usr/share/doc/computeprof/LICENSE" "$source/LICENSE" || fail "LICENSE differs"

# The extracted command, with no variable pointing it anywhere.
unset COMPUTEPROF_LIBRARY COMPUTE_PROFILE COMPUTE_PROFILE_LOG COMPUTE_PROFILE_CONFIG COMPUTE_PROFILE_CSV
command=$root/usr/$bindir/computeprof
[[ $("$command" --version) == "computeprof $version" ]] || fail "--version: $("$command" --version)"
# Read whole, not with grep -q: under pipefail, grep's early exit would kill the command
# with SIGPIPE and fail the pipe.
"$command" --help | grep '^Usage: computeprof' >/dev/null || fail "--help prints no usage"
output=$(cd "$scratch" && "$command" /bin/sh -c 'echo "preload=$LD_PRELOAD"' 2>&1) || fail "run failed: $output"
[[ $output == *"preload=$root/usr/$libdir/libcomputeprof.so"* ]] || fail "the extracted library was not preloaded: $output"
[[ $output == *"no log written"* ]] || fail "no 'no log written' line: $output"
[[ $output != *"cannot find libcomputeprof.so"* ]] || fail "$output"
# nvprof's name, outside PATH: the same command, in nvprof's mode.
nvprof=$root/usr/$libexecdir/computeprof/nvprof
[[ -L $nvprof && $(readlink -f "$nvprof") == "$(readlink -f "$command")" ]] || fail "$nvprof is not a link to $command"
output=$(cd "$scratch" && "$nvprof" /bin/true 2>&1) || fail "nvprof run failed: $output"
[[ $output == "=="*"== NVPROF is profiling process "*", command: /bin/true"$'\n'"=="*"== Profiling application: /bin/true"$'\n'"=="*"== Warning: No profile data collected." ]] ||
  fail "nvprof run: $output"

# Man pages: groff's warnings are errors (only where groff is installed).
if command -v groff >/dev/null; then
  for page in "$root"/usr/share/man/man*/*; do
    warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
    [[ -z $warnings ]] || fail "$page: $warnings"
  done
fi

# The completion, without the bash-completion package's helpers.
completion=$root/usr/share/bash-completion/completions/computeprof
complete_words() {
  bash -c 'complete() { :; }; compopt() { :; }; source "$1"; shift
           COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _computeprof; echo "${COMPREPLY[*]}"' _ "$completion" "$@"
}
[[ $(complete_words computeprof --export '') == "json json.gz pftrace sqlite nvprof cprof json,sqlite json,sqlite,nvprof" ]] || fail "completion of --export"
[[ $(complete_words computeprof --kernel-filter-scope '') == "counters all" ]] || fail "completion of --kernel-filter-scope"
[[ $(complete_words computeprof --chip G) == "GH100 GA100 GB100" ]] || fail "completion of --chip"
[[ $(complete_words computeprof --export = j) == "json json.gz json,sqlite json,sqlite,nvprof" ]] || fail "completion of --export=j"
[[ $(complete_words computeprof --out) == "--output" ]] || fail "completion of options"
[[ $(complete_words computeprof export run.cprof --to '') == "json json.gz pftrace sqlite nvprof json,sqlite json.gz,sqlite,nvprof" ]] ||
  fail "completion of export --to"
[[ $(complete_words computeprof export run.cprof --f) == "--force" ]] || fail "completion of export's options"
[[ $(complete_words computeprof -o "$root/usr/share/doc/computeprof/LI") == "$root/usr/share/doc/computeprof/LICENSE" ]] ||
  fail "completion of -o"

# Uninstalling (cmake/uninstall.cmake, the `uninstall` target's script) with the manifest
# of the package's install removes every file the package holds.
DESTDIR=$root cmake -DMANIFEST="$scratch/package_manifest.txt" -P "$source/cmake/uninstall.cmake" >/dev/null
left=$(find "$root" -type f)
[[ -z $left ]] || fail "uninstall left: $left"
echo "package $deb: checked"
