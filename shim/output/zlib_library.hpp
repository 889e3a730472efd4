#pragma once
// zlib, loaded when an `export json.gz` needs it: a DT_NEEDED would load it into every
// process the library is preloaded into, profiled or not (Debian's zlib1g).
#include <zlib.h>

#include <string>

namespace computeprof::shim {

struct ZlibLibrary {
  decltype(&::deflateInit2_) deflate_init2 = nullptr;
  decltype(&::deflate) deflate = nullptr;
  decltype(&::deflateReset) deflate_reset = nullptr;
  decltype(&::deflateEnd) deflate_end = nullptr;
  decltype(&::zlibVersion) version = nullptr;
};

// Loaded once; null with `error` saying why when it cannot be.
const ZlibLibrary* zlib_library(std::string& error);

}  // namespace computeprof::shim
