#pragma once
// Which loaded object holds a code address, whether it was loaded after another, and
// whether it defines a symbol itself, read from its own dynamic symbol table: no
// dlopen, no allocation (the exported dlsym asks these). Inline:
// compiled into dlsym's uninstrumented callers (CMakeLists.txt).
#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstring>

namespace computeprof::shim {

inline link_map* object_at(const void* address) {
  Dl_info info;
  link_map* map = nullptr;
  if (!address || !dladdr1(address, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP)) return nullptr;
  return map;
}

// Whether the object `address` lies in comes after the one `reference` lies in, in the
// process's load order (preloaded libraries in their LD_PRELOAD order, then the
// program's libraries, then those opened later).
inline bool loaded_after(const void* address, const void* reference) {
  link_map* map = object_at(address);
  link_map* ref = object_at(reference);
  if (!map || !ref || map == ref) return false;
  for (const link_map* m = ref->l_next; m; m = m->l_next) {
    if (m == map) return true;
  }
  return false;
}

// Whether the object `address` lies in defines `name` (GNU hash table; an object
// without one counts as not defining it).
inline bool object_defines(const void* address, const char* name) {
  link_map* map = object_at(address);
  if (!map || !name || !map->l_ld) return false;
  // glibc relocates these entries in place where the dynamic section is writable; not
  // where it is read-only.
  auto at = [map](ElfW(Addr) p) { return p < map->l_addr ? p + map->l_addr : p; };
  const ElfW(Sym)* symbols = nullptr;
  const char* strings = nullptr;
  const std::uint32_t* hash = nullptr;
  for (const ElfW(Dyn)* d = map->l_ld; d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_SYMTAB) symbols = reinterpret_cast<const ElfW(Sym)*>(at(d->d_un.d_ptr));
    if (d->d_tag == DT_STRTAB) strings = reinterpret_cast<const char*>(at(d->d_un.d_ptr));
    if (d->d_tag == DT_GNU_HASH) hash = reinterpret_cast<const std::uint32_t*>(at(d->d_un.d_ptr));
  }
  if (!symbols || !strings || !hash || hash[0] == 0) return false;
  const std::uint32_t buckets_count = hash[0];
  const std::uint32_t first_hashed = hash[1];
  const std::uint32_t bloom_words = hash[2];
  const auto* buckets = reinterpret_cast<const std::uint32_t*>(reinterpret_cast<const ElfW(Addr)*>(hash + 4) + bloom_words);
  const std::uint32_t* chain = buckets + buckets_count;
  std::uint32_t h = 5381;
  for (const char* c = name; *c; ++c) h = h * 33 + static_cast<unsigned char>(*c);
  std::uint32_t index = buckets[h % buckets_count];
  if (index < first_hashed) return false;
  for (;; ++index) {
    const std::uint32_t entry = chain[index - first_hashed];
    const ElfW(Sym)& sym = symbols[index];
    if ((entry | 1) == (h | 1) && std::strcmp(strings + sym.st_name, name) == 0) {
      return sym.st_shndx != SHN_UNDEF && sym.st_value != 0;
    }
    if (entry & 1) return false;
  }
}

}  // namespace computeprof::shim
