#pragma once
// A module's separate debug file, looked for on this machine only (docs/format.md, "Call
// stacks"): libdwfl's standard search asks debuginfod servers over the network when
// DEBUGINFOD_URLS is set, which a profiler inside someone else's process must never do
// (and the writer thread naming frames at exit must not wait on).
#include <elfutils/libdwfl.h>

#include <string>

#include "symbols/libdw_library.hpp"

namespace computeprof::symbols {

// libdwfl's find_debuginfo callback, searching files only: by build-id,
// DIR/.build-id/xx/rest.debug; by .gnu_debuglink, the name beside the binary, in
// .debug/ there, and under DIR/<the binary's directory> (DIR: debug_file_directory()).
// A file is taken only when its build-id is the module's (or, for a module without one,
// its CRC is the debuglink's). Returns its descriptor, -1 (errno ENOENT) where none is,
// and for a dwz file (libdw looks for it on disk itself).
int find_local_debuginfo(Dwfl_Module* module, void** userdata, const char* module_name, GElf_Addr base,
                         const char* file_name, const char* debuglink_file, GElf_Word debuglink_crc,
                         char** debuginfo_file_name);

// The build-id of a reported module (lowercase hex), "" where it has none.
std::string module_build_id(const LibdwLibrary& dw, Dwfl_Module* module);

// The build-id of the ELF file at `path` (lowercase hex), "" where it has none or
// cannot be read (or libdw is not loaded).
std::string elf_file_build_id(const std::string& path);

}  // namespace computeprof::symbols
