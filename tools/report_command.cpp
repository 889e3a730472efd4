#include "tools/report_command.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "config/report.hpp"
#include "reports/report_table.hpp"
#include "tools/base64_text.hpp"
#include "tools/report_page.hpp"
#include "tools/report_timeline.hpp"
#include "tools/stats.hpp"
#include "tools/text_file.hpp"

namespace computeprof::tools {
namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// What `computeprof stats` prints for `options` as JSON, through the same code; the
// status it returns.
struct StatsJson {
  int status = 0;
  std::string text;
};

StatsJson stats_json(StatsOptions options) {
  options.format = reports::TableFormat::json;
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* out = ::open_memstream(&buffer, &size);
  if (out == nullptr) return {1, {}};
  StatsJson json;
  json.status = print_stats(options, out);
  std::fclose(out);
  json.text.assign(buffer, size);
  std::free(buffer);
  return json;
}

// zlib's format (the page inflates it with DecompressionStream("deflate")).
std::string compressed(const std::string& bytes) {
  uLongf size = compressBound(static_cast<uLong>(bytes.size()));
  std::string out(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(bytes.data()),
                static_cast<uLong>(bytes.size()), 6) != Z_OK) {
    return {};
  }
  out.resize(size);
  return out;
}

// One block of data in the page: base64 inside an element no browser runs.
std::string data_element(std::string_view id, std::string_view encoding, std::string_view bytes) {
  return fmt::format("<script type=\"application/octet-stream\" id=\"{}\" data-encoding=\"{}\">{}</script>\n", id,
                     encoding, base64_text(bytes));
}

std::string page(const std::string& data) {
  std::string html(report_page_html());
  const auto put = [&](std::string_view marker, std::string_view text) {
    const std::size_t at = html.find(marker);
    if (at != std::string::npos) html.replace(at, marker.size(), text);
  };
  // The data first: the markers' texts could hold another marker's text.
  put("<!--data-->", data);
  put("<!--style-->", fmt::format("<style>\n{}</style>", report_page_style()));
  put("<!--script-->", fmt::format("<script>\n{}</script>", report_page_script()));
  return html;
}

// Written to a temporary file beside `path` and renamed over it when whole.
bool write_page(const std::string& path, const std::string& text) {
  std::string temporary = path + ".XXXXXX";
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) {
    config::warn(fmt::format("report: cannot write '{}': {}", config::escape_for_warning(path), std::strerror(errno)));
    return false;
  }
  // mkstemp makes it 0600; the page gets the mode a new file gets.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  bool ok = write_all(fd, text);
  const int error = errno;
  ok = ::close(fd) == 0 && ok;
  if (ok && std::rename(temporary.c_str(), path.c_str()) == 0) return true;
  config::warn(fmt::format("report: cannot write '{}': {}", config::escape_for_warning(path),
                           std::strerror(ok ? errno : error)));
  ::unlink(temporary.c_str());
  return false;
}

}  // namespace

std::variant<ReportOptions, UsageError> parse_report_command_line(std::span<const std::string_view> args) {
  ReportOptions options;
  bool comparing = false;   // after --compare, before its "--"
  bool options_ended = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (options_ended || arg == "-" || !arg.starts_with("-")) {
      (comparing ? options.base : options.files).emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      if (comparing) {
        comparing = false;
      } else {
        options_ended = true;
      }
      continue;
    }
    if (arg == "--compare") {
      if (!options.base.empty() || comparing) return usage_error("report: --compare is given once");
      if (!options.files.empty()) return usage_error("report: --compare comes before the files");
      comparing = true;
    } else if (arg == "-o" || arg == "--output" || arg.starts_with("--output=")) {
      std::string_view value;
      if (arg.starts_with("--output=")) {
        value = arg.substr(9);
      } else if (i + 1 < args.size()) {
        value = args[++i];
      }
      if (value.empty()) return usage_error(fmt::format("report: {} needs the page's path", arg.substr(0, 8)));
      options.output = std::string(value);
    } else if (arg == "-f" || arg == "--force") {
      options.overwrite = true;
    } else {
      return usage_error(fmt::format("report: unknown option '{}' (a file whose name starts with '-': ./{})",
                                     config::escape_for_warning(arg), config::escape_for_warning(arg)));
    }
  }
  if (comparing) return usage_error("report --compare needs BASE... -- FILE... (at least one file each)");
  if (options.files.empty()) return usage_error("report needs at least one run file, log, database or JSON trace");
  if (options.output.empty()) return usage_error("report needs -o OUT.html, the page to write");
  return options;
}

int write_report(const ReportOptions& options) {
  const std::string shown = config::escape_for_warning(options.output);
  for (const std::vector<std::string>* inputs : {&options.files, &options.base}) {
    for (const std::string& input : *inputs) {
      if (same_file(input, options.output)) {
        config::warn(fmt::format("report: '{}' is an input; it is not overwritten", shown));
        return 1;
      }
    }
  }
  if (!options.overwrite && exists(options.output)) {
    config::warn(fmt::format("report: '{}' exists; -f overwrites it", shown));
    return 1;
  }

  StatsOptions summary;
  summary.files = options.files;
  const StatsJson stats = stats_json(summary);
  if (stats.status != 0) return 1;  // stats has warned which file it cannot read
  std::string files = "[";
  for (const std::string& file : options.files) {
    if (files.size() > 1) files += ',';
    reports::append_json_text(files, file);
  }
  std::string data = data_element("cprof-files", "base64", files + "]");
  data += data_element("cprof-stats", "base64", stats.text);
  if (options.files.size() > 1) {
    // Each file's own table: the heat map of kernel time by rank.
    for (std::size_t i = 0; i < options.files.size(); ++i) {
      StatsOptions one;
      one.files = {options.files[i]};
      const StatsJson json = stats_json(one);
      if (json.status != 0) return 1;
      data += data_element(fmt::format("cprof-file-stats-{}", i), "base64", json.text);
    }
    StatsOptions ranks = summary;
    ranks.mode = StatsOptions::Mode::ranks;
    const StatsJson json = stats_json(ranks);
    if (json.status != 0) return 1;
    data += data_element("cprof-ranks", "base64", json.text);
  }
  if (!options.base.empty()) {
    StatsOptions compare;
    compare.mode = StatsOptions::Mode::compare;
    compare.files = options.base;
    compare.new_files = options.files;
    const StatsJson json = stats_json(compare);
    if (json.status > 1) return 1;  // 1: a kernel regressed, which the page shows
    data += data_element("cprof-compare", "base64", json.text);
  }
  std::vector<std::string> warnings;
  const ReportTimeline timeline = read_report_timeline(options.files, warnings);
  for (const std::string& warning : warnings) config::warn(warning);
  data += data_element("cprof-timeline-description", "base64", timeline.description);
  const std::string items = compressed(timeline.items);
  if (items.empty() && !timeline.items.empty()) {
    config::warn("report: zlib cannot compress the timeline");
    return 1;
  }
  data += data_element("cprof-timeline-items", "base64,deflate", items);
  return write_page(options.output, page(data)) ? 0 : 1;
}

}  // namespace computeprof::tools
