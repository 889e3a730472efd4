#pragma once
// Whole-file reads and writes, with errno left for the caller's message.
#include <optional>
#include <string>
#include <string_view>

namespace computeprof::tools {

// The file's bytes; nullopt with errno set when it cannot be opened or read.
std::optional<std::string> read_text_file(const std::string& path);

// Writes all of `text` to `fd`; false with errno set on failure.
bool write_all(int fd, std::string_view text);

}  // namespace computeprof::tools
