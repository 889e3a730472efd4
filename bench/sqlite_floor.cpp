// What SQLite itself costs for the nsys-shaped database's rows, without the export
// around it: each operation a CUPTI_ACTIVITY_KIND_KERNEL row and a
// CUPTI_ACTIVITY_KIND_RUNTIME row, only their times and correlation ids bound anew, 32
// rows a statement, a transaction every 8,192 rows, `synchronous=OFF` and
// `journal_mode=TRUNCATE`, as the export writes them (exports/sqlite_export_writer.cpp),
// into the tables of the export's own schema. The floor under the export's cost per
// operation: CPU ns a pair, the median of the rounds.
//
//   sqlite_floor [--operations N] [--rounds R]
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

#include "exports/sqlite_schema.hpp"

namespace {

constexpr int kRowsPerStatement = 32;
constexpr int kRowsPerTransaction = 8192;
constexpr int kKernelColumns = 28;
constexpr int kRuntimeColumns = 8;

double thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

void check(int rc, sqlite3* db, std::string_view what) {
  if (rc == SQLITE_OK || rc == SQLITE_DONE) return;
  std::fprintf(stderr, "sqlite_floor: %.*s: %s\n", static_cast<int>(what.size()), what.data(), sqlite3_errmsg(db));
  std::exit(1);
}

sqlite3_stmt* grouped_insert(sqlite3* db, const char* table, int columns) {
  std::string sql = std::string("INSERT INTO ") + table + " VALUES ";
  for (int row = 0; row < kRowsPerStatement; ++row) {
    sql += row == 0 ? "(" : ", (";
    for (int c = 0; c < columns; ++c) sql += c == 0 ? "?" : ", ?";
    sql += ")";
  }
  sqlite3_stmt* st = nullptr;
  check(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), db, sql);
  return st;
}

// CPU ns per operation (a kernel row and its runtime row) over `operations`.
double one_round(const std::string& path, long operations) {
  unlink(path.c_str());
  sqlite3* db = nullptr;
  check(sqlite3_open(path.c_str(), &db), db, path);
  check(sqlite3_exec(db, "PRAGMA synchronous=OFF; PRAGMA journal_mode=TRUNCATE", nullptr, nullptr, nullptr), db,
        "pragmas");
  check(sqlite3_exec(db, computeprof::exports::sqlite_schema().c_str(), nullptr, nullptr, nullptr), db, "schema");
  sqlite3_stmt* kernels = grouped_insert(db, "CUPTI_ACTIVITY_KIND_KERNEL", kKernelColumns);
  sqlite3_stmt* calls = grouped_insert(db, "CUPTI_ACTIVITY_KIND_RUNTIME", kRuntimeColumns);
  const double start = thread_cpu_ns();
  check(sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr), db, "BEGIN");
  constexpr std::int64_t kBase = 1'700'000'000'000'000'000;
  // Every value bound once; then, as the export does (SQLite keeps a statement's
  // bindings), only those that change from one operation to the next: the times and
  // the correlation id.
  for (int row = 0; row < kRowsPerStatement; ++row) {
    for (int c = 0; c < kKernelColumns; ++c) sqlite3_bind_int64(kernels, row * kKernelColumns + c + 1, c);
    for (int c = 0; c < kRuntimeColumns; ++c) sqlite3_bind_int64(calls, row * kRuntimeColumns + c + 1, c);
  }
  for (long op = 0; op < operations; op += kRowsPerStatement) {
    for (int row = 0; row < kRowsPerStatement; ++row) {
      const std::int64_t t = kBase + (op + row) * 1000;
      const std::int64_t correlation = op + row;
      const int kernel = row * kKernelColumns;
      sqlite3_bind_int64(kernels, kernel + 1, t);
      sqlite3_bind_int64(kernels, kernel + 2, t + 500);
      sqlite3_bind_int64(kernels, kernel + 7, correlation);  // correlationId
      const int call = row * kRuntimeColumns;
      sqlite3_bind_int64(calls, call + 1, t - 900);
      sqlite3_bind_int64(calls, call + 2, t - 500);
      sqlite3_bind_int64(calls, call + 5, correlation);  // correlationId
    }
    check(sqlite3_step(kernels), db, "kernel rows");
    sqlite3_reset(kernels);
    check(sqlite3_step(calls), db, "runtime rows");
    sqlite3_reset(calls);
    if ((op + kRowsPerStatement) % kRowsPerTransaction == 0) {
      check(sqlite3_exec(db, "COMMIT; BEGIN", nullptr, nullptr, nullptr), db, "COMMIT");
    }
  }
  check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), db, "COMMIT");
  const double cpu = thread_cpu_ns() - start;
  sqlite3_finalize(kernels);
  sqlite3_finalize(calls);
  sqlite3_close(db);
  unlink(path.c_str());
  return cpu / static_cast<double>(operations);
}

}  // namespace

int main(int argc, char** argv) {
  long operations = 200'000;
  int rounds = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--operations" && i + 1 < argc) {
      operations = std::atol(argv[++i]);
    } else if (a == "--rounds" && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--operations N] [--rounds R]\n", argv[0]);
      return 2;
    }
  }
  operations = std::max<long>(kRowsPerStatement, operations / kRowsPerStatement * kRowsPerStatement);
  char directory[] = "/tmp/sqlite-floor-XXXXXX";
  if (!mkdtemp(directory)) return 1;
  const std::string path = std::string(directory) + "/floor.sqlite";
  std::vector<double> ns;
  for (int r = 0; r < std::max(rounds, 1); ++r) ns.push_back(one_round(path, operations));
  rmdir(directory);
  std::sort(ns.begin(), ns.end());
  const double median = ns[ns.size() / 2];
  std::printf("SQLite %s, %ld operations x %zu rounds: a KERNEL row and a RUNTIME row, %d rows a statement, times "
              "and correlation ids bound\n  %.1f CPU ns an operation (median; %.1f to %.1f), %.2f M operations a second on one core\n",
              sqlite3_libversion(), operations, ns.size(), kRowsPerStatement, median, ns.front(), ns.back(),
              1e3 / median);
  return 0;
}
