#include "log_reader.hpp"

#include <sstream>
#include <stdexcept>

#include "csv_reader.hpp"
#include "process.hpp"

namespace e2e {
namespace {

Fields parse_kvp_line(const std::string& line) {
  if (line.empty() || line.back() != ' ') throw std::runtime_error("key-value line without trailing space: " + line);
  Fields f;
  std::size_t pos = 0;
  while (pos < line.size()) {
    const auto open = line.find("=[ ", pos);
    const auto close = line.find(" ] ", open);
    if (open == std::string::npos || close == std::string::npos) throw std::runtime_error("bad pair in: " + line);
    f[line.substr(pos, open - pos)] = line.substr(open + 3, close - open - 3);
    pos = close + 3;
  }
  return f;
}

}  // namespace

std::size_t ParsedLog::count(const std::string& method) const { return with_method(method).size(); }

std::size_t ParsedLog::kernels() const {
  std::size_t n = 0;
  for (const auto& r : records) {
    const std::string& m = r.at("method");
    if (!m.starts_with("memcpy") && m != "memset" && m != "graphLaunch") ++n;
  }
  return n;
}

std::vector<Fields> ParsedLog::with_method(const std::string& method) const {
  std::vector<Fields> out;
  for (const auto& r : records) {
    if (r.at("method") == method) out.push_back(r);
  }
  return out;
}

ParsedLog parse_log(const std::string& text) {
  ParsedLog log;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line) && line.starts_with("#")) log.header.push_back(line);
  log.column_line = line;
  for (const auto& h : log.header) log.csv |= h.ends_with("_PROFILE_CSV 1");
  if (log.csv) {
    std::string rest((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto columns = computeprof::test::read_csv(log.column_line).at(0);
    for (const auto& row : computeprof::test::read_csv(rest)) {
      if (row.size() != columns.size()) throw std::runtime_error("CSV row with a wrong field count");
      Fields f;
      for (std::size_t i = 0; i < row.size(); ++i) f[columns[i]] = row[i];
      log.records.push_back(std::move(f));
    }
  } else {
    while (std::getline(in, line)) log.records.push_back(parse_kvp_line(line));
  }
  return log;
}

ParsedLog read_log(const std::string& path) {
  if (!file_exists(path)) throw std::runtime_error("no log at " + path);
  return parse_log(read_file(path));
}

std::uint64_t micros_to_ns(const std::string& value) {
  const auto dot = value.find('.');
  if (dot == std::string::npos || value.size() - dot != 4) throw std::runtime_error("not a time: " + value);
  return std::stoull(value.substr(0, dot)) * 1000 + std::stoull(value.substr(dot + 1));
}

}  // namespace e2e
