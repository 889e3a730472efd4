#include "config/profile_config.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>

#include "config/report.hpp"

namespace computeprof::config {
namespace {

// Config lines are a single short name; anything longer is not a name.
constexpr std::size_t kMaxLineLength = 1024;
constexpr std::size_t kMaxProblemsShown = 8;
constexpr off_t kMaxFileSize = 64 << 20;

struct OptionName {
  std::string_view name;
  std::string_view opencl;  // its OpenCL spelling, a synonym (the same name when it has none)
  Option option;
};

constexpr OptionName kOptionNames[] = {
#define OPTION(option, opencl, ...) {#option, #opencl, Option::option},
#define OPTION_COLUMN(option, opencl, ...) {#option, #opencl, Option::option},
#include "config/options.def"
};

std::optional<Option> find_option(std::string_view name) {
  for (const auto& o : kOptionNames) {
    if (o.name == name || o.opencl == name) return o.option;
  }
  return std::nullopt;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Splits "name value" at the first run of white space.
std::pair<std::string_view, std::string_view> split_word(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && !is_space(s[i])) ++i;
  return {s.substr(0, i), trim(s.substr(i))};
}

// The offset of the first byte that no text file has: a control character other than
// white space, or a byte that is not part of valid UTF-8.
std::optional<std::size_t> find_binary_byte(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    auto u = static_cast<unsigned char>(text[i]);
    if (u < 0x80) {
      bool control = (u < 0x20 && u != '\t' && u != '\n' && u != '\r' && u != '\v' && u != '\f') || u == 0x7f;
      if (control) return i;
      ++i;
      continue;
    }
    std::size_t length = (u & 0xE0) == 0xC0 ? 2 : (u & 0xF0) == 0xE0 ? 3 : (u & 0xF8) == 0xF0 ? 4 : 0;
    if (length == 0 || i + length > text.size()) return i;
    for (std::size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return i;
    }
    i += length;
  }
  return std::nullopt;
}

class ProblemReporter {
 public:
  explicit ProblemReporter(std::string_view source) : source_(escape_for_warning(source)) {}
  ProblemReporter(const ProblemReporter&) = delete;
  ProblemReporter& operator=(const ProblemReporter&) = delete;
  ~ProblemReporter() {
    if (count_ > kMaxProblemsShown) {
      warn(fmt::format("{}: {} more problems not shown", source_, count_ - kMaxProblemsShown));
    }
  }
  void line_problem(std::size_t line, std::string_view what) {
    if (++count_ <= kMaxProblemsShown) warn(fmt::format("{}:{}: {}", source_, line, what));
  }

 private:
  std::string source_;
  std::size_t count_ = 0;
};

// "export json", "export json.gz", "export pftrace", "export sqlite", "export nvprof", or several in one line ("export json,sqlite").
void apply_exports(ProfileConfig& config, std::string_view value, std::size_t number, ProblemReporter& problems) {
  if (value.empty()) {
    problems.line_problem(number, "export needs a format: json, json.gz, pftrace, sqlite, nvprof or cprof");
    return;
  }
  while (!value.empty()) {
    const std::size_t end = value.find_first_of(", \t");
    const std::string_view format = value.substr(0, end);
    value = end == std::string_view::npos ? std::string_view{} : trim(value.substr(end + 1));
    if (!value.empty() && value.front() == ',') value = trim(value.substr(1));
    if (format == "json") {
      config.exports.set(static_cast<std::size_t>(ExportFormat::json));
    } else if (format == "sqlite") {
      config.exports.set(static_cast<std::size_t>(ExportFormat::sqlite));
    } else if (format == "nvprof") {
      config.exports.set(static_cast<std::size_t>(ExportFormat::nvprof));
    } else if (format == "json.gz") {
      config.exports.set(static_cast<std::size_t>(ExportFormat::json_gz));
    } else if (format == "pftrace") {
      config.exports.set(static_cast<std::size_t>(ExportFormat::pftrace));
    } else if (format == "cprof") {
      config.exports.set(static_cast<std::size_t>(ExportFormat::cprof));
    } else if (!format.empty()) {
      problems.line_problem(number, fmt::format("unknown export format '{}' (json, json.gz, pftrace, sqlite, nvprof, cprof), ignored",
                                                escape_for_warning(format)));
    }
  }
}

// exportlimit SIZE: bytes, or with a suffix K, M or G (powers of 1024), at least 1.
void apply_export_limit(ProfileConfig& config, std::string_view value, std::size_t number, ProblemReporter& problems) {
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  const std::string_view suffix = value.substr(static_cast<std::size_t>(end - value.data()));
  unsigned shift = 0;
  if (suffix == "K" || suffix == "k") shift = 10;
  if (suffix == "M" || suffix == "m") shift = 20;
  if (suffix == "G" || suffix == "g") shift = 30;
  const bool suffix_ok = suffix.empty() || shift != 0;
  if (value.empty() || ec != std::errc() || !suffix_ok || n == 0 || n > (~std::uint64_t{0} >> shift)) {
    problems.line_problem(number, fmt::format("exportlimit needs a size such as 500M (bytes, K, M, G), not '{}'; ignored",
                                              escape_for_warning(value)));
    return;
  }
  config.export_limit = n << shift;
}

// flightrecorder SECONDS: a positive number of seconds, with at most nine decimals
// (0.5, 30), at most a day.
void apply_flight_recorder(ProfileConfig& config, std::string_view value, std::size_t number,
                           ProblemReporter& problems) {
  constexpr std::uint64_t kDayNs = 86'400'000'000'000;
  std::uint64_t whole = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), whole);
  std::string_view rest = value.substr(static_cast<std::size_t>(end - value.data()));
  bool ok = !value.empty() && ec == std::errc() && whole <= kDayNs / 1'000'000'000;
  std::uint64_t ns = whole * 1'000'000'000;
  if (ok && rest.starts_with('.')) {
    rest.remove_prefix(1);
    ok = !rest.empty() && rest.size() <= 9;
    std::uint64_t scale = 100'000'000;
    for (char c : rest) {
      ok = ok && c >= '0' && c <= '9';
      ns += static_cast<std::uint64_t>(c - '0') * scale;
      scale /= 10;
    }
  } else if (!rest.empty()) {
    ok = false;
  }
  if (!ok || ns == 0 || ns > kDayNs) {
    problems.line_problem(number, fmt::format("flightrecorder needs a number of seconds such as 30 or 0.5, not '{}'; "
                                              "ignored",
                                              escape_for_warning(value)));
    return;
  }
  config.flight_recorder_ns = ns;
}

// A number for launchskip, launchcount and callstack: decimal, not above `most`.
std::optional<std::uint64_t> parse_count(std::string_view value, std::uint64_t most) {
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() || n > most) return std::nullopt;
  return n;
}

// kernels, kernelexclude, launchskip, launchcount, kernelfilterscope: false for any
// other name. A line with a problem is one warning and counts for nothing.
bool apply_kernel_filter(ProfileConfig& config, std::string_view name, std::string_view value, std::size_t number,
                         ProblemReporter& problems) {
  KernelFilters& f = config.kernel_filters;
  std::string error;
  if (name == "kernels") {
    if (value.empty()) {
      problems.line_problem(number, "kernels needs a kernel: [context:[stream:]]name[:invocation]; ignored");
    } else if (auto spec = parse_kernel_spec(value, error)) {
      f.include.push_back(std::move(*spec));
    } else {
      problems.line_problem(number, fmt::format("kernels '{}': {}; ignored", escape_for_warning(value), error));
    }
    return true;
  }
  if (name == "kernelexclude") {
    if (auto pattern = NamePattern::compile(value, error)) {
      f.exclude.push_back(std::move(*pattern));
      f.exclude_text.emplace_back(value);
    } else {
      problems.line_problem(number, fmt::format("kernelexclude '{}': {}; ignored", escape_for_warning(value), error));
    }
    return true;
  }
  if (name == "launchskip" || name == "launchcount") {
    constexpr std::uint64_t kMost = std::uint64_t{1} << 62;
    const auto n = parse_count(value, kMost);
    if (!n) {
      problems.line_problem(number, fmt::format("{} needs a number of launches, not '{}'; ignored", name,
                                                escape_for_warning(value)));
    } else if (name == "launchskip") {
      f.skip = *n;
    } else {
      f.count = *n;
    }
    return true;
  }
  if (name == "kernelfilterscope") {
    if (value == "counters") {
      f.scope = FilterScope::counters;
    } else if (value == "all") {
      f.scope = FilterScope::all;
    } else {
      problems.line_problem(number, fmt::format("kernelfilterscope needs counters or all, not '{}'; ignored",
                                                escape_for_warning(value)));
    }
    return true;
  }
  return false;
}

// capturerange nvtx NAME[@DOMAIN] (also nvtx:NAME[@DOMAIN], the launcher's spelling) and
// capturerangeend stop|repeat:N; false for any other name.
bool apply_capture_range(ProfileConfig& config, std::string_view name, std::string_view value, std::size_t number,
                         ProblemReporter& problems) {
  CaptureRange& c = config.capture_range;
  if (name == "capturerange") {
    std::string_view range;
    if (value.starts_with("nvtx:")) {
      range = value.substr(5);
    } else if (value.starts_with("nvtx ") || value.starts_with("nvtx\t")) {
      range = value.substr(5);
      while (!range.empty() && (range.front() == ' ' || range.front() == '\t')) range.remove_prefix(1);
    }
    if (range.empty() || range.front() == '@') {
      problems.line_problem(number, fmt::format("capturerange needs nvtx NAME[@DOMAIN], not '{}'; ignored",
                                                escape_for_warning(value)));
      return true;
    }
    const std::size_t at = range.rfind('@');
    c.name = std::string(range.substr(0, at));
    c.domain = at == std::string_view::npos ? std::string() : std::string(range.substr(at + 1));
    return true;
  }
  if (name == "capturerangeend") {
    constexpr std::uint64_t kMost = std::uint64_t{1} << 62;
    if (value == "stop") {
      c.instances = 1;
    } else if (auto n = value.starts_with("repeat:") ? parse_count(value.substr(7), kMost) : std::nullopt;
               n && *n != 0) {
      c.instances = *n;
    } else {
      problems.line_problem(number, fmt::format("capturerangeend needs stop or repeat:N, not '{}'; ignored",
                                                escape_for_warning(value)));
    }
    return true;
  }
  return false;
}

// callstack [DEPTH]: 32 frames by default, 1 to 128.
void apply_callstack(ProfileConfig& config, std::string_view value, std::size_t number, ProblemReporter& problems) {
  constexpr unsigned kDefaultDepth = 32;
  constexpr unsigned kMostDepth = 128;
  if (value.empty()) {
    config.callstack_depth = kDefaultDepth;
    return;
  }
  const auto depth = parse_count(value, kMostDepth);
  if (!depth || *depth == 0) {
    problems.line_problem(number, fmt::format("callstack depth must be 1 to 128, not '{}'; using {}",
                                              escape_for_warning(value), kDefaultDepth));
    config.callstack_depth = kDefaultDepth;
    return;
  }
  config.callstack_depth = static_cast<unsigned>(*depth);
}


void apply_line(ProfileConfig& config, std::string_view line, std::size_t number,
                ProblemReporter& problems) {
  auto [name, value] = split_word(line);
  if (name == "enableonstart") {
    if (value == "0" || value == "1") {
      config.enable_on_start = value == "1";
    } else {
      problems.line_problem(number, fmt::format("enableonstart needs 0 or 1, not '{}'; keeping {}",
                                                escape_for_warning(value), config.enable_on_start ? 1 : 0));
    }
    return;
  }
  if (name == "profilelogformat") {
    if (value == "CSV") {
      config.log_format = LogFormat::csv;
    } else if (value == "KVP") {
      config.log_format = LogFormat::kvp;
    } else {
      problems.line_problem(
          number, fmt::format("profilelogformat needs CSV or KVP, not '{}'; ignored", escape_for_warning(value)));
    }
    return;
  }
  if (name == "export") {
    apply_exports(config, value, number, problems);
    return;
  }
  if (name == "exportlimit") {
    apply_export_limit(config, value, number, problems);
    return;
  }
  if (name == "exportwhen") {
    if (value == "exit" || value == "later") {
      config.export_later = value == "later";
    } else {
      problems.line_problem(number,
                            fmt::format("exportwhen needs exit or later, not '{}'; ignored", escape_for_warning(value)));
    }
    return;
  }
  if (name == "flightrecorder") {
    apply_flight_recorder(config, value, number, problems);
    return;
  }
  if (name == "apitrace") {
    if (value.empty() || value == "on" || value == "off") {
      config.api_trace = value != "off";
    } else {
      problems.line_problem(number, fmt::format("apitrace needs on or off, not '{}'; ignored", escape_for_warning(value)));
    }
    return;
  }
  if (name == "flightrecordertrigger") {
    if (value.empty()) {
      problems.line_problem(number, "flightrecordertrigger needs a path; ignored");
    } else {
      config.flight_recorder_trigger = std::string(value);
    }
    return;
  }
  if (apply_kernel_filter(config, name, value, number, problems)) return;
  if (apply_capture_range(config, name, value, number, problems)) return;
  if (name == "callstack") {
    apply_callstack(config, value, number, problems);
    return;
  }
  if (name == "summary") {
    config.summary = true;
  } else if (name == "memtrace") {
    config.memtrace = true;
  } else if (auto option = find_option(name)) {
    config.set(*option);
  } else if (auto counter = find_legacy_counter(name)) {
    config.counters.set(*counter);
  } else {
    problems.line_problem(number, fmt::format("unknown name '{}', skipped", escape_for_warning(name)));
    return;
  }
  if (!value.empty()) {
    problems.line_problem(number, fmt::format("'{}' takes no value; '{}' ignored", escape_for_warning(name),
                                              escape_for_warning(value)));
  }
}

}  // namespace

ProfileConfig parse_profile_config(std::string_view text, std::string_view source) {
  ProfileConfig config;
  if (auto bad = find_binary_byte(text)) {
    warn(fmt::format("{}: binary content (byte 0x{:02x} at offset {}), config ignored; using defaults",
                     escape_for_warning(source), static_cast<unsigned char>(text[*bad]), *bad));
    return config;
  }
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text.starts_with(kBom)) text.remove_prefix(kBom.size());

  ProblemReporter problems(source);
  std::size_t number = 0;
  while (!text.empty()) {
    ++number;
    std::size_t end = text.find('\n');
    std::string_view raw = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (raw.size() > kMaxLineLength) {
      problems.line_problem(number, fmt::format("line of {} bytes is too long for a name, skipped", raw.size()));
      continue;
    }
    std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    apply_line(config, line, number, problems);
  }
  if (config.has(Option::conckerneltrace) && config.counters.any()) {
    config.counters.reset();
    config.counters_dropped = true;
    warn(fmt::format("{}: counters cannot be collected with conckerneltrace; counters ignored",
                     escape_for_warning(source)));
  }
  return config;
}

ProfileConfig load_profile_config(const std::string& path, std::string_view shown_name) {
  const std::string_view source = shown_name.empty() ? std::string_view(path) : shown_name;
  auto fail = [&](std::string_view why) {
    warn(fmt::format("config file '{}': {}; using defaults", escape_for_warning(source), why));
    return ProfileConfig{};
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fail(std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return fail(std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return fail("is a directory");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail("not a regular file");
  }
  if (st.st_size > kMaxFileSize) {
    ::close(fd);
    return fail(fmt::format("{} bytes, larger than the {} MiB a config file may have", st.st_size,
                            kMaxFileSize >> 20));
  }
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return fail(std::strerror(err));
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  text.resize(done);
  return parse_profile_config(text, source);
}

}  // namespace computeprof::config
