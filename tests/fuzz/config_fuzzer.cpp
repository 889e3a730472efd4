// libFuzzer target for what a hostile user controls before any GPU work: the config
// file's text and the environment. One input is both: the config text, and, in its
// lines of the form NAME=VALUE, the variables an environment lookup finds. Besides
// the sanitizers' checks, every warning must be one line of printable text of
// bounded length, whatever the input.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config/environment.hpp"
#include "config/profile_config.hpp"
#include "config/report.hpp"
#include "logfmt/log_path.hpp"

namespace {

using namespace computeprof;

// Three echoed values of at most 4 * kWarningValueLimit + 3 bytes each, and the text
// around them, fit with room to spare.
constexpr std::size_t kMaxWarningLength = 4096;

void check_warning(std::string_view line, void*) {
  if (line.size() > kMaxWarningLength) __builtin_trap();
  for (char c : line) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) __builtin_trap();
  }
}

// The value of the first line "NAME=VALUE" of the input, as if the variable were set.
std::optional<std::string> lookup(std::string_view name, void* user) {
  std::string_view text = *static_cast<const std::string_view*>(user);
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    if (line.size() > name.size() && line.starts_with(name) && line[name.size()] == '=') {
      return std::string(line.substr(name.size() + 1));
    }
  }
  return std::nullopt;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  config::set_warning_sink(check_warning, nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  // The source name is echoed too, and is as hostile as the text.
  config::parse_profile_config(input, input.substr(0, 300));
  for (config::Api api : {config::Api::cuda, config::Api::opencl}) {
    config::ApiEnvironment env = config::read_api_environment(api, lookup, &input);
    logfmt::PathTemplateValues values;
    values.pid = 4242;
    values.hostname = "node07";
    values.lookup = lookup;
    values.lookup_user = &input;
    logfmt::expand_log_path(env.log_template, values);
  }
  // warn_once remembers what it printed: forget it, or memory grows with every input.
  config::reset_warned_once();
  return 0;
}
