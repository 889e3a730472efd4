#include "catch.hpp"

#include <string>

#include "config/profile_config.hpp"
#include "logfmt/columns.hpp"
#include "warning_capture.hpp"

using namespace computeprof;
using namespace computeprof::records;
using namespace computeprof::logfmt;

namespace {

std::string columns_for(std::string_view config_text, config::Api api = config::Api::cuda) {
  test::WarningCapture warnings;
  auto cfg = config::parse_profile_config(config_text, "cfg");
  REQUIRE(warnings.lines().empty());
  return column_line(select_columns(cfg, api));
}

}  // namespace

TEST_CASE("default columns", "[columns]") {
  CHECK(columns_for("") == "method,gputime,cputime,occupancy");
  CHECK(columns_for("", config::Api::opencl) == "method,gputime,cputime,occupancy");
}

TEST_CASE("each option adds exactly its columns", "[columns]") {
  struct Row {
    const char* option;
    const char* cuda;
  };
  const Row rows[] = {
      {"timestamp", "timestamp,method,gputime,cputime,occupancy"},
      {"gpustarttimestamp", "gpustarttimestamp,method,gputime,cputime,occupancy"},
      {"gpuendtimestamp", "gpuendtimestamp,method,gputime,cputime,occupancy"},
      {"gridsize", "method,gputime,cputime,gridsizeX,gridsizeY,occupancy"},
      {"gridsize3d", "method,gputime,cputime,gridsizeX,gridsizeY,gridsizeZ,occupancy"},
      {"threadblocksize", "method,gputime,cputime,threadblocksizeX,threadblocksizeY,threadblocksizeZ,occupancy"},
      {"dynsmemperblock", "method,gputime,cputime,dynsmemperblock,occupancy"},
      {"stasmemperblock", "method,gputime,cputime,stasmemperblock,occupancy"},
      {"regperthread", "method,gputime,cputime,regperthread,occupancy"},
      {"streamid", "method,gputime,cputime,occupancy,streamid"},
      {"cacheconfigexecuted", "method,gputime,cputime,occupancy,cacheconfigexecuted"},
      {"cacheconfigrequested", "method,gputime,cputime,occupancy,cacheconfigrequested"},
      {"memtransfersize", "method,gputime,cputime,occupancy,memtransfersize"},
      {"memtransferdir", "method,gputime,cputime,occupancy,memtransferdir"},
      {"memtransferhostmemtype", "method,gputime,cputime,occupancy,memtransferhostmemtype"},
      {"inst_executed", "method,gputime,cputime,occupancy,inst_executed"},
      // Options that change behaviour, not columns.
      {"countermodeaggregate", "method,gputime,cputime,occupancy"},
      {"conckerneltrace", "method,gputime,cputime,occupancy"},
      {"enableonstart 0", "method,gputime,cputime,occupancy"},
      {"profilelogformat CSV", "method,gputime,cputime,occupancy"},
      // localblocksize is an OpenCL column only.
      {"localblocksize", "method,gputime,cputime,occupancy"},
  };
  for (const Row& row : rows) {
    INFO(row.option);
    CHECK(columns_for(row.option) == row.cuda);
  }
}

TEST_CASE("column order is fixed whatever the order in the config file", "[columns]") {
  const std::string expected =
      "gpustarttimestamp,gpuendtimestamp,timestamp,method,gputime,cputime,gridsizeX,gridsizeY,gridsizeZ,"
      "threadblocksizeX,threadblocksizeY,threadblocksizeZ,dynsmemperblock,stasmemperblock,regperthread,"
      "occupancy,streamid,cacheconfigexecuted,cacheconfigrequested,gld_request,inst_executed,active_warps,"
      "memtransfersize,memtransferdir,memtransferhostmemtype";
  CHECK(columns_for("memtransferhostmemtype\nmemtransferdir\nmemtransfersize\nactive_warps\ninst_executed\n"
                    "gld_request\ncacheconfigrequested\ncacheconfigexecuted\nstreamid\nregperthread\n"
                    "stasmemperblock\ndynsmemperblock\nthreadblocksize\ngridsize3d\ntimestamp\ngpuendtimestamp\n"
                    "gpustarttimestamp\n") == expected);
  CHECK(columns_for("gpustarttimestamp\ngpuendtimestamp\ntimestamp\ngridsize3d\nthreadblocksize\n"
                    "dynsmemperblock\nstasmemperblock\nregperthread\nstreamid\ncacheconfigexecuted\n"
                    "cacheconfigrequested\ninst_executed\nactive_warps\ngld_request\nmemtransfersize\n"
                    "memtransferdir\nmemtransferhostmemtype\n") == expected);
}

TEST_CASE("OpenCL logs use the OpenCL spellings", "[columns]") {
  CHECK(columns_for("gridsize3d\nthreadblocksize\nlocalblocksize\nstasmemperblock\nregperthread\n",
                    config::Api::opencl) ==
        "method,gputime,cputime,ndrangesizeX,ndrangesizeY,ndrangesizeZ,workgroupsizeX,workgroupsizeY,"
        "workgroupsizeZ,localblocksize,stapmemperworkgroup,regperworkitem,occupancy");
  CHECK(columns_for("ndrangesize\nworkgroupsize\n", config::Api::cuda) ==
        "method,gputime,cputime,gridsizeX,gridsizeY,threadblocksizeX,threadblocksizeY,threadblocksizeZ,occupancy");
}

TEST_CASE("counters follow docs/counters.md order", "[columns]") {
  CHECK(columns_for("prof_trigger_00\nlocal_load\ngst_128b\nbranch\n") ==
        "method,gputime,cputime,occupancy,local_load,branch,gst_128b,prof_trigger_00");
}

TEST_CASE("no column name is longer than the writers' room for it", "[columns]") {
  for (auto api : {config::Api::cuda, config::Api::opencl}) {
    for (int c = 0; c <= static_cast<int>(Column::callstackid); ++c) {
      const auto column = static_cast<Column>(c);
      if (column == Column::counter) continue;
      CHECK(column_name({column}, api).size() <= kMaxColumnName);
    }
    for (std::size_t id = 0; id < config::kLegacyCounterCount; ++id) {
      CHECK(column_name({Column::counter, static_cast<std::uint8_t>(id)}, api).size() <= kMaxColumnName);
    }
  }
}
