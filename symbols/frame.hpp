#pragma once
// One frame of a call stack as every output names it (docs/format.md, "Call stacks"):
// the function, the module and the offset of the call in it, and where DWARF says so
// the source file and line; a function inlined at the call is a frame of its own.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace computeprof::symbols {

struct Frame {
  std::string function = "??";  // demangled; "??" where nothing names it
  std::string module;           // the object's path ("" where no module covers the address)
  std::uintptr_t offset = 0;    // of the call instruction, from the module's first byte in memory
  std::uintptr_t address = 0;   // the return address in the process (0 when read back from a file)
  std::string file;             // the source file, "" where DWARF does not say
  unsigned line = 0;
  bool inlined = false;         // inlined into the next frame, at the same offset
};

// "function (module+0xoffset)", then " file:line" where known, then " inlined" for an
// inlined frame; the module by its file name.
std::string describe_frame(const Frame& frame);

// The module's file name, as describe_frame writes it ("??" for none).
std::string_view module_file_name(std::string_view module);

// A frame read back from describe_frame's text: the function, the module's file name,
// the offset and whether it was inlined; nullopt where `text` is not such a line.
struct WrittenFrame {
  std::string function;
  std::string module_name;
  std::uintptr_t offset = 0;
  bool inlined = false;
};
std::optional<WrittenFrame> parse_described_frame(std::string_view text);

}  // namespace computeprof::symbols
