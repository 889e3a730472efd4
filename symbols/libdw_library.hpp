#pragma once
// elfutils' libdw (libdw.so.1: libdwfl, libdw, libdwelf), loaded at run time, privately
// (RTLD_LOCAL), the first time a frame is named; never linked: a program that does not
// ask for call stacks never loads it. COMPUTEPROF_LIBDW_LIBRARY names another file.
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>

#include <string>

namespace computeprof::symbols {

struct LibdwLibrary {
#define COMPUTEPROF_LIBDW_FUNCTION(name) decltype(&::name) name = nullptr;
#include "symbols/libdw_functions.def"
#undef COMPUTEPROF_LIBDW_FUNCTION
};

// The loaded library's functions, or nullptr where it cannot be loaded; then `why`
// (once) says why. Thread-safe; loads once.
const LibdwLibrary* libdw_library(std::string* why = nullptr);

}  // namespace computeprof::symbols
