#include "tools/merge_command.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "config/report.hpp"
#include "exports/run_conversion.hpp"
#include "runfile/file_bytes.hpp"
#include "tools/json_trace_reader.hpp"
#include "tools/launch_error.hpp"
#include "tools/merged_perfetto.hpp"
#include "tools/temporary_file.hpp"

namespace computeprof::tools {
namespace {

// Each rank's processes get pids (position + 1) * 1000 + k: its host process k = 0, its
// other processes (devices) 1, 2, ... in ascending order of their own pid.
constexpr std::int64_t kPidsPerRank = 1000;
constexpr std::size_t kOutputChunk = 1 << 20;

class MergeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A time in microseconds as a trace writes it ("12.345") in nanoseconds: exact up to
// three decimals, finer digits rounded.
std::optional<std::int64_t> micros_to_ns(const JsonValue& value) {
  if (value.kind != JsonValue::Kind::number) return std::nullopt;
  const std::string& t = value.text;
  const bool exponent = t.find_first_of("eE") != std::string::npos;
  const auto dot = t.find('.');
  const std::size_t decimals = dot == std::string::npos ? 0 : t.size() - dot - 1;
  if (!exponent && decimals <= 3) {
    std::string digits = t.substr(0, dot == std::string::npos ? t.size() : dot);
    if (dot != std::string::npos) digits += t.substr(dot + 1);
    digits.append(3 - decimals, '0');
    std::int64_t ns = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), ns);
    if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    return ns;
  }
  const long double ns = std::strtold(t.c_str(), nullptr) * 1000.0L;
  if (!std::isfinite(ns) || std::fabs(ns) > 9.0e18L) return std::nullopt;
  return static_cast<std::int64_t>(std::llroundl(ns));
}

std::string ns_as_micros(std::int64_t ns) {
  const std::uint64_t magnitude = ns < 0 ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  return fmt::format("{}{}.{:03}", ns < 0 ? "-" : "", magnitude / 1000, magnitude % 1000);
}

std::optional<std::int64_t> add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

// What the first pass learns of one input.
struct InputSummary {
  std::string path;
  // Where its events are read: `path`, or a run file's trace made for the merge.
  std::string trace_path;
  std::size_t order = 0;  // on the command line
  JsonTraceHeader header;
  std::int64_t rank = 0;
  std::optional<std::int64_t> host_pid;  // the process labelled CPU
  std::set<std::int64_t> pids;
  std::set<std::int64_t> named_pids;  // those with a process_name event
  // The names process_name and thread_name events give, by the trace's own pids.
  std::map<std::int64_t, std::string> process_names;
  std::map<std::pair<std::int64_t, std::int64_t>, std::string> thread_names;
  std::uint64_t id_span = 0;          // largest numeric id + 1
  std::uint64_t events = 0;
  std::optional<std::int64_t> align_end_ns;  // the first end of --align's NAME, from ts 0
  std::int64_t shift_ns = 0;
  std::int64_t align_shift_ns = 0;
  std::uint64_t id_offset = 0;
  std::map<std::int64_t, std::int64_t> pid_map;
};

[[noreturn]] void fail_at(const InputSummary& input, const JsonTraceReader& reader, std::string_view what) {
  throw MergeError(fmt::format("{}: event {}: {}", input.path, reader.events(), what));
}

std::string rank_label(const InputSummary& input) {
  std::string label = fmt::format("rank {}", input.rank);
  std::vector<std::string> parts;
  if (input.header.host_name) parts.push_back(*input.header.host_name);
  if (input.host_pid) parts.push_back(std::to_string(*input.host_pid));
  if (!parts.empty()) label += fmt::format(" ({})", fmt::join(parts, ", "));
  return label;
}

bool is_range_end_of(const JsonValue& event, std::string_view name, std::string_view ph) {
  const auto cat = event.string_member("cat");
  if (event.string_member("name") != name || !cat) return false;
  if (ph == "X") return *cat == "kernel" || *cat == "user_annotation";
  return ph == "e" && *cat == "user_annotation";
}

void summarize(InputSummary& input, const std::optional<std::string>& align) {
  auto reader = JsonTraceReader::open(input.trace_path);
  input.header = reader.read([&](const JsonValue& event) {
    const JsonValue* pid = event.find("pid");
    if (pid != nullptr) {
      const auto value = pid->integer();
      if (!value) fail_at(input, reader, "its pid is not an integer");
      input.pids.insert(*value);
    }
    const auto ph = event.string_member("ph").value_or("");
    if (ph == "M" && pid != nullptr) {
      const auto name = event.string_member("name");
      const JsonValue* args = event.find("args");
      if (name == "process_name") input.named_pids.insert(*pid->integer());
      const JsonValue* named = args != nullptr ? args->find("name") : nullptr;
      if (named != nullptr && named->kind == JsonValue::Kind::string) {
        const JsonValue* tid = event.find("tid");
        if (name == "process_name") input.process_names[*pid->integer()] = named->text;
        if (name == "thread_name" && tid != nullptr && tid->integer()) {
          input.thread_names[{*pid->integer(), *tid->integer()}] = named->text;
        }
      }
      if (name == "process_labels" && args != nullptr && args->string_member("labels") == "CPU" && !input.host_pid) {
        input.host_pid = pid->integer();
      }
    }
    std::optional<std::int64_t> ts;
    if (const JsonValue* t = event.find("ts")) {
      ts = micros_to_ns(*t);
      if (!ts) fail_at(input, reader, "its ts is not a time in microseconds");
    }
    if (const JsonValue* id = event.find("id"); id != nullptr && id->kind != JsonValue::Kind::string) {
      std::uint64_t v = 0;
      const auto [end, ec] = std::from_chars(id->text.data(), id->text.data() + id->text.size(), v);
      if (id->kind != JsonValue::Kind::number || ec != std::errc() || end != id->text.data() + id->text.size() ||
          v == std::numeric_limits<std::uint64_t>::max()) {
        fail_at(input, reader, "its id is neither a non-negative integer nor a string");
      }
      input.id_span = std::max(input.id_span, v + 1);
    }
    if (align && ts && is_range_end_of(event, *align, ph)) {
      std::int64_t end = *ts;
      if (ph == "X") {
        const JsonValue* dur = event.find("dur");
        const auto d = dur != nullptr ? micros_to_ns(*dur) : std::nullopt;
        const auto sum = d ? add(*ts, *d) : std::nullopt;
        if (!sum) fail_at(input, reader, "its dur is not a time in microseconds");
        end = *sum;
      }
      if (!input.align_end_ns || end < *input.align_end_ns) input.align_end_ns = end;
    }
  });
  input.events = reader.events();
  if (!input.header.base_time_ns) throw MergeError(fmt::format("{}: the trace has no baseTimeNanoseconds", input.path));
  if (input.pids.size() >= static_cast<std::size_t>(kPidsPerRank)) {
    throw MergeError(fmt::format("{}: more than {} processes", input.path, kPidsPerRank - 1));
  }
  if (align && !input.align_end_ns) {
    throw MergeError(fmt::format("{}: no kernel or NVTX range named '{}' ends in it", input.path, *align));
  }
}

// The output, written to a temporary file beside it and renamed when complete; removed
// when the merge fails.
class MergedFile {
 public:
  explicit MergedFile(const std::string& path) : path_(path), temporary_(path + ".XXXXXX") {
    const int fd = mkstemp(temporary_.data());
    if (fd < 0) throw MergeError(fmt::format("{}: {}", path, std::strerror(errno)));
    // mkstemp makes it 0600; the merged trace gets the mode a new file gets.
    const mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    if (path.ends_with(".gz")) {
      gz_ = gzdopen(fd, "wb6");
      if (gz_ == nullptr) {
        ::close(fd);
        ::unlink(temporary_.c_str());
        throw MergeError(fmt::format("{}: zlib cannot compress", path));
      }
    } else {
      fd_ = fd;
    }
  }
  ~MergedFile() {
    if (done_) return;
    if (gz_ != nullptr) gzclose(gz_);
    if (fd_ >= 0) ::close(fd_);
    ::unlink(temporary_.c_str());
  }
  MergedFile(const MergedFile&) = delete;
  MergedFile& operator=(const MergedFile&) = delete;

  std::string& buffer() { return buffer_; }
  void flush_if_full() {
    if (buffer_.size() >= kOutputChunk) flush();
  }
  void finish() {
    flush();
    bool ok = true;
    if (gz_ != nullptr) {
      ok = gzclose(gz_) == Z_OK;
      gz_ = nullptr;
    } else {
      ok = ::fsync(fd_) == 0 || errno == EINVAL;
      ok = ::close(fd_) == 0 && ok;
      fd_ = -1;
    }
    if (!ok) throw MergeError(fmt::format("{}: the file cannot be written", path_));
    if (std::rename(temporary_.c_str(), path_.c_str()) != 0) {
      throw MergeError(fmt::format("{}: {}", path_, std::strerror(errno)));
    }
    done_ = true;
  }

 private:
  void flush() {
    std::string_view rest = buffer_;
    while (!rest.empty()) {
      if (gz_ != nullptr) {
        const int n = gzwrite(gz_, rest.data(), static_cast<unsigned>(std::min<std::size_t>(rest.size(), 1u << 30)));
        if (n <= 0) throw MergeError(fmt::format("{}: the file cannot be written", path_));
        rest.remove_prefix(static_cast<std::size_t>(n));
      } else {
        const ssize_t n = ::write(fd_, rest.data(), rest.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw MergeError(fmt::format("{}: {}", path_, std::strerror(errno)));
        rest.remove_prefix(static_cast<std::size_t>(n));
      }
    }
    buffer_.clear();
  }

  std::string path_;
  std::string temporary_;
  std::string buffer_;
  gzFile gz_ = nullptr;
  int fd_ = -1;
  bool done_ = false;
};

JsonValue string_value(std::string text) {
  JsonValue v;
  v.kind = JsonValue::Kind::string;
  v.text = std::move(text);
  return v;
}

JsonValue number_value(std::int64_t n) {
  JsonValue v;
  v.kind = JsonValue::Kind::number;
  v.text = std::to_string(n);
  return v;
}

// What a Perfetto trace's process of the rank is named and holds (merged_perfetto.hpp).
MergedPerfetto::Rank perfetto_rank(const InputSummary& input, const std::string& label) {
  MergedPerfetto::Rank rank;
  // The host process's merged pid, (position + 1) * 1000, also where the trace named none.
  rank.pid = input.pid_map.empty() ? 0 : input.pid_map.begin()->second / kPidsPerRank * kPidsPerRank;
  rank.name = label;
  if (input.host_pid) {
    if (const auto it = input.process_names.find(*input.host_pid); it != input.process_names.end()) {
      rank.name += " " + it->second;
    }
  }
  for (const auto& [pid, name] : input.process_names) rank.process_names[input.pid_map.at(pid)] = name;
  for (const auto& [thread, name] : input.thread_names) {
    rank.thread_names[{input.pid_map.at(thread.first), thread.second}] = name;
  }
  return rank;
}

class Merger {
 public:
  // `perfetto`: the merged trace is Perfetto's (OUT.pftrace), not JSON.
  Merger(MergedFile& file, std::int64_t earliest_ns, bool perfetto) : file_(file) {
    if (perfetto) {
      perfetto_.emplace(file_.buffer(), earliest_ns);
      return;
    }
    fmt::format_to(std::back_inserter(file_.buffer()),
                   "{{\"schemaVersion\":1,\"displayTimeUnit\":\"ms\",\"baseTimeNanoseconds\":{},\"traceEvents\":[\n",
                   earliest_ns);
  }

  // Copies one input's events, then adds the metadata that names and orders its processes.
  void copy(const InputSummary& input) {
    const std::string label = rank_label(input);
    if (perfetto_) perfetto_->begin_rank(perfetto_rank(input, label));
    auto reader = JsonTraceReader::open(input.trace_path);
    JsonValue copy;
    reader.read([&](const JsonValue& event) {
      copy = event;
      std::optional<std::int64_t> ts_ns;
      if (JsonValue* pid = copy.find("pid")) {
        const auto found = input.pid_map.find(pid->integer().value_or(-1));
        if (found == input.pid_map.end()) fail_at(input, reader, "it changed since it was first read");
        *pid = number_value(found->second);
      }
      if (JsonValue* ts = copy.find("ts")) {
        const auto shifted = add(micros_to_ns(*ts).value_or(0), input.shift_ns);
        if (!shifted) fail_at(input, reader, "its ts shifted does not fit");
        ts_ns = shifted;
        ts->kind = JsonValue::Kind::number;
        ts->text = ns_as_micros(*shifted);
      }
      if (JsonValue* id = copy.find("id")) {
        if (id->kind == JsonValue::Kind::string) {
          id->text = fmt::format("rank {}: {}", input.rank, id->text);
        } else {
          id->text = std::to_string(std::strtoull(id->text.c_str(), nullptr, 10) + input.id_offset);
        }
      }
      if (copy.string_member("ph") == "M" && copy.string_member("name") == "process_name") {
        if (JsonValue* args = copy.find("args"); args != nullptr && args->kind == JsonValue::Kind::object) {
          if (JsonValue* name = args->find("name"); name != nullptr && name->kind == JsonValue::Kind::string) {
            name->text = label + " " + name->text;
          }
        }
      }
      if (perfetto_) {
        const JsonValue* dur = copy.find("dur");
        perfetto_->event(copy, ts_ns, dur != nullptr ? micros_to_ns(*dur) : std::nullopt);
        file_.flush_if_full();
      } else {
        append(copy);
      }
    });
    if (reader.events() != input.events) {
      throw MergeError(fmt::format("{}: {} events, {} when first read: it changed", input.path, reader.events(),
                                   input.events));
    }
    copied_ += input.events;
    // Perfetto's tracks are named and grouped by their descriptors.
    if (perfetto_) return;
    std::vector<std::pair<std::int64_t, std::int64_t>> by_new_pid(input.pid_map.begin(), input.pid_map.end());
    std::sort(by_new_pid.begin(), by_new_pid.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    for (const auto& [old_pid, new_pid] : by_new_pid) {
      if (!input.named_pids.contains(old_pid)) {
        append(metadata("process_name", new_pid, "name", string_value(fmt::format("{} process {}", label, old_pid))));
      }
      append(metadata("process_sort_index", new_pid, "sort_index", number_value(new_pid)));
    }
  }

  void finish(const std::string& output) {
    if (perfetto_) {
      file_.finish();
      return;
    }
    file_.buffer() += "\n],\"traceName\":";
    JsonValue name = string_value(output);
    append_json(file_.buffer(), name);
    file_.buffer() += "}\n";
    file_.finish();
  }

  std::uint64_t copied() const { return copied_; }
  std::uint64_t added() const { return added_; }

 private:
  JsonValue metadata(std::string_view name, std::int64_t pid, std::string_view arg, JsonValue value) {
    ++added_;
    JsonValue event;
    event.kind = JsonValue::Kind::object;
    event.members.emplace_back("ph", string_value("M"));
    event.members.emplace_back("name", string_value(std::string(name)));
    event.members.emplace_back("pid", number_value(pid));
    event.members.emplace_back("tid", number_value(0));
    JsonValue args;
    args.kind = JsonValue::Kind::object;
    args.members.emplace_back(std::string(arg), std::move(value));
    event.members.emplace_back("args", std::move(args));
    return event;
  }

  void append(const JsonValue& event) {
    if (written_++ > 0) file_.buffer() += ",\n";
    append_json(file_.buffer(), event);
    file_.flush_if_full();
  }

  MergedFile& file_;
  std::optional<MergedPerfetto> perfetto_;
  std::uint64_t written_ = 0;
  std::uint64_t copied_ = 0;
  std::uint64_t added_ = 0;
};

// Whether `path` starts as a run file does (runfile/format.hpp's magic).
bool is_run_file(const std::string& path) {
  char start[8] = {};
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return false;
  const bool is = ::read(fd, start, sizeof start) == static_cast<ssize_t>(sizeof start) &&
                  std::string_view(start, sizeof start) == "CPROFRUN";
  ::close(fd);
  return is;
}

// A private file the run's JSON trace is written to.
class TemporaryTrace final : public exports::OutputFiles {
 public:
  explicit TemporaryTrace(const TemporaryFile& file) : file_(file) {}
  bool open(logfmt::LogFile& file, std::string_view) override { return static_cast<bool>(file.open(file_.path())); }

 private:
  const TemporaryFile& file_;
};

// The JSON trace of the run file at `path`, made into `trace` (as `computeprof export
// --to json` would make it).
void convert_for_merge(const std::string& path, const TemporaryFile& trace) {
  std::string why;
  const auto bytes = runfile::read_file_bytes(path, why);
  if (!bytes) throw MergeError(fmt::format("{}: {}", path, why));
  TemporaryTrace files(trace);
  const exports::ConversionResult converted = exports::convert_run(*bytes, config::ExportFormat::json, files);
  if (const auto& error = converted.summary.error) {
    throw MergeError(fmt::format("{}: at byte {}: {}", path, error->offset, error->what));
  }
  if (converted.not_written) throw MergeError(fmt::format("{}: its trace cannot be made", path));
}

int merge(const MergeOptions& options, std::FILE* out) {
  std::vector<InputSummary> inputs(options.inputs.size());
  std::vector<std::unique_ptr<TemporaryFile>> traces;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    inputs[i].path = options.inputs[i];
    inputs[i].trace_path = options.inputs[i];
    if (is_run_file(inputs[i].path)) {
      const TemporaryFile& trace = *traces.emplace_back(std::make_unique<TemporaryFile>("computeprof-merge-"));
      convert_for_merge(inputs[i].path, trace);
      inputs[i].trace_path = trace.path();
    }
    inputs[i].order = i;
    summarize(inputs[i], options.align);
    inputs[i].rank = inputs[i].header.distributed ? inputs[i].header.distributed->rank : static_cast<std::int64_t>(i);
  }
  std::stable_sort(inputs.begin(), inputs.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    if (inputs[i].rank == inputs[i - 1].rank) {
      throw MergeError(fmt::format("{} and {} are both rank {}", inputs[i - 1].path, inputs[i].path, inputs[i].rank));
    }
  }

  // One time axis: ts 0 is the earliest anchor; each input moves by how much later its own is.
  std::int64_t earliest = std::numeric_limits<std::int64_t>::max();
  for (const auto& input : inputs) earliest = std::min(earliest, *input.header.base_time_ns);
  std::uint64_t next_id = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto& input = inputs[i];
    input.shift_ns = *input.header.base_time_ns - earliest;
    input.id_offset = next_id;
    if (__builtin_add_overflow(next_id, input.id_span, &next_id)) {
      throw MergeError(fmt::format("{}: its ids do not fit beside the other files'", input.path));
    }
    const std::int64_t base = (static_cast<std::int64_t>(i) + 1) * kPidsPerRank;
    std::int64_t k = 1;
    for (const std::int64_t pid : input.pids) {
      input.pid_map[pid] = base + (pid == input.host_pid ? 0 : k++);
    }
  }
  if (options.align) {
    // The reference: rank 0, else the first file on the command line.
    const auto reference = std::find_if(inputs.begin(), inputs.end(), [](const auto& in) { return in.rank == 0; });
    const auto& ref = reference != inputs.end()
                          ? *reference
                          : *std::min_element(inputs.begin(), inputs.end(),
                                              [](const auto& a, const auto& b) { return a.order < b.order; });
    const std::int64_t target = *ref.align_end_ns + ref.shift_ns;
    for (auto& input : inputs) {
      const auto placed = add(*input.align_end_ns, input.shift_ns);
      const auto shift = placed ? add(target, -*placed) : std::nullopt;
      const auto total = shift ? add(input.shift_ns, *shift) : std::nullopt;
      if (!total) throw MergeError(fmt::format("{}: its shift does not fit", input.path));
      input.align_shift_ns = *shift;
      input.shift_ns = *total;
    }
  }

  MergedFile file(options.output);
  Merger merger(file, earliest, options.output.ends_with(".pftrace"));
  for (const auto& input : inputs) merger.copy(input);
  merger.finish(options.output);
  if (options.align) {
    for (const auto& input : inputs) {
      fmt::print(out, "rank {}: {:+} ns ({})\n", input.rank, input.align_shift_ns, input.path);
    }
  }
  fmt::print(out, "merged {} events of {} files into {} ({} metadata events added)\n", merger.copied(),
             inputs.size(), options.output, merger.added());
  return 0;
}

}  // namespace

std::variant<MergeOptions, UsageError> parse_merge_command_line(std::span<const std::string_view> args) {
  MergeOptions options;
  bool output_given = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= args.size()) return std::nullopt;
      return std::string(args[++i]);
    };
    if (arg == "-o" || arg == "--output") {
      const auto v = value();
      if (!v || v->empty()) return usage_error(fmt::format("merge: {} needs a file name", arg));
      options.output = *v;
      output_given = true;
    } else if (arg.starts_with("--output=")) {
      options.output = std::string(arg.substr(9));
      output_given = !options.output.empty();
      if (!output_given) return usage_error("merge: --output needs a file name");
    } else if (arg == "--align") {
      const auto v = value();
      if (!v || v->empty()) return usage_error("merge: --align needs the name of a kernel or NVTX range");
      options.align = *v;
    } else if (arg.starts_with("--align=")) {
      if (arg.size() == 8) return usage_error("merge: --align needs the name of a kernel or NVTX range");
      options.align = std::string(arg.substr(8));
    } else if (arg == "--") {
      for (++i; i < args.size(); ++i) options.inputs.emplace_back(args[i]);
    } else if (arg.size() > 1 && arg.starts_with("-")) {
      return usage_error(fmt::format("merge: unknown option '{}'", arg));
    } else {
      options.inputs.emplace_back(arg);
    }
  }
  if (options.inputs.empty()) return usage_error("merge needs at least one JSON trace");
  if (!output_given) return usage_error("merge needs -o OUT.json, -o OUT.json.gz or -o OUT.pftrace");
  return options;
}

int merge_traces(const MergeOptions& options, std::FILE* out) {
  try {
    return merge(options, out);
  } catch (const JsonTraceError& e) {
    config::warn(fmt::format("merge: {}", e.what()));
  } catch (const MergeError& e) {
    config::warn(fmt::format("merge: {}", e.what()));
  } catch (const LaunchError& e) {
    config::warn(fmt::format("merge: {}", e.what()));
  }
  return 1;
}

}  // namespace computeprof::tools
