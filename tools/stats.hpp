#pragma once
// `computeprof stats`: nvprof's table of GPU activities (docs/format.md, "Summary") from
// classic logs and databases of `export sqlite`, every file added into one table; with
// --ranks the files as the ranks of one distributed job, compared with each other; with
// --compare two sets of files, the second against the first (docs/format.md, "Stats
// output").
#include <cstdio>
#include <string>
#include <vector>

#include "reports/report_table.hpp"

namespace computeprof::tools {

struct StatsOptions {
  enum class Mode { summary, ranks, compare };
  Mode mode = Mode::summary;
  reports::TableFormat format = reports::TableFormat::text;
  double straggler_percent = 10;    // --straggler
  double max_regress_percent = 10;  // --max-regress
  std::vector<std::string> files;      // compare: BASE
  std::vector<std::string> new_files;  // compare: NEW

  bool operator==(const StatsOptions&) const = default;
};

// Prints the tables of `options` to `out`, without the "==<pid>== " prefix the shim's
// table has (a table of many files is no one process's). A file is a database when it
// starts as SQLite's do, else a log. A file that cannot be read is one warning with the
// file and the line of a log (the table of a database); every file is still read, so
// that all problems are told at once. Returns the exit status:
// - summary: 0, or 1 when a file cannot be read, and then no table is printed, since it
//   would leave that file's operations out;
// - ranks: 0, or 1 when a file cannot be read (the tables of the others are printed);
// - compare: 0, 1 when a kernel regressed, 2 when a file cannot be read (the table of
//   the others is printed);
// and 1 when the tables cannot be written.
int print_stats(const StatsOptions& options, std::FILE* out);

}  // namespace computeprof::tools
