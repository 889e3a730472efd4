#include "shim/process/call_stacks.hpp"

#include <cxxabi.h>
#include <dlfcn.h>
#include <link.h>
#include <unwind.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "config/report.hpp"
#include "shim/process/lifecycle.hpp"
#include "symbols/loaded_modules.hpp"


namespace computeprof::shim {
namespace {

constexpr std::size_t kMaxFrames = 128;

// The shim's own code: frames there are not the program's.
struct TextRange {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
};

int find_own_text(dl_phdr_info* info, std::size_t, void* data) {
  auto* range = static_cast<TextRange*>(data);
  const auto self = reinterpret_cast<std::uintptr_t>(&find_own_text);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    const std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    if (self >= begin && self < begin + ph.p_memsz) {
      *range = {begin, begin + ph.p_memsz};
      return 1;
    }
  }
  return 0;
}

const TextRange& own_text() {
  static const TextRange range = [] {
    TextRange r;
    dl_iterate_phdr(find_own_text, &r);
    return r;
  }();
  return range;
}

struct Unwinding {
  std::array<std::uintptr_t, kMaxFrames> frames;
  std::size_t count = 0;
  std::size_t wanted = 0;
  TextRange own;
};

// libunwind's unw_backtrace: about 20 times faster than libgcc's unwinder at depth 32
// (bench/stack_capture), since it caches each return address's frame layout per thread.
// Loaded only when call stacks are asked for, with RTLD_LOCAL: it also defines the
// _Unwind_* functions and backtrace(), which must stay the program's own. Without it
// every capture costs microseconds (docs/validation/2026-11-26-h200-run2.md), which
// one line tells the user.
using UnwBacktrace = int (*)(void** buffer, int size);

UnwBacktrace libunwind_backtrace() {
  static const UnwBacktrace function = []() -> UnwBacktrace {
    const char* chosen = std::getenv("COMPUTEPROF_LIBUNWIND_LIBRARY");
    const std::string name = chosen != nullptr && *chosen != '\0' ? chosen : "libunwind.so.8";
    void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    const auto found = library ? reinterpret_cast<UnwBacktrace>(dlsym(library, "unw_backtrace")) : nullptr;
    if (found == nullptr) {
      const char* error = library ? nullptr : dlerror();
      const std::string why = library ? name + ": has no unw_backtrace" : error ? error : name + ": cannot be opened";
      config::warn_once(fmt::format("call stacks: libunwind not loaded: {}; libgcc's unwinder captures them, about "
                                    "13 times slower (install libunwind8)",
                                    why));
    }
    return found;
  }();
  return function;
}

// The shim's frames on top of the program's: capture_call_stack, intern's caller, the
// wrapper and its helpers. Captures with libunwind take this many more, then drop them.
constexpr std::size_t kMostOwnFrames = 8;

// The program's frames (up to `wanted`) of what unw_backtrace gave: the leading frames
// in the shim's code left out.
std::span<const std::uintptr_t> program_frames(std::span<const std::uintptr_t> captured, const TextRange& own,
                                               std::size_t wanted) {
  std::size_t first = 0;
  while (first < captured.size() && captured[first] >= own.begin && captured[first] < own.end) ++first;
  return captured.subspan(first, std::min(wanted, captured.size() - first));
}

_Unwind_Reason_Code note_frame(_Unwind_Context* context, void* data) {
  auto* u = static_cast<Unwinding*>(data);
  const std::uintptr_t ip = _Unwind_GetIP(context);
  if (ip == 0) return _URC_END_OF_STACK;
  // The shim's frames are the innermost ones: skipped until the program's first.
  if (u->count == 0 && ip >= u->own.begin && ip < u->own.end) return _URC_NO_REASON;
  u->frames[u->count++] = ip;
  return u->count == u->wanted ? _URC_END_OF_STACK : _URC_NO_REASON;
}

std::uint64_t hash_frames(std::span<const std::uintptr_t> frames) {
  std::uint64_t h = 0xcbf29ce484222325u ^ frames.size();
  for (std::uintptr_t f : frames) h = (h ^ f) * 0x100000001b3u;
  return h ^ (h >> 29);
}

// Every distinct stack, numbered from 1; entries never move nor change once made.
struct StackTable {
  std::mutex mutex;
  std::deque<std::vector<std::uintptr_t>> stacks;
  std::unordered_multimap<std::uint64_t, std::uint32_t> by_hash;
  std::unordered_map<std::uint32_t, std::vector<StackFrame>> symbolized;  // under symbolizing
};

// Held while frames are named: the writer and the exports' threads name stacks.
constinit std::mutex symbolizing;

// What names frames: under `symbolizing`.
struct FrameNames {
  symbols::LoadedModules modules;
  std::unique_ptr<symbols::Symbolizer> symbolizer;  // made (and libdw loaded) at the first frame
  std::unordered_map<std::uintptr_t, std::vector<StackFrame>> by_address;
  std::vector<symbols::ModuleIdentity> used;
  std::unordered_map<std::string, std::size_t> used_index;
};

FrameNames& frame_names() {
  static auto* names = new FrameNames;  // leaked: read until exit
  return *names;
}

// Fork with the table's lock held by another thread would leave the child's locked.
void lock_for_fork();
void unlock_after_fork();

StackTable& table() {
  static auto* t = [] {
    auto* made = new StackTable;  // leaked: read until exit
    add_lifecycle_handlers(LifecycleStage::contexts,
                           {nullptr, lock_for_fork, unlock_after_fork, unlock_after_fork, nullptr});
    return made;
  }();
  return *t;
}

void lock_for_fork() { table().mutex.lock(); }
void unlock_after_fork() { table().mutex.unlock(); }

// Per thread: recent stacks by hash, pointing into the table (no lock to read them).
struct CachedStack {
  std::uint64_t hash = 0;
  std::uint32_t id = 0;
  const std::vector<std::uintptr_t>* frames = nullptr;
};
constexpr std::size_t kThreadCache = 256;
thread_local std::array<CachedStack, kThreadCache> t_stacks;

// The thread's last stack: a loop that launches from one call site finds it without
// hashing (the hash's chain of multiplications costs more than the comparison).
thread_local const CachedStack* t_last_stack = nullptr;

std::uint32_t intern(std::span<const std::uintptr_t> frames) {
  if (const CachedStack* last = t_last_stack;
      last != nullptr && std::equal(frames.begin(), frames.end(), last->frames->begin(), last->frames->end())) {
    return last->id;
  }
  const std::uint64_t h = hash_frames(frames);
  CachedStack& slot = t_stacks[h % kThreadCache];
  if (slot.id != 0 && slot.hash == h && std::equal(frames.begin(), frames.end(), slot.frames->begin(), slot.frames->end())) {
    t_last_stack = &slot;
    return slot.id;
  }
  StackTable& t = table();
  std::lock_guard lock(t.mutex);
  std::uint32_t id = 0;
  const auto [first, last] = t.by_hash.equal_range(h);
  for (auto it = first; it != last && id == 0; ++it) {
    const auto& known = t.stacks[it->second - 1];
    if (std::equal(frames.begin(), frames.end(), known.begin(), known.end())) id = it->second;
  }
  if (id == 0) {
    t.stacks.emplace_back(frames.begin(), frames.end());
    id = static_cast<std::uint32_t>(t.stacks.size());
    t.by_hash.emplace(h, id);
  }
  slot = {h, id, &t.stacks[id - 1]};
  t_last_stack = &slot;
  return id;
}

std::string demangled(const char* symbol) {
  int status = 0;
  char* text = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
  if (status != 0 || !text) return symbol;
  std::string out(text);
  std::free(text);
  return out;
}

// A frame from the exported symbols alone: what the dynamic linker knows (dladdr).
StackFrame exported_symbol_frame(std::uintptr_t call, const symbols::LoadedModule* module) {
  StackFrame frame;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(call), &info) != 0) {
    if (info.dli_fname) frame.module = info.dli_fname;
    frame.offset = call - reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    if (info.dli_sname) frame.function = demangled(info.dli_sname);
  }
  if (module != nullptr) {
    frame.module = module->path;
    frame.offset = call - module->start;
  }
  return frame;
}

const std::vector<StackFrame>& frames_at(std::uintptr_t ip) {
  FrameNames& names = frame_names();
  if (auto it = names.by_address.find(ip); it != names.by_address.end()) return it->second;
  if (!names.symbolizer) {
    names.symbolizer =
        std::make_unique<symbols::Symbolizer>("frames are named from exported symbols only, without files and lines");
  }
  // The call instruction, not the one after it (which may be another function's).
  const std::uintptr_t call = ip - 1;
  const symbols::LoadedModule* module = names.modules.find(call);
  std::vector<StackFrame> frames;
  if (module != nullptr) {
    const symbols::ModuleIdentity identity{module->path, module->build_id};
    frames = names.symbolizer->frames(identity, call - module->start);
    if (names.used_index.emplace(identity.path, names.used.size()).second) names.used.push_back(identity);
  }
  if (frames.empty()) frames.push_back(exported_symbol_frame(call, module));
  for (StackFrame& frame : frames) frame.address = ip;
  return names.by_address.emplace(ip, std::move(frames)).first->second;
}

}  // namespace

std::uint32_t capture_call_stack(unsigned depth) {
  if (depth == 0) return 0;
  const std::size_t wanted = std::min<std::size_t>(depth, kMaxFrames);
  if (const UnwBacktrace unw_backtrace = libunwind_backtrace()) {
    std::array<std::uintptr_t, kMaxFrames + kMostOwnFrames> captured;
    const int n = unw_backtrace(reinterpret_cast<void**>(captured.data()), static_cast<int>(wanted + kMostOwnFrames));
    const auto frames =
        program_frames(std::span(captured.data(), static_cast<std::size_t>(std::max(n, 0))), own_text(), wanted);
    return frames.empty() ? 0 : intern(frames);
  }
  Unwinding u;
  u.wanted = wanted;
  u.own = own_text();
  _Unwind_Backtrace(note_frame, &u);
  if (u.count == 0) return 0;
  return intern(std::span<const std::uintptr_t>(u.frames.data(), u.count));
}

const std::vector<StackFrame>& symbolized_stack(std::uint32_t id) {
  static const std::vector<StackFrame> kNone;
  if (id == 0) return kNone;
  StackTable& t = table();
  std::lock_guard naming(symbolizing);
  if (auto it = t.symbolized.find(id); it != t.symbolized.end()) return it->second;
  std::vector<std::uintptr_t> frames;
  {
    std::lock_guard lock(t.mutex);
    if (id > t.stacks.size()) return kNone;
    frames = t.stacks[id - 1];
  }
  std::vector<StackFrame> out;
  out.reserve(frames.size());
  for (std::uintptr_t ip : frames) {
    const auto& named = frames_at(ip);
    out.insert(out.end(), named.begin(), named.end());
  }
  return t.symbolized.emplace(id, std::move(out)).first->second;
}

std::vector<symbols::ModuleIdentity> symbolized_modules() {
  std::lock_guard naming(symbolizing);
  return frame_names().used;
}

}  // namespace computeprof::shim
