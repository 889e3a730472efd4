#pragma once
// Whole-file reads (a file's first bytes too) and writes, with errno left for the caller's
// message.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace computeprof::tools {

// The file's bytes; nullopt with errno set when it cannot be opened or read.
std::optional<std::string> read_text_file(const std::string& path);

// Appends what `fd` reads until its end or until `text` holds `size` bytes, so that a
// caller can look at a file's first bytes and then read on (a pipe cannot be read
// twice); false with errno set on failure.
bool read_until_size(int fd, std::string& text, std::size_t size);

// Writes all of `text` to `fd`; false with errno set on failure.
bool write_all(int fd, std::string_view text);

}  // namespace computeprof::tools
