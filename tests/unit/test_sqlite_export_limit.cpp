// `exportlimit` on the nsys-shaped database (docs/format.md, "Exports"): it takes no
// record after the first commit that leaves its file at or past the limit, its NVTX rows
// stop with its records, and one line counts what it left out.
#include <sys/stat.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "catch.hpp"
#include "export_test_support.hpp"
#include "config/report.hpp"
#include "exports/sqlite_export_writer.hpp"
#include "exports/sqlite_library.hpp"

using namespace computeprof;
using namespace computeprof::exports;

namespace {

using test::collect;
using test::rows_in;

void write_kernels(SqliteExportWriter& writer, std::uint64_t first, std::uint64_t last) {
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

TEST_CASE("exportlimit: the SQLite database takes no record after the first commit at or past the limit, one line "
          "counts them",
          "[exports]") {
  char name[] = "/tmp/computeprof-sqlitelimit-XXXXXX";
  REQUIRE(mkdtemp(name));
  test::ExportRun run(std::string(name) + "/trace.log");
  // The nsys-shaped empty schema alone is larger than a page.
  run.facts.export_limit = 4096;
  const std::string path = std::string(name) + "/trace.sqlite";
  std::vector<std::string> warnings;
  config::set_warning_sink(collect, &warnings);
  {
    SqliteExportWriter writer(run.facts, run);
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
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK(st.st_size >= 4096);
  CHECK(rows_in(path, "CUPTI_ACTIVITY_KIND_KERNEL") == "3");
  CHECK(rows_in(path, "CUPTI_ACTIVITY_KIND_RUNTIME") == "3");
  // NVTX rows stop with the records: the mark before the limit only.
  CHECK(rows_in(path, "NVTX_EVENTS") == "1");
  CHECK(warnings == std::vector<std::string>{"export sqlite '" + path +
                                             "' stopped at the export limit of 4096 bytes: 97 records left out of it"});
}
