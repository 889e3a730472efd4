#include "records/range_table.hpp"

#include <cstring>

namespace computeprof::records {

template <typename Entry>
bool RangeTable::Entries<Entry>::append(Entry entry, std::uint32_t& id) {
  const std::uint32_t n = count_.load(std::memory_order_relaxed);
  if (n >= kCapacity) return false;
  Entry* chunk = chunks_[n / kChunk].load(std::memory_order_relaxed);
  if (chunk == nullptr) {
    chunk = new Entry[kChunk];  // freed with the table: readers hold no lock
    chunks_[n / kChunk].store(chunk, std::memory_order_release);
  }
  chunk[n % kChunk] = entry;
  count_.store(n + 1, std::memory_order_release);
  id = n;
  return true;
}

RangeTable::RangeTable() {
  std::uint32_t id = 0;
  const std::string_view empty = keep({});
  names_.append({empty, empty}, id);
  domains_.append({}, id);
  paths_.append({{}, empty}, id);
  name_ids_.emplace(std::string_view{}, 0);
}

std::string_view RangeTable::keep(std::string_view text) {
  // Zeros after it (kRangeTextPadding). Under the lock, or in the constructor.
  char* kept = texts_.emplace_back(new char[text.size() + kRangeTextPadding]()).get();
  if (!text.empty()) std::memcpy(kept, text.data(), text.size());
  return {kept, text.size()};
}

namespace {

// The length of the valid UTF-8 sequence at the start of `s`, 0 when there is none.
std::size_t utf8_sequence(std::string_view s) {
  const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char c = b(0);
  std::size_t n = 0;
  unsigned char low = 0x80, high = 0xbf;  // the second byte's range
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3;
    if (c == 0xe0) low = 0xa0;
    if (c == 0xed) high = 0x9f;  // no surrogates
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4;
    if (c == 0xf0) low = 0x90;
    if (c == 0xf4) high = 0x8f;
  } else {
    return 0;
  }
  if (s.size() < n || b(1) < low || b(1) > high) return 0;
  for (std::size_t i = 2; i < n; ++i) {
    if (b(i) < 0x80 || b(i) > 0xbf) return 0;
  }
  return n;
}

}  // namespace

std::string safe_range_text(std::string_view raw) {
  std::string text;
  text.reserve(raw.size());
  while (!raw.empty()) {
    const auto c = static_cast<unsigned char>(raw.front());
    std::string_view piece;
    std::size_t used = 1;
    if (c < 0x20 || c == 0x7f) {
      piece = " ";
    } else if (c < 0x80) {
      piece = raw.substr(0, 1);
    } else if (const std::size_t n = utf8_sequence(raw); n != 0) {
      piece = raw.substr(0, n);
      used = n;
    } else {
      piece = "\xEF\xBF\xBD";  // U+FFFD
    }
    if (text.size() + piece.size() > kRangeNameLimit) break;
    text.append(piece);
    raw.remove_prefix(used);
  }
  return text;
}

RangeNameId RangeTable::intern_name(std::string_view raw) {
  std::lock_guard lock(mutex_);
  if (auto found = name_ids_.find(raw); found != name_ids_.end()) return found->second;
  const std::string_view kept_raw = keep(raw);
  const std::string text = safe_range_text(raw);
  const std::string_view kept_text = text == raw ? kept_raw : keep(text);
  RangeNameId id = 0;
  if (!names_.append({kept_text, kept_raw}, id)) return 0;
  name_ids_.emplace(kept_raw, id);
  return id;
}

RangeNameId RangeTable::append_name(std::string_view text) {
  std::lock_guard lock(mutex_);
  const std::string_view kept = keep(text);
  RangeNameId id = 0;
  if (!names_.append({kept, kept}, id)) return 0;
  name_ids_.try_emplace(kept, id);
  return id;
}

RangeDomainId RangeTable::add_domain(RangeNameId name) {
  std::lock_guard lock(mutex_);
  RangeDomainId id = 0;
  if (!domains_.append({name}, id)) return 0;
  return id;
}

std::string RangeTable::qualified_name(RangeDomainId domain, RangeNameId name) const {
  std::string text(this->name(name));
  if (domain != 0) {
    text += '@';
    text += this->name(domain_name(domain));
  }
  return text;
}

RangePathId RangeTable::intern_path(RangePathId parent, RangeDomainId domain, RangeNameId name) {
  const RangePathStep step{parent, domain, name};
  {
    std::lock_guard lock(mutex_);
    if (auto found = path_ids_.find(step); found != path_ids_.end()) return found->second;
  }
  // Worked out outside the lock (the texts read are immutable), then added under it.
  std::string text(path_text(parent));
  if (parent != 0) text += '/';
  text += qualified_name(domain, name);
  if (text.size() > kRangePathLimit) text = std::string(path_text(parent));
  std::lock_guard lock(mutex_);
  if (auto found = path_ids_.find(step); found != path_ids_.end()) return found->second;
  RangePathId id = 0;
  if (!paths_.append({step, keep(text)}, id)) return 0;
  path_ids_.emplace(step, id);
  return id;
}

RangeTable& range_table() {
  static RangeTable* table = new RangeTable;  // never freed: read until the very end
  return *table;
}

}  // namespace computeprof::records
