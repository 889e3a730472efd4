#include "symbols/symbolizer.hpp"

#include <cxxabi.h>
#include <dwarf.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "config/report.hpp"
#include "symbols/debug_file.hpp"
#include "symbols/debug_file_directory.hpp"
#include "symbols/libdw_library.hpp"

namespace computeprof::symbols {
namespace {

std::string demangled(const char* symbol) {
  int status = 0;
  char* text = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
  if (status != 0 || text == nullptr) return symbol;
  std::string out(text);
  std::free(text);
  return out;
}

// "a/b/../c" as "a/c": DWARF joins a compilation directory and a relative name.
std::string tidy_path(const char* path) { return std::filesystem::path(path).lexically_normal().string(); }

// Where the file at `path` is shorter than its ELF header says (its program headers,
// segments or section headers end past it), what it lacks; "" where it is whole (or
// not ELF: libdwfl says why). libdwfl reads a truncated file's first parts and names
// nothing from the rest without a word.
template <typename Ehdr, typename Phdr>
std::string truncation(int fd, std::uint64_t size) {
  Ehdr header;
  if (::pread(fd, &header, sizeof header, 0) != static_cast<ssize_t>(sizeof header)) return {};
  std::uint64_t needed = std::uint64_t{header.e_shoff} + std::uint64_t{header.e_shnum} * header.e_shentsize;
  needed = std::max(needed, std::uint64_t{header.e_phoff} + std::uint64_t{header.e_phnum} * header.e_phentsize);
  for (unsigned i = 0; i < header.e_phnum && header.e_phentsize == sizeof(Phdr); ++i) {
    Phdr ph;
    if (::pread(fd, &ph, sizeof ph, static_cast<off_t>(header.e_phoff + i * sizeof ph)) != static_cast<ssize_t>(sizeof ph)) {
      break;
    }
    if (ph.p_type == PT_LOAD) needed = std::max(needed, std::uint64_t{ph.p_offset} + ph.p_filesz);
  }
  return needed > size ? fmt::format("truncated: {} bytes, its headers describe {}", size, needed) : std::string();
}

std::string truncation_of(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string out;
  struct stat st {};
  unsigned char ident[EI_NIDENT] = {};
  if (::fstat(fd, &st) == 0 && ::pread(fd, ident, sizeof ident, 0) == static_cast<ssize_t>(sizeof ident)) {
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (ident[EI_CLASS] == ELFCLASS64) out = truncation<Elf64_Ehdr, Elf64_Phdr>(fd, size);
    if (ident[EI_CLASS] == ELFCLASS32) out = truncation<Elf32_Ehdr, Elf32_Phdr>(fd, size);
  }
  ::close(fd);
  return out;
}

void say(const std::string& path, std::string_view what) {
  config::warn_once(fmt::format("call stacks: {}: {}; its frames keep module+offset", config::escape_for_warning(path), what));
}

}  // namespace

struct Symbolizer::OpenModule {
  const LibdwLibrary* dw = nullptr;
  Dwfl_Callbacks callbacks{};
  Dwfl* dwfl = nullptr;
  Dwfl_Module* module = nullptr;  // nullptr: names nothing
  Dwarf_Addr low = 0;
  bool dwarf_checked = false;

  ~OpenModule() {
    if (dwfl != nullptr) dw->dwfl_end(dwfl);
  }
};

Symbolizer::Symbolizer(std::string_view without_libdw) {
  std::string why;
  available_ = libdw_library(&why) != nullptr;
  if (!available_) config::warn_once(fmt::format("call stacks: libdw not loaded: {}; {} (install libdw1)", why, without_libdw));
}

Symbolizer::~Symbolizer() = default;

Symbolizer::OpenModule* Symbolizer::open(const ModuleIdentity& identity) {
  auto& slot = modules_[identity.path];
  if (slot) return slot.get();
  slot = std::make_unique<OpenModule>();
  OpenModule& m = *slot;
  m.dw = libdw_library();
  if (m.dw == nullptr || identity.path.empty()) return &m;
  const LibdwLibrary& dw = *m.dw;
  // Debug files from this machine only: libdwfl's standard search may ask debuginfod.
  m.callbacks.find_debuginfo = find_local_debuginfo;
  m.callbacks.section_address = dw.dwfl_offline_section_address;
  m.dwfl = dw.dwfl_begin(&m.callbacks);
  if (m.dwfl == nullptr) return &m;
  dw.dwfl_report_begin(m.dwfl);
  // Reported at bias 0: an address is the module's first byte plus the offset.
  Dwfl_Module* module = dw.dwfl_report_elf(m.dwfl, identity.path.c_str(), identity.path.c_str(), -1, 0, false);
  dw.dwfl_report_end(m.dwfl, nullptr, nullptr);
  if (module == nullptr) {
    say(identity.path, fmt::format("not read: {}", dw.dwfl_errmsg(-1)));
    return &m;
  }
  if (const std::string truncated = truncation_of(identity.path); !truncated.empty()) {
    say(identity.path, fmt::format("not read: {}", truncated));
    return &m;
  }
  const std::string build_id = module_build_id(dw, module);
  if (!identity.build_id.empty() && build_id != identity.build_id) {
    say(identity.path, fmt::format("not the file the stack was captured in (build-id {}, not {})",
                                   build_id.empty() ? "none" : build_id, identity.build_id));
    return &m;
  }
  dw.dwfl_module_info(module, nullptr, &m.low, nullptr, nullptr, nullptr, nullptr, nullptr);
  m.module = module;
  return &m;
}

std::string Symbolizer::file_build_id(const std::string& path) { return elf_file_build_id(path); }

namespace {

// A function's name in DWARF: its linkage name demangled (what the symbol table says,
// with the parameters), else its name; through DW_AT_abstract_origin and
// DW_AT_specification.
std::string die_function_name(const LibdwLibrary& dw, Dwarf_Die* die) {
  Dwarf_Attribute attribute;
  for (const unsigned name : {unsigned{DW_AT_linkage_name}, unsigned{DW_AT_MIPS_linkage_name}}) {
    if (dw.dwarf_attr_integrate(die, name, &attribute) != nullptr) {
      if (const char* text = dw.dwarf_formstring(&attribute)) return demangled(text);
    }
  }
  if (dw.dwarf_attr_integrate(die, DW_AT_name, &attribute) != nullptr) {
    if (const char* text = dw.dwarf_formstring(&attribute)) return text;
  }
  return "??";
}

// Where an inlined function was called: its DW_AT_call_file and DW_AT_call_line.
void call_site(const LibdwLibrary& dw, Dwarf_Die* cu, Dwarf_Die* inlined, std::string& file, unsigned& line) {
  file.clear();
  line = 0;
  Dwarf_Attribute attribute;
  Dwarf_Word file_index = 0;
  Dwarf_Word line_number = 0;
  if (dw.dwarf_formudata(dw.dwarf_attr_integrate(inlined, DW_AT_call_line, &attribute), &line_number) == 0) {
    line = static_cast<unsigned>(line_number);
  }
  Dwarf_Files* files = nullptr;
  std::size_t count = 0;
  if (dw.dwarf_formudata(dw.dwarf_attr_integrate(inlined, DW_AT_call_file, &attribute), &file_index) == 0 &&
      dw.dwarf_getsrcfiles(cu, &files, &count) == 0 && file_index < count) {
    if (const char* name = dw.dwarf_filesrc(files, file_index, nullptr, nullptr)) file = tidy_path(name);
  }
  if (file.empty()) line = 0;
}

}  // namespace

std::vector<Frame> Symbolizer::frames(const ModuleIdentity& identity, std::uintptr_t offset) {
  std::vector<Frame> out;
  if (!available_) return out;
  OpenModule* m = open(identity);
  if (m == nullptr || m->module == nullptr) return out;
  const LibdwLibrary& dw = *m->dw;
  const Dwarf_Addr address = m->low + offset;

  // The function from the symbol table; a symbol that does not cover the address (a
  // stripped program's nearest export) names nothing.
  std::string symbol;
  GElf_Off symbol_offset = 0;
  GElf_Sym sym{};
  if (const char* name = dw.dwfl_module_addrinfo(m->module, address, &symbol_offset, &sym, nullptr, nullptr, nullptr)) {
    const int type = GELF_ST_TYPE(sym.st_info);
    if ((type == STT_FUNC || type == STT_GNU_IFUNC) && *name != '\0' && (sym.st_size == 0 || symbol_offset < sym.st_size)) {
      // "__libc_start_main@@GLIBC_2.34": the symbol table's version suffix is not the name.
      const std::string_view unversioned = std::string_view(name).substr(0, std::string_view(name).find('@'));
      symbol = demangled(std::string(unversioned).c_str());
    }
  }

  Frame innermost;
  innermost.module = identity.path;
  innermost.offset = offset;
  Dwarf_Addr bias = 0;
  Dwarf_Die* cu = dw.dwfl_module_addrdie(m->module, address, &bias);
  if (!m->dwarf_checked) {
    m->dwarf_checked = true;
    Dwarf_Addr dwarf_bias = 0;
    if (dw.dwfl_module_getdwarf(m->module, &dwarf_bias) == nullptr) {
      // No DWARF: say so only where a debug file was named and is there, but was not
      // taken (it does not match the binary).
      GElf_Addr elf_bias = 0;
      GElf_Word crc = 0;
      Elf* elf = dw.dwfl_module_getelf(m->module, &elf_bias);
      const char* link = elf != nullptr ? dw.dwelf_elf_gnu_debuglink(elf, &crc) : nullptr;
      if (link != nullptr && std::string_view(link).find('/') == std::string_view::npos) {
        const std::filesystem::path directory = std::filesystem::path(identity.path).parent_path();
        for (const std::filesystem::path& candidate :
             {directory / link, directory / ".debug" / link,
              std::filesystem::path(debug_file_directory()) / directory.relative_path() / link}) {
          if (candidate != std::filesystem::path(identity.path) && ::access(candidate.c_str(), F_OK) == 0) {
            config::warn_once(fmt::format("call stacks: {}: not the debug file of {} (build-id or CRC differs); its "
                                          "frames have no files and lines",
                                          config::escape_for_warning(candidate.string()),
                                          config::escape_for_warning(identity.path)));
            break;
          }
        }
      }
    }
  }
  if (Dwfl_Line* line = dw.dwfl_module_getsrc(m->module, address)) {
    int line_number = 0;
    if (const char* file = dw.dwfl_lineinfo(line, nullptr, &line_number, nullptr, nullptr, nullptr)) {
      innermost.file = tidy_path(file);
      innermost.line = static_cast<unsigned>(line_number);
    }
  }

  // The scopes at the address, innermost first; an inlined function's are those of its
  // abstract definition, so the chain of the functions it was inlined into comes from
  // its instance (dwarf_getscopes_die), as eu-addr2line -i reads it.
  Dwarf_Die* scopes = nullptr;
  int count = cu != nullptr ? dw.dwarf_getscopes(cu, address - bias, &scopes) : -1;
  for (int i = 0; i < count; ++i) {
    const int tag = dw.dwarf_tag(&scopes[i]);
    if (tag == DW_TAG_inlined_subroutine) {
      Dwarf_Die instance = scopes[i];
      std::free(scopes);
      scopes = nullptr;
      count = dw.dwarf_getscopes_die(&instance, &scopes);
      break;
    }
    if (tag == DW_TAG_subprogram) {
      std::swap(scopes[0], scopes[i]);
      count = 1;
      break;
    }
  }
  std::string file = innermost.file;
  unsigned line = innermost.line;
  for (int i = 0; i < count; ++i) {
    const int tag = dw.dwarf_tag(&scopes[i]);
    if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram) continue;
    Frame frame = innermost;
    frame.file = file;
    frame.line = line;
    frame.inlined = tag == DW_TAG_inlined_subroutine;
    frame.function = tag == DW_TAG_subprogram && !symbol.empty() ? symbol : die_function_name(dw, &scopes[i]);
    out.push_back(std::move(frame));
    if (tag == DW_TAG_subprogram) break;
    call_site(dw, cu, &scopes[i], file, line);
  }
  std::free(scopes);
  if (out.empty() || out.back().inlined) {
    // No DWARF function here (or only inlined ones, the holder's DIE missing): the
    // symbol names the function that holds the call. A line outside every function
    // DWARF describes (code without DWARF, as crt1's _start) is not taken.
    Frame frame = innermost;
    frame.file = out.empty() ? std::string() : file;
    frame.line = out.empty() ? 0 : line;
    frame.function = symbol.empty() ? "??" : symbol;
    if (frame.function == "??" && out.empty()) return out;
    out.push_back(std::move(frame));
  }
  return out;
}

}  // namespace computeprof::symbols
