#include "symbols/debug_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "symbols/debug_file_directory.hpp"

namespace computeprof::symbols {
namespace {

std::string hex(const unsigned char* bytes, int length) {
  std::string out;
  for (int i = 0; i < length; ++i) fmt::format_to(std::back_inserter(out), "{:02x}", bytes[i]);
  return out;
}

// The CRC-32 .gnu_debuglink records (that of zlib's crc32), of the whole file; false
// where it cannot be read.
bool file_crc(const std::string& path, GElf_Word& crc) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) != 0 ? 0xedb88320U ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::vector<unsigned char> buffer(1 << 16);
  std::uint32_t c = 0xffffffffU;
  ssize_t n = 0;
  while ((n = ::read(fd, buffer.data(), buffer.size())) > 0) {
    for (ssize_t i = 0; i < n; ++i) c = table[(c ^ buffer[static_cast<std::size_t>(i)]) & 0xff] ^ (c >> 8);
  }
  ::close(fd);
  crc = c ^ 0xffffffffU;
  return n == 0;
}

}  // namespace

std::string module_build_id(const LibdwLibrary& dw, Dwfl_Module* module) {
  const unsigned char* bits = nullptr;
  GElf_Addr vaddr = 0;
  const int length = dw.dwfl_module_build_id(module, &bits, &vaddr);
  return length > 0 ? hex(bits, length) : std::string();
}

int find_local_debuginfo(Dwfl_Module* module, void** /*userdata*/, const char* module_name, GElf_Addr /*base*/,
                         const char* file_name, const char* debuglink_file, GElf_Word debuglink_crc,
                         char** debuginfo_file_name) {
  const LibdwLibrary* dw = libdw_library();
  const std::string binary = file_name != nullptr ? file_name : module_name != nullptr ? module_name : "";
  if (dw == nullptr || binary.empty()) {
    errno = ENOENT;
    return -1;
  }
  // libdwfl asks the same callback for a dwz file (.gnu_debugaltlink), naming it and CRC
  // 0: its build-id is not the module's, and the module's debug file must not be taken
  // for it. Left to libdw, which finds it on disk (by its build-id under /usr/lib/debug,
  // or at its name), checked, and never through debuginfod.
  GElf_Addr elf_bias = 0;
  GElf_Word own_crc = 0;
  Elf* elf = dw->dwfl_module_getelf(module, &elf_bias);
  const char* own_link = elf != nullptr ? dw->dwelf_elf_gnu_debuglink(elf, &own_crc) : nullptr;
  if (debuglink_file != nullptr &&
      (own_link == nullptr || std::strcmp(own_link, debuglink_file) != 0 || own_crc != debuglink_crc)) {
    errno = ENOENT;
    return -1;
  }
  const std::string build_id = module_build_id(*dw, module);
  const std::filesystem::path root(debug_file_directory());
  std::vector<std::filesystem::path> candidates;
  if (build_id.size() > 2) {
    candidates.push_back(root / ".build-id" / build_id.substr(0, 2) / (build_id.substr(2) + ".debug"));
  }
  // A debuglink is a file name: one naming a directory is not followed.
  const std::string_view link = debuglink_file != nullptr ? debuglink_file : "";
  if (!link.empty() && link.find('/') == std::string_view::npos && link != "." && link != "..") {
    const std::filesystem::path directory = std::filesystem::path(binary).parent_path();
    candidates.push_back(directory / link);
    candidates.push_back(directory / ".debug" / link);
    candidates.push_back(root / directory.relative_path() / link);
  }
  for (const std::filesystem::path& candidate : candidates) {
    if (candidate == std::filesystem::path(binary) || ::access(candidate.c_str(), R_OK) != 0) continue;
    if (build_id.empty()) {
      GElf_Word crc = 0;
      if (link.empty() || !file_crc(candidate.string(), crc) || crc != debuglink_crc) continue;
    } else if (elf_file_build_id(candidate.string()) != build_id) {
      continue;
    }
    const int fd = ::open(candidate.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    *debuginfo_file_name = ::strdup(candidate.c_str());  // libdwfl frees it
    return fd;
  }
  errno = ENOENT;
  return -1;
}

std::string elf_file_build_id(const std::string& path) {
  const LibdwLibrary* dw = libdw_library();
  if (dw == nullptr) return {};
  Dwfl_Callbacks callbacks{};
  callbacks.find_debuginfo = find_local_debuginfo;
  callbacks.section_address = dw->dwfl_offline_section_address;
  Dwfl* dwfl = dw->dwfl_begin(&callbacks);
  if (dwfl == nullptr) return {};
  dw->dwfl_report_begin(dwfl);
  Dwfl_Module* module = dw->dwfl_report_elf(dwfl, path.c_str(), path.c_str(), -1, 0, false);
  dw->dwfl_report_end(dwfl, nullptr, nullptr);
  std::string out = module != nullptr ? module_build_id(*dw, module) : std::string();
  dw->dwfl_end(dwfl);
  return out;
}

}  // namespace computeprof::symbols
