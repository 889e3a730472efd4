#pragma once
// Text as complete gzip members (RFC 1952): each call compresses its text into one
// member of its own, so that a file of such members, cut after any of them, is a gzip
// file that `gzip -t` accepts and that decompresses to the text up to there.
#include <string>
#include <string_view>

#include "exports/zlib_library.hpp"

namespace computeprof::exports {

class GzipMembers {
 public:
  GzipMembers() = default;
  GzipMembers(const GzipMembers&) = delete;
  GzipMembers& operator=(const GzipMembers&) = delete;
  ~GzipMembers();

  // Loads zlib and makes the compressor; false with `error` saying why.
  bool start(std::string& error);
  // Appends `text` as one member to `out`; false (nothing appended) if zlib fails.
  bool append_member(std::string_view text, std::string& out);

 private:
  const ZlibLibrary* zlib_ = nullptr;
  z_stream stream_{};
  bool started_ = false;
};

}  // namespace computeprof::exports
