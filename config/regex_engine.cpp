#include "config/regex_engine.hpp"

#include <algorithm>
#include <cstring>
#include <new>

#include <re2/re2.h>

#define REGEX_ENGINE_EXPORT __attribute__((visibility("default")))

namespace {

// RE2's budget for one pattern (its default, stated): the compiled program and the
// caches of its DFAs. A search that would need more runs on RE2's NFA instead, still
// in time linear in the name's length.
constexpr std::int64_t kMaxMemoryBytes = 8 << 20;

}  // namespace

struct computeprof_regex {
  explicit computeprof_regex(const re2::StringPiece& pattern, const RE2::Options& options) : re(pattern, options) {}
  RE2 re;
};

extern "C" REGEX_ENGINE_EXPORT computeprof_regex* computeprof_regex_compile(const char* pattern, size_t size,
                                                                            char* error, size_t error_size) {
  RE2::Options options;
  options.set_log_errors(false);  // RE2 would print to stderr; the caller says what is wrong
  options.set_max_mem(kMaxMemoryBytes);
  auto* regex = new (std::nothrow) computeprof_regex(re2::StringPiece(pattern, size), options);
  if (regex && regex->re.ok()) return regex;
  const char* why = regex ? regex->re.error().c_str() : "out of memory";
  if (error_size > 0) {
    const size_t n = std::min(std::strlen(why), error_size - 1);
    std::memcpy(error, why, n);
    error[n] = '\0';
  }
  delete regex;
  return nullptr;
}

extern "C" REGEX_ENGINE_EXPORT int computeprof_regex_search(const computeprof_regex* regex, const char* text,
                                                            size_t size) {
  return RE2::PartialMatch(re2::StringPiece(text, size), regex->re) ? 1 : 0;
}

extern "C" REGEX_ENGINE_EXPORT void computeprof_regex_free(computeprof_regex* regex) { delete regex; }
