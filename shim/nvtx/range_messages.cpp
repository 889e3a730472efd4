#include "shim/nvtx/range_messages.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "config/report.hpp"

namespace computeprof::shim {
namespace {

using records::kRangeNameLimit;
using records::RangeNameId;

std::atomic<bool> g_cut_said{false};

// One line for the first message cut; the others are cut without a word.
void say_cut() {
  if (g_cut_said.exchange(true, std::memory_order_relaxed)) return;
  config::warn(fmt::format("an NVTX message longer than {} bytes was cut to its first {} (and so is any other)",
                           kRangeNameLimit, kRangeNameLimit));
}

// The message's bytes, at most kRangeNameLimit; a longer one is cut.
std::string_view bounded(const char* message) {
  const std::size_t n = strnlen(message, kRangeNameLimit + 1);
  if (n > kRangeNameLimit) {
    say_cut();
    return {message, kRangeNameLimit};
  }
  return {message, n};
}

// Per thread: the messages met last, by address (direct-mapped). An entry is used only
// when the bytes at the address are still the name's: a buffer the program reuses for
// other texts finds its new text by content, in the table.
struct CachedName {
  const char* address = nullptr;
  const char* raw = nullptr;  // the table's copy of the bytes
  RangeNameId id = 0;
  std::uint32_t size = 0;
};
constexpr std::size_t kCachedNames = 256;
constinit thread_local std::array<CachedName, kCachedNames>* t_names = nullptr;

[[gnu::noinline]] RangeNameId ascii_name_slowly(const char* message, CachedName* entry) {
  const std::string_view raw = bounded(message);
  const RangeNameId id = records::range_table().intern_name(raw);
  const std::string_view kept = records::range_table().raw_name(id);
  *entry = {message, kept.data(), id, static_cast<std::uint32_t>(kept.size())};
  return id;
}

// The thread's cache, freed when it exits.
struct CachedNamesOwner {
  ~CachedNamesOwner() {
    delete t_names;
    t_names = nullptr;
  }
};

[[gnu::noinline]] RangeNameId ascii_name_first(const char* message) {
  // Its destructor is registered at this first use, on threads that use NVTX only.
  static thread_local CachedNamesOwner owner;
  (void)owner;
  t_names = new std::array<CachedName, kCachedNames>{};
  return ascii_name_slowly(message, &(*t_names)[(reinterpret_cast<std::uintptr_t>(message) >> 3) % kCachedNames]);
}

// A short name (under 16 bytes) at `message` is still `entry`'s: its bytes and its end,
// in two 8-byte words. The words may reach past the message's end, never past its page
// (the caller checked), and past the table's copy only into its zero padding; hence no
// AddressSanitizer (it would see a read past a short heap string).
[[gnu::no_sanitize_address]] bool same_short_name(const char* message, const CachedName& entry) {
  std::uint64_t m[2], r[2];
  std::memcpy(m, message, sizeof m);
  std::memcpy(r, entry.raw, sizeof r);
  // The name's bytes and the terminating zero, which the padding gives r.
  const unsigned bits = (entry.size + 1) * 8;
  const std::uint64_t low = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  const std::uint64_t high = bits <= 64 ? 0 : bits >= 128 ? ~std::uint64_t{0} : (std::uint64_t{1} << (bits - 64)) - 1;
  return ((m[0] ^ r[0]) & low) == 0 && ((m[1] ^ r[1]) & high) == 0;
}

constexpr std::uintptr_t kPage = 4096;

}  // namespace

RangeNameId ascii_name(const char* message) {
  if (message == nullptr) return 0;
  if (t_names == nullptr) [[unlikely]] return ascii_name_first(message);
  CachedName& entry = (*t_names)[(reinterpret_cast<std::uintptr_t>(message) >> 3) % kCachedNames];
  if (entry.address == message && entry.size < 16 &&
      (reinterpret_cast<std::uintptr_t>(message) & (kPage - 1)) <= kPage - 16) [[likely]] {
    if (same_short_name(message, entry)) return entry.id;
  } else if (entry.address == message) {
    // Byte by byte, stopping at the first difference: the bytes at the address may now
    // be a shorter text, whose end must not be read past (memcmp may read all `size`).
    std::uint32_t i = 0;
    while (i != entry.size && message[i] == entry.raw[i]) ++i;
    // A name cut to the limit is the same name whatever follows its first bytes.
    if (i == entry.size && (message[i] == '\0' || i == kRangeNameLimit)) return entry.id;
  }
  return ascii_name_slowly(message, &entry);
}

RangeNameId wide_name(const wchar_t* message) {
  if (message == nullptr) return 0;
  // UTF-8 in a buffer of the thread's stack: the limit and one code point more.
  char text[kRangeNameLimit + 4];
  std::size_t n = 0;
  const wchar_t* p = message;
  for (; *p != L'\0' && n <= kRangeNameLimit; ++p) {
    auto c = static_cast<std::uint32_t>(*p);
    if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) c = 0xfffd;
    if (c < 0x80) {
      text[n++] = static_cast<char>(c);
    } else if (c < 0x800) {
      text[n++] = static_cast<char>(0xc0 | (c >> 6));
      text[n++] = static_cast<char>(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
      text[n++] = static_cast<char>(0xe0 | (c >> 12));
      text[n++] = static_cast<char>(0x80 | ((c >> 6) & 0x3f));
      text[n++] = static_cast<char>(0x80 | (c & 0x3f));
    } else {
      text[n++] = static_cast<char>(0xf0 | (c >> 18));
      text[n++] = static_cast<char>(0x80 | ((c >> 12) & 0x3f));
      text[n++] = static_cast<char>(0x80 | ((c >> 6) & 0x3f));
      text[n++] = static_cast<char>(0x80 | (c & 0x3f));
    }
  }
  if (n > kRangeNameLimit || *p != L'\0') {
    say_cut();
    n = std::min(n, kRangeNameLimit);  // a cut code point becomes U+FFFD in the table's text
  }
  return records::range_table().intern_name({text, n});
}

RangeNameId attributes_name(const nvtxEventAttributes_t* a) {
  // Fields past the size the program filled in are not read.
  constexpr std::size_t kMessageEnd = offsetof(nvtxEventAttributes_t, message) + sizeof(a->message);
  if (a == nullptr || a->size < kMessageEnd) return 0;
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII: return ascii_name(a->message.ascii);
    case NVTX_MESSAGE_TYPE_UNICODE: return wide_name(a->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED: return name_of_handle(a->message.registered);
    default: return 0;
  }
}

}  // namespace computeprof::shim
