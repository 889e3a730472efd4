// The shim's regular expression engine (config/regex_engine.hpp): RE2 behind
// libcomputeprof_re2.so, beside libcomputeprof.so, loaded when the first pattern is
// compiled. Not linked: libre2 and the C++ runtime it needs would be loaded into every
// process the shim is preloaded into, and RE2's symbols would become the process's, in
// the way of a program's own RE2 of another version (docs/design.md, "Parts").
#include <dlfcn.h>

#include <cstdio>
#include <string>

#include "config/regex_engine.hpp"

namespace {

struct RegexLibrary {
  decltype(&computeprof_regex_compile) compile = nullptr;
  decltype(&computeprof_regex_search) search = nullptr;
  decltype(&computeprof_regex_free) release = nullptr;
  std::string why;  // why it is not loaded, when it is not
};

// RTLD_DEEPBIND: the library and the libre2 it brings bind to each other before the
// process's scope, where a program's own RE2 of another version may already be. Not
// under a sanitizer's runtime, which refuses it (and then knows every library anyway).
int open_flags() {
  const bool sanitized = dlsym(RTLD_DEFAULT, "__sanitizer_print_stack_trace") != nullptr;
  return RTLD_NOW | RTLD_LOCAL | (sanitized ? 0 : RTLD_DEEPBIND);
}

RegexLibrary load() {
  RegexLibrary out;
  Dl_info self{};
  if (!dladdr(reinterpret_cast<void*>(&computeprof_regex_compile), &self) || !self.dli_fname) {
    out.why = "the shim's own path is unknown";
    return out;
  }
  std::string path = self.dli_fname;
  path.replace(path.rfind('/') + 1, std::string::npos, "libcomputeprof_re2.so");
  void* library = dlopen(path.c_str(), open_flags());
  if (!library) {
    const char* error = dlerror();
    out.why = error ? error : path + ": cannot be opened";
    return out;
  }
  out.compile = reinterpret_cast<decltype(out.compile)>(dlsym(library, "computeprof_regex_compile"));
  out.search = reinterpret_cast<decltype(out.search)>(dlsym(library, "computeprof_regex_search"));
  out.release = reinterpret_cast<decltype(out.release)>(dlsym(library, "computeprof_regex_free"));
  if (!out.compile || !out.search || !out.release) out.why = path + ": not computeprof's RE2 library";
  return out;
}

const RegexLibrary& regex_library() {
  static const RegexLibrary loaded = load();
  return loaded;
}

}  // namespace

// The functions config/regex_engine.hpp declares (C linkage, from there), for the shim.
computeprof_regex* computeprof_regex_compile(const char* pattern, size_t size, char* error, size_t error_size) {
  const RegexLibrary& library = regex_library();
  if (library.why.empty()) return library.compile(pattern, size, error, error_size);
  std::snprintf(error, error_size, "no regular expression engine (%s)", library.why.c_str());
  return nullptr;
}

// Only a pattern compiled by the library exists to be searched or freed.
int computeprof_regex_search(const computeprof_regex* regex, const char* text, size_t size) {
  return regex_library().search(regex, text, size);
}

void computeprof_regex_free(computeprof_regex* regex) { regex_library().release(regex); }
