#pragma once
// The regular expression engine behind config::NamePattern, as three C functions over
// RE2 (config/regex_engine.cpp): linked into the computeprof command, the tests and the
// benches, and built as libcomputeprof_re2.so, which the shim loads at run time
// (shim/process/regex_library.cpp). C, so that the shim and that library share no C++
// runtime across the call.
#include <stddef.h>

extern "C" {

struct computeprof_regex;

// `pattern` (`size` bytes) compiled; null on failure, with RE2's reason in `error`
// (NUL-terminated, cut to `error_size` bytes).
computeprof_regex* computeprof_regex_compile(const char* pattern, size_t size, char* error, size_t error_size);

// 1 when `regex` matches somewhere in `text` (`size` bytes), else 0.
int computeprof_regex_search(const computeprof_regex* regex, const char* text, size_t size);

void computeprof_regex_free(computeprof_regex* regex);

}
