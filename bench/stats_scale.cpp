// How `computeprof stats --ranks` scales with the number of files: writes N files of M
// records each, one per rank (key-value logs, CSV logs and databases of `export sqlite`
// in turn, the default columns), then times the command on all of them and reports its
// wall time and peak resident memory (getrusage of the child).
//
//   stats_scale [--files N] [--records M] [--dir DIR] [--keep]
//
// DIR (default: a new directory under /tmp) is removed afterwards unless --keep. Rank
// 1 runs every kernel 1.5 times as long, so that the command has a straggler to find.
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

constexpr const char* kKernels[] = {"_Z4spiny", "_Z6vecAddPKfS0_Pfi", "_Z5scaleIfLi3EEvPfi", "_Z7reducePfS_i",
                                    "_Z9transposePfPKfii", "_Z4gemmPKfS0_Pfiii", "_Z7softmaxPfi", "_Z6layernormPfi"};
constexpr std::size_t kKernelCount = sizeof kKernels / sizeof kKernels[0];

// Record i of rank r: a kernel and its gputime in ns, every tenth a copy.
struct Operation {
  const char* method;
  std::uint64_t ns;
};
Operation operation(std::size_t rank, std::size_t i) {
  const std::uint64_t base = 1000 + 37 * (i % 101);
  const std::uint64_t ns = rank == 1 ? base * 3 / 2 : base;
  if (i % 10 == 9) return {"memcpyHtoD", ns};
  return {kKernels[i % kKernelCount], ns};
}

void write_log(const std::string& path, std::size_t rank, std::size_t records, bool csv) {
  std::ofstream out(path, std::ios::binary);
  out << "# CUDA_PROFILE_LOG_VERSION 2.0\n# CUDA_DEVICE 0 NVIDIA H100 80GB HBM3\n# CUDA_CONTEXT 1\n";
  if (csv) out << "# CUDA_PROFILE_CSV 1\n";
  out << "method,gputime,cputime,occupancy\n";
  char line[256];
  for (std::size_t i = 0; i < records; ++i) {
    const Operation op = operation(rank, i);
    const unsigned long long us = op.ns / 1000;
    const unsigned long long frac = op.ns % 1000;
    const int n = csv ? std::snprintf(line, sizeof line, "%s,%llu.%03llu,%llu.%03llu,1.000\n", op.method, us, frac,
                                      us + 5, frac)
                      : std::snprintf(line, sizeof line,
                                      "method=[ %s ] gputime=[ %llu.%03llu ] cputime=[ %llu.%03llu ] occupancy=[ 1.000 ] \n",
                                      op.method, us, frac, us + 5, frac);
    out.write(line, n);
  }
}

void check(int status, sqlite3* db, const char* what) {
  if (status == SQLITE_OK || status == SQLITE_DONE) return;
  std::fprintf(stderr, "stats_scale: %s: %s\n", what, sqlite3_errmsg(db));
  std::exit(1);
}

void write_database(const std::string& path, std::size_t rank, std::size_t records) {
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  check(sqlite3_open(path.c_str(), &db), db, "open");
  check(sqlite3_exec(db,
                     "PRAGMA synchronous=OFF; BEGIN;"
                     "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
                     "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, "
                     "mangledName INTEGER);"
                     "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, "
                     "copyKind INTEGER NOT NULL);"
                     "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL);",
                     nullptr, nullptr, nullptr),
        db, "schema");
  sqlite3_stmt* name = nullptr;
  sqlite3_stmt* kernel = nullptr;
  sqlite3_stmt* copy = nullptr;
  check(sqlite3_prepare_v2(db, "INSERT INTO StringIds VALUES (?, ?)", -1, &name, nullptr), db, "prepare");
  check(sqlite3_prepare_v2(db, "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, ?)", -1, &kernel, nullptr), db,
        "prepare");
  check(sqlite3_prepare_v2(db, "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 1)", -1, &copy, nullptr), db,
        "prepare");
  for (std::size_t k = 0; k < kKernelCount; ++k) {
    sqlite3_bind_int64(name, 1, static_cast<sqlite3_int64>(k + 1));
    sqlite3_bind_text(name, 2, kKernels[k], -1, SQLITE_STATIC);
    check(sqlite3_step(name), db, "insert");
    sqlite3_reset(name);
  }
  sqlite3_int64 start = 0;
  for (std::size_t i = 0; i < records; ++i) {
    const Operation op = operation(rank, i);
    sqlite3_stmt* row = std::strcmp(op.method, "memcpyHtoD") == 0 ? copy : kernel;
    sqlite3_bind_int64(row, 1, start);
    sqlite3_bind_int64(row, 2, start + static_cast<sqlite3_int64>(op.ns));
    if (row == kernel) sqlite3_bind_int64(row, 3, static_cast<sqlite3_int64>(i % kKernelCount + 1));
    check(sqlite3_step(row), db, "insert");
    sqlite3_reset(row);
    start += static_cast<sqlite3_int64>(op.ns) + 100;
  }
  sqlite3_finalize(name);
  sqlite3_finalize(kernel);
  sqlite3_finalize(copy);
  check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), db, "commit");
  sqlite3_close(db);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t files = 100;
  std::size_t records = 100'000;
  std::string dir;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--files" && i + 1 < argc) {
      files = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--records" && i + 1 < argc) {
      records = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (arg == "--keep") {
      keep = true;
    } else {
      std::fprintf(stderr, "usage: stats_scale [--files N] [--records M] [--dir DIR] [--keep]\n");
      return 2;
    }
  }
  if (dir.empty()) {
    char pattern[] = "/tmp/stats_scale.XXXXXX";
    if (mkdtemp(pattern) == nullptr) {
      std::perror("stats_scale: mkdtemp");
      return 1;
    }
    dir = pattern;
  }
  std::filesystem::create_directories(dir);

  const auto written_start = std::chrono::steady_clock::now();
  std::vector<std::string> paths;
  std::uintmax_t bytes = 0;
  for (std::size_t rank = 0; rank < files; ++rank) {
    static constexpr const char* kExtensions[] = {".log", ".csv", ".sqlite"};
    const std::string path = dir + "/rank_" + std::to_string(rank) + kExtensions[rank % 3];
    if (rank % 3 == 2) {
      write_database(path, rank, records);
    } else {
      write_log(path, rank, records, rank % 3 == 1);
    }
    bytes += std::filesystem::file_size(path);
    paths.push_back(path);
  }
  const double written_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - written_start).count();
  std::printf("wrote %zu files of %zu records (%.1f MB) in %.1f s\n", files, records, static_cast<double>(bytes) / 1e6,
              written_s);

  std::vector<char*> args{const_cast<char*>(COMPUTEPROF_CLI_PATH), const_cast<char*>("stats"),
                          const_cast<char*>("--ranks"), const_cast<char*>("--format"), const_cast<char*>("csv")};
  for (std::string& path : paths) args.push_back(path.data());
  args.push_back(nullptr);
  std::fflush(stdout);  // not printed again by the child
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child == 0) {
    if (std::freopen("/dev/null", "w", stdout) == nullptr) _exit(127);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (child < 0 || wait4(child, &status, 0, &usage) != child) {
    std::perror("stats_scale: running computeprof");
    return 1;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("stats --ranks: exit status %d, %.2f s wall, %.2f s user, %.2f s system, peak RSS %.1f MB\n",
              WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), seconds,
              static_cast<double>(usage.ru_utime.tv_sec) + static_cast<double>(usage.ru_utime.tv_usec) / 1e6,
              static_cast<double>(usage.ru_stime.tv_sec) + static_cast<double>(usage.ru_stime.tv_usec) / 1e6,
              static_cast<double>(usage.ru_maxrss) / 1024.0);
  std::printf("%.1f million records per second\n", static_cast<double>(files * records) / seconds / 1e6);
  if (!keep) std::filesystem::remove_all(dir);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
