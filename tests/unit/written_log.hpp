#pragma once
// Records written as the classic log sinks write them (shim/output/classic_log_sink.cpp):
// a LineWriter puts each line into room it bounds; a whole log goes through a LogFile.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "logfmt/header.hpp"
#include "logfmt/log_file.hpp"
#include "logfmt/record_writer.hpp"

namespace computeprof::test {

// `record`'s line by `lines`, at the end of `out`.
inline void append_line(std::string& out, logfmt::LineWriter& lines, const records::Record& record) {
  const std::size_t start = out.size();
  out.resize(start + lines.bound(record));
  out.resize(static_cast<std::size_t>(lines.put(out.data() + start, record) - out.data()));
}

// `record`'s line by a writer of its own, which remembers no line before it.
inline void append_line(std::string& out, const records::Record& record, const logfmt::ColumnLayout& layout,
                        config::LogFormat format) {
  logfmt::LineWriter lines(layout, format);
  append_line(out, lines, record);
}
inline void append_kvp_line(std::string& out, const records::Record& record, const logfmt::ColumnLayout& layout) {
  append_line(out, record, layout, config::LogFormat::kvp);
}
inline void append_csv_line(std::string& out, const records::Record& record, const logfmt::ColumnLayout& layout) {
  append_line(out, record, layout, config::LogFormat::csv);
}

// The bytes of a log file of `records` in `info.format`: the header, then each record's
// line, written in place into the file's buffer (LogFile::room_for, commit).
template <typename Records>
std::string written_log(const logfmt::HeaderInfo& info, const logfmt::ColumnLayout& layout, const Records& records) {
  namespace fs = std::filesystem;
  char directory[] = "/tmp/computeprof-written-log-XXXXXX";
  REQUIRE(::mkdtemp(directory) != nullptr);
  const fs::path path = fs::path(directory) / "log";
  std::string header;
  logfmt::write_header(header, info, layout);
  logfmt::LineWriter lines(layout, info.format);
  {
    logfmt::LogFile file;
    REQUIRE(file.open(path.string()));
    file.append(header);
    for (const records::Record& record : records) {
      char* room = file.room_for(lines.bound(record));
      REQUIRE(room != nullptr);
      file.commit(lines.put(room, record));
    }
    file.close();
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  fs::remove_all(directory);
  return text.str();
}
inline std::string written_log(const logfmt::HeaderInfo& info, const logfmt::ColumnLayout& layout,
                               std::initializer_list<records::Record> records) {
  return written_log<std::initializer_list<records::Record>>(info, layout, records);
}

}  // namespace computeprof::test
