#pragma once
// Frames named from the binaries themselves with elfutils' libdwfl: the function from
// the symbol table (.symtab, else .dynsym), demangled; the source file and line and the
// functions inlined at the call from DWARF, in the binary or its separate debug file
// (.gnu_debuglink beside it or under /usr/lib/debug, or /usr/lib/debug/.build-id: files
// on this machine only, symbols/debug_file.hpp). A
// binary is hostile input: one that cannot be read, that is not the one the stack was
// captured in (its build-id differs), or whose debug file does not match, names no
// frame, and one line (once per file) says so. Not thread-safe: one thread uses it.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "symbols/frame.hpp"

namespace computeprof::symbols {

struct ModuleIdentity {
  std::string path;
  std::string build_id;  // lowercase hex; "" where not known (then not checked)
};

class Symbolizer {
 public:
  // Where libdw cannot be loaded, one line says so and what follows: `without_libdw`.
  explicit Symbolizer(std::string_view without_libdw);
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // Whether libdw is loaded; without it frames() names nothing.
  bool available() const { return available_; }

  // The frames at the call `offset` bytes from the module's first byte (as loaded),
  // innermost first: the functions inlined there, then the function that holds it, all
  // with the module and offset; empty where the module names nothing there.
  std::vector<Frame> frames(const ModuleIdentity& module, std::uintptr_t offset);

  // The build-id of the file at `path` (hex), "" where it has none or cannot be read.
  std::string file_build_id(const std::string& path);

 private:
  struct OpenModule;
  OpenModule* open(const ModuleIdentity& module);

  bool available_ = false;
  std::unordered_map<std::string, std::unique_ptr<OpenModule>> modules_;  // by path
};

}  // namespace computeprof::symbols
