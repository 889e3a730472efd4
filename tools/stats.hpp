#pragma once
// `computeprof stats FILE...`: nvprof's table of GPU activities (docs/format.md,
// "Summary") from classic logs and databases of `export sqlite`, every file added into
// one table (the logs of every rank of an MPI job, say).
#include <cstdio>
#include <span>
#include <string>

namespace computeprof::tools {

// Prints the table of every operation in `paths` to `out`, without the "==<pid>== "
// prefix the shim's table has (a table of many files is no one process's). A file is
// a database when it starts as SQLite's do, else a log. Returns the exit status: 0, or
// 1 when a file cannot be read (one warning each, with the file and, for a log, the
// line; every file is still read, so that all problems are told at once) and then no
// table is printed, since it would leave that file's operations out.
int print_stats(std::span<const std::string> paths, std::FILE* out);

}  // namespace computeprof::tools
