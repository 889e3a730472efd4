#pragma once
// A run file's bytes, read into memory whole: as it is when read (a running process's
// file holds what it flushed so far; a copy, not a mapping, so that a file cut short
// meanwhile cannot fault the reader). Only a regular file, never through a symbolic
// link at its last component.
#include <optional>
#include <string>

namespace computeprof::runfile {

// Nullopt, with `why` ("No such file or directory", "not a regular file"), when the
// file cannot be read.
std::optional<std::string> read_file_bytes(const std::string& path, std::string& why);

}  // namespace computeprof::runfile
