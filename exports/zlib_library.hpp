#pragma once
// zlib (Debian's zlib1g), loaded when an `export json.gz` needs it (loaded_library.hpp).
#include <zlib.h>

#include <string>

namespace computeprof::exports {

struct ZlibLibrary {
  decltype(&::deflateInit2_) deflate_init2 = nullptr;
  decltype(&::deflate) deflate = nullptr;
  decltype(&::deflateReset) deflate_reset = nullptr;
  decltype(&::deflateEnd) deflate_end = nullptr;
  decltype(&::zlibVersion) version = nullptr;
};

// Loaded once; null with `error` saying why when it cannot be.
const ZlibLibrary* zlib_library(std::string& error);

}  // namespace computeprof::exports
