#include "symbols/loaded_modules.hpp"

#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <string_view>

#include <fmt/format.h>

namespace computeprof::symbols {
namespace {

// The program's path; the kernel marks a program removed since it started " (deleted)",
// which is not part of its name (the file there now, if any, is another one).
std::string program_path() {
  std::array<char, 4096> buffer{};
  const ssize_t n = ::readlink("/proc/self/exe", buffer.data(), buffer.size() - 1);
  std::string path = n > 0 ? std::string(buffer.data(), static_cast<std::size_t>(n)) : std::string();
  constexpr std::string_view kDeleted = " (deleted)";
  if (std::string_view(path).ends_with(kDeleted)) path.resize(path.size() - kDeleted.size());
  return path;
}

// The NT_GNU_BUILD_ID note of a loaded image's PT_NOTE segments.
std::string memory_build_id(const dl_phdr_info* info) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const auto* at = reinterpret_cast<const unsigned char*>(info->dlpi_addr + ph.p_vaddr);
    const unsigned char* end = at + ph.p_memsz;
    const auto align4 = [](std::size_t n) { return (n + 3) & ~std::size_t{3}; };
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) note;
      std::copy_n(at, sizeof note, reinterpret_cast<unsigned char*>(&note));
      const unsigned char* name = at + sizeof note;
      const unsigned char* desc = name + align4(note.n_namesz);
      if (desc > end || note.n_descsz > static_cast<std::size_t>(end - desc)) break;
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::equal(name, name + 4, "GNU")) {
        std::string out;
        for (std::size_t b = 0; b < note.n_descsz; ++b) fmt::format_to(std::back_inserter(out), "{:02x}", desc[b]);
        return out;
      }
      at = desc + align4(note.n_descsz);
    }
  }
  return {};
}

int note_module(dl_phdr_info* info, std::size_t, void* data) {
  auto* modules = static_cast<std::vector<LoadedModule>*>(data);
  LoadedModule m;
  bool first = true;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    // As libdwfl counts a module's first byte: the first segment's address, aligned.
    const std::uintptr_t align = ph.p_align > 1 ? ph.p_align : 1;
    const std::uintptr_t begin = info->dlpi_addr + (ph.p_vaddr & ~(align - 1));
    if (first) m.start = begin;
    first = false;
    m.start = std::min(m.start, begin);
    m.end = std::max<std::uintptr_t>(m.end, info->dlpi_addr + ph.p_vaddr + ph.p_memsz);
  }
  if (first) return 0;
  const char* name = info->dlpi_name;
  // The program itself has no name here; the vDSO's is not a file.
  if (name == nullptr || *name == '\0') {
    m.path = program_path();
  } else if (name[0] == '/') {
    m.path = name;
  } else {
    return 0;
  }
  m.build_id = memory_build_id(info);
  modules->push_back(std::move(m));
  return 0;
}

}  // namespace

void LoadedModules::refresh() {
  modules_.clear();
  dl_iterate_phdr(note_module, &modules_);
}

const LoadedModule* LoadedModules::find(std::uintptr_t address) {
  const auto holds = [address](const LoadedModule& m) { return address >= m.start && address < m.end; };
  for (int pass = 0; pass < 2; ++pass) {
    if (auto it = std::find_if(modules_.begin(), modules_.end(), holds); it != modules_.end()) return &*it;
    if (pass == 0) refresh();
  }
  return nullptr;
}

}  // namespace computeprof::symbols
