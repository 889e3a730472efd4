// The seeds of log_reader_fuzzer and database_reader_fuzzer, written into the directory
// given: a key-value log, a CSV log with a quoted name over two lines, and an `export
// sqlite` database with kernels, copies, memsets and NVTX ranges (docs/format.md,
// "SQLite database").
#include <sqlite3.h>

#include <cstdio>
#include <fstream>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  std::ofstream(dir + "/keyvalue.log") << "# CUDA_PROFILE_LOG_VERSION 2.0\n# CUDA_DEVICE 0 NVIDIA H100\n"
                                          "# CUDA_CONTEXT 1\nmethod,gputime,cputime,occupancy\n"
                                          "method=[ _Z4spiny ] gputime=[ 30000.000 ] cputime=[ 30012.500 ] "
                                          "occupancy=[ 1.000 ] \n"
                                          "method=[ memcpyHtoD ] gputime=[ 4.350 ] cputime=[ 9.000 ] \n";
  std::ofstream(dir + "/csv.log") << "# CUDA_PROFILE_LOG_VERSION 2.0\n# CUDA_PROFILE_CSV 1\nmethod,gputime,cputime\n"
                                     "_Z4spiny,20000.000,20010.000\n\"a \"\"quoted\"\",\nname\",3.000,4.000\n"
                                     "graphLaunch,1000.000,1001.000\n";
  const std::string path = dir + "/export.sqlite";
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return 1;
  const int status = sqlite3_exec(
      db,
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, mangledName INTEGER, "
      "correlationId INTEGER);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, copyKind INTEGER, correlationId INTEGER);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER, end INTEGER, correlationId INTEGER);"
      "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT, domainId INTEGER);"
      "CREATE TABLE COMPUTEPROF_NVTX_RANGES (correlationId INTEGER, pathId INTEGER);"
      "INSERT INTO StringIds VALUES (1, '_Z4spiny'), (2, 'step/forward');"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 30001000, 1, 1), (40000000, 60000000, 1, 2);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (30002000, 30006350, 1, 3);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (30007000, 30007992, 4);"
      "INSERT INTO NVTX_EVENTS VALUES (0, 70000000, 59, 'step', NULL), (500, 60000000, 59, 'forward', NULL);"
      "INSERT INTO COMPUTEPROF_NVTX_RANGES VALUES (1, 2), (2, 2);",
      nullptr, nullptr, nullptr);
  sqlite3_close(db);
  return status == SQLITE_OK ? 0 : 1;
}
