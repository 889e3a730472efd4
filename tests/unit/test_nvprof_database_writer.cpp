// The nvprof database's write-throughs (docs/format.md, "Exports"): a small batch waits
// for a flush point (or its age), and `exportlimit` stops the database at a commit.
#include <sys/stat.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "catch.hpp"
#include "export_test_support.hpp"
#include "config/report.hpp"
#include "exports/nvprof_database_writer.hpp"
#include "exports/sqlite_library.hpp"

using namespace computeprof;
using namespace computeprof::exports;

namespace {

using test::collect;

// A table of the database (its kernels unless named) as another connection reads it.
std::string rows_in(const std::string& path, const std::string& table = "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL") {
  return test::rows_in(path, table);
}

// A new directory for the database.
std::string new_directory() {
  char name[] = "/tmp/computeprof-nvvp-XXXXXX";
  REQUIRE(mkdtemp(name));
  return name;
}

struct Database {
  std::string directory = new_directory();
  test::ExportRun run{directory + "/trace.log"};
  Database(std::uint64_t export_limit) { run.facts.export_limit = export_limit; }
  std::string path() const { return directory + "/trace.nvvp"; }
};

void write_kernels(NvprofDatabaseWriter& writer, std::uint64_t first, std::uint64_t last) {
  const records::ContextInfo context{1, 0, "gpu", config::Api::cuda, {}, {}};
  records::Record r;
  r.method = "_Z4spiny";
  r.api = "cuLaunchKernel";
  for (std::uint64_t i = first; i <= last; ++i) {
    r.correlation_id = i;
    writer.write(context, r);
  }
}

}  // namespace

TEST_CASE("export nvprof: a small batch is committed at a flush point, not at the end of every batch", "[exports]") {
  Database d(0);
  NvprofDatabaseWriter writer(d.run.facts, d.run);
  writer.begin();
  write_kernels(writer, 1, 3);
  writer.flush();
  CHECK(rows_in(d.path()) == "0");
  writer.checkpoint();
  CHECK(rows_in(d.path()) == "3");
  write_kernels(writer, 4, 5);
  writer.flush();
  CHECK(rows_in(d.path()) == "3");
  writer.end();
  CHECK(rows_in(d.path()) == "5");
}

TEST_CASE("exportlimit: the nvprof database takes no record after the first commit at or past the limit, one line "
          "counts them",
          "[exports]") {
  // nvprof's empty schema alone is larger than a page.
  Database d(4096);
  std::vector<std::string> warnings;
  config::set_warning_sink(collect, &warnings);
  {
    NvprofDatabaseWriter writer(d.run.facts, d.run);
    writer.begin();
    records::RangeEvent mark;
    write_kernels(writer, 1, 3);
    writer.write_range(mark);
    writer.flush();
    CHECK(warnings.empty());
    writer.checkpoint();
    write_kernels(writer, 4, 100);
    writer.write_range(mark);
    writer.end();
  }
  config::set_warning_sink(nullptr, nullptr);
  struct stat st{};
  REQUIRE(::stat(d.path().c_str(), &st) == 0);
  CHECK(st.st_size >= 4096);
  CHECK(rows_in(d.path()) == "3");
  // NVTX rows stop with the records: the mark before the limit only.
  CHECK(rows_in(d.path(), "CUPTI_ACTIVITY_KIND_MARKER") == "1");
  CHECK(warnings == std::vector<std::string>{"export nvprof '" + d.path() +
                                             "' stopped at the export limit of 4096 bytes: 97 records left out of it"});
}
