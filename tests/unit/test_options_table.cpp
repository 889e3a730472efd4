// config/options.def: each line of the table is an option the config file accepts in
// both spellings and, for an option with a column, the column of its name in logs of
// both kinds, written by the record writer.
#include "catch.hpp"

#include <array>
#include <string>
#include <string_view>

#include "config/profile_config.hpp"
#include "logfmt/columns.hpp"
#include "logfmt/record_writer.hpp"
#include "warning_capture.hpp"
#include "written_log.hpp"

using namespace computeprof;

namespace {

struct TableColumnOption {
  std::string_view name;
  std::string_view opencl;
  config::Option option;
  logfmt::Column column;
};

constexpr TableColumnOption kColumnOptions[] = {
#define OPTION_COLUMN(option, opencl, ...) \
  {#option, #opencl, config::Option::option, logfmt::Column::option},
#include "config/options.def"
};

config::ProfileConfig parsed(std::string_view text) {
  test::WarningCapture warnings;
  auto cfg = config::parse_profile_config(text, "cfg");
  REQUIRE(warnings.lines().empty());
  return cfg;
}

}  // namespace

TEST_CASE("each option of the table is the one option its line sets, in either spelling", "[options_table]") {
  struct TableOption {
    std::string_view name;
    std::string_view opencl;
    config::Option option;
  };
  constexpr TableOption kOptions[] = {
#define OPTION(option, opencl, ...) {#option, #opencl, config::Option::option},
#define OPTION_COLUMN(option, opencl, ...) {#option, #opencl, config::Option::option},
#include "config/options.def"
  };
  CHECK(std::size(kOptions) == config::kOptionCount);
  for (const TableOption& row : kOptions) {
    INFO(row.name);
    for (std::string_view spelling : {row.name, row.opencl}) {
      const config::ProfileConfig cfg = parsed(spelling);
      CHECK(cfg.options.count() == 1);
      CHECK(cfg.has(row.option));
    }
  }
}

TEST_CASE("an option with a column adds that one column, named as the log's kind spells it",
          "[options_table]") {
  for (const TableColumnOption& row : kColumnOptions) {
    INFO(row.name);
    for (std::string_view spelling : {row.name, row.opencl}) {
      const config::ProfileConfig cfg = parsed(spelling);
      for (config::Api api : {config::Api::cuda, config::Api::opencl}) {
        const logfmt::ColumnLayout layout = logfmt::select_columns(cfg, api);
        CHECK(layout.columns.size() == 5);
        CHECK(layout.has(row.column));
        CHECK(logfmt::column_name({row.column}, api) == (api == config::Api::cuda ? row.name : row.opencl));
      }
    }
  }
}

TEST_CASE("an option's column is written in the lines of the records that have it", "[options_table]") {
  records::Record copy;
  copy.kind = records::RecordKind::memcpy;
  copy.method = "memcpyHtoD";
  copy.method_is_plain = true;
  copy.transfer_bytes = 4096;
  copy.stream_id = 7;
  const logfmt::ColumnLayout layout =
      logfmt::select_columns(parsed("streamid\nmemtransfersize\nregperthread\n"), config::Api::cuda);
  CHECK(logfmt::column_line(layout) == "method,gputime,cputime,regperthread,occupancy,streamid,memtransfersize");
  std::string kvp;
  test::append_kvp_line(kvp, copy, layout);
  CHECK(kvp == "method=[ memcpyHtoD ] gputime=[ 0.000 ] cputime=[ 0.000 ] streamid=[ 7 ] memtransfersize=[ 4096 ] \n");
  std::string csv;
  test::append_csv_line(csv, copy, layout);
  CHECK(csv == "memcpyHtoD,0.000,0.000,,,7,4096\n");
}
