// libFuzzer target for the binaries a symbolizer reads (symbols/): each input is an ELF
// file (seeded with a small program built with -g, which the fuzzer truncates and
// corrupts) whose frames are named at offsets taken from the input, with elfutils'
// libdw as the shim and `computeprof stacks` load it; and the same bytes as a stacks
// file's frame line and a module list. Besides the sanitizers' checks, every warning
// must be one line of printable text of bounded length, and a frame named must carry
// the module and offset it was asked for.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "config/report.hpp"
#include "symbols/frame.hpp"
#include "symbols/module_list.hpp"
#include "symbols/symbolizer.hpp"

namespace {

using namespace computeprof;

constexpr std::size_t kMaxWarningLength = 4096;

void check_warning(std::string_view line, void*) {
  if (line.size() > kMaxWarningLength) __builtin_trap();
  for (char c : line) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) __builtin_trap();
  }
}

// The one file inputs are written to, for libdw to open by path as it opens a module.
const std::string& input_path() {
  static const std::string path = [] {
    std::string p = "/tmp/computeprof_symbols_fuzzer_XXXXXX";
    const int fd = ::mkstemp(p.data());
    if (fd < 0) std::abort();
    ::close(fd);
    return p;
  }();
  static const bool removed_at_exit = std::atexit([] { ::unlink(input_path().c_str()); }) == 0;
  (void)removed_at_exit;
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  config::set_warning_sink(check_warning, nullptr);
  config::reset_warned_once();
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  const std::string& path = input_path();
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  symbols::Symbolizer symbolizer("nothing is named");
  // Offsets from the input's last bytes, and around the usual start of code.
  std::uintptr_t offsets[] = {0x1000, 0x1139, 0x11a0, 0};
  if (size >= 4) std::memcpy(&offsets[3], data + size - 4, 4);
  for (std::uintptr_t offset : offsets) {
    for (const symbols::Frame& frame : symbolizer.frames({path, ""}, offset)) {
      if (frame.module != path || frame.offset != offset || frame.function.empty()) __builtin_trap();
      (void)symbols::describe_frame(frame);
    }
  }
  (void)symbolizer.file_build_id(path);

  (void)symbols::parse_described_frame(text);
  for (const auto& module : symbols::parse_module_list(text)) {
    if (module.path.empty()) __builtin_trap();
  }
  return 0;
}
