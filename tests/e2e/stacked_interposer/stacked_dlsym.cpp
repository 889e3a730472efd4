// A dlsym-hooking layer as GPU-sharing limiters and other tools preload it beside
// computeprof: it exports dlsym, notes the name of every driver lookup it sees, and
// passes each on to the next dlsym, which it finds the way STACKED_NEXT_DLSYM says:
//   v2.34  dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34")
//   base   dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5")
//   plain  glibc's dlsym(RTLD_NEXT, "dlsym"), whatever version the next one has
// At exit the names it saw are written to STACKED_SEEN_FILE, one per line.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace {

using Dlsym = void* (*)(void*, const char*);

std::mutex g_mutex;
std::vector<std::string>* g_seen = nullptr;

Dlsym next_dlsym() {
  static Dlsym next = [] {
    const char* how = std::getenv("STACKED_NEXT_DLSYM");
    auto glibc = reinterpret_cast<Dlsym>(dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34"));
    if (how && std::strcmp(how, "base") == 0) return reinterpret_cast<Dlsym>(dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5"));
    if (how && std::strcmp(how, "plain") == 0) return reinterpret_cast<Dlsym>(glibc(RTLD_NEXT, "dlsym"));
    return glibc;
  }();
  return next;
}

void write_seen() {
  const char* path = std::getenv("STACKED_SEEN_FILE");
  std::lock_guard lock(g_mutex);
  if (!path || !g_seen) return;
  if (FILE* f = std::fopen(path, "w")) {
    for (const auto& name : *g_seen) std::fprintf(f, "%s\n", name.c_str());
    std::fclose(f);
  }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void* dlsym(void* handle, const char* name) {
  if (name && name[0] == 'c' && name[1] == 'u') {
    std::lock_guard lock(g_mutex);
    if (!g_seen) {
      g_seen = new std::vector<std::string>;
      std::atexit(write_seen);
    }
    g_seen->emplace_back(name);
  }
  return next_dlsym()(handle, name);
}
