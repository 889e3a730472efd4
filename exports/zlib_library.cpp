#include "exports/zlib_library.hpp"

#include "exports/loaded_library.hpp"

namespace computeprof::exports {
namespace {

// Every function, the first missing one the error (`&`, not `&&`: all are tried).
bool resolve_all(LibraryLoader& l, ZlibLibrary& z) {
  return l.resolve(z.deflate_init2, "deflateInit2_") & l.resolve(z.deflate, "deflate") &
         l.resolve(z.deflate_reset, "deflateReset") & l.resolve(z.deflate_end, "deflateEnd") &
         l.resolve(z.version, "zlibVersion");
}

}  // namespace

const ZlibLibrary* zlib_library(std::string& error) { return load_library_once<ZlibLibrary>("libz.so.1", resolve_all, error); }

}  // namespace computeprof::exports
