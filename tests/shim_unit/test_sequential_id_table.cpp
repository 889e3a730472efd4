// The matcher's index of ids in flight: one place per id, displaced ids beside it. The
// same answers as a node-based map whether ids come in sequence or collide.
#include "catch.hpp"

#include <cstdint>
#include <deque>
#include <random>
#include <unordered_map>

#include "shim/activity/sequential_id_table.hpp"

using computeprof::shim::SequentialIdTable;

namespace {
constexpr std::uint32_t kNone = SequentialIdTable<std::uint64_t>::kNone;
}

TEST_CASE("SequentialIdTable finds, overwrites and erases keys, displaced ones too", "[id_table]") {
  SequentialIdTable<std::uint64_t> table;
  CHECK(table.find(7) == kNone);
  CHECK_FALSE(table.erase(7));
  table.assign(7, 1);
  table.assign(0, 2);  // 0 is a key like any other
  // 256 places to begin with: 7 + 256 and 7 + 512 want 7's place.
  table.assign(7 + 256, 3);
  table.assign(7 + 512, 4);
  CHECK(table.find(7) == 1);
  CHECK(table.find(0) == 2);
  CHECK(table.find(7 + 256) == 3);
  CHECK(table.find(7 + 512) == 4);
  CHECK(table.find(7 + 768) == kNone);
  CHECK(table.size() == 4);
  // 7's place is free now; 7 + 256 stays where it went and is still found, once.
  CHECK(table.erase(7));
  CHECK(table.find(7) == kNone);
  table.assign(7 + 256, 5);
  CHECK(table.find(7 + 256) == 5);
  CHECK(table.size() == 3);
  table.assign(7, 6);
  CHECK(table.find(7) == 6);
  CHECK(table.erase(7 + 256));
  CHECK_FALSE(table.erase(7 + 256));
  CHECK(table.find(7 + 256) == kNone);
  CHECK(table.find(7 + 512) == 4);
  CHECK(table.size() == 3);
}

TEST_CASE("SequentialIdTable keeps every key through growth, displaced ones included", "[id_table]") {
  SequentialIdTable<std::uint64_t> table;
  // Keys that all want one place until the table has over 2^20 places...
  for (std::uint64_t i = 0; i < 5000; ++i) table.assign(i << 20, static_cast<std::uint32_t>(i));
  // ...and a window in sequence, which grows the table on the way.
  for (std::uint64_t i = 1; i <= 20'000; ++i) table.assign(i, static_cast<std::uint32_t>(i + 7));
  CHECK(table.size() == 25'000);
  for (std::uint64_t i = 0; i < 5000; ++i) REQUIRE(table.find(i << 20) == i);
  for (std::uint64_t i = 1; i <= 20'000; ++i) REQUIRE(table.find(i) == i + 7);
  for (std::uint64_t i = 0; i < 5000; i += 2) REQUIRE(table.erase(i << 20));
  CHECK(table.size() == 22'500);
  for (std::uint64_t i = 0; i < 5000; ++i) REQUIRE(table.find(i << 20) == (i % 2 == 0 ? kNone : i));
}

TEST_CASE("SequentialIdTable agrees with unordered_map over 2 M insertions and erasures", "[id_table]") {
  // Ids as the shim makes them: a thread's number from bit 40 above its count (three
  // threads, whose windows meet as their counts drift), or CUPTI's consecutive
  // correlation ids; up to 3,000 outstanding, erased oldest first or at random.
  std::mt19937_64 random(14);
  SequentialIdTable<std::uint64_t> table;
  std::unordered_map<std::uint64_t, std::uint32_t> reference;
  std::deque<std::uint64_t> inserted;
  std::uint64_t counts[4] = {0, 0, 0, 0};
  std::size_t erased = 0;
  for (int step = 0; step < 2'000'000; ++step) {
    const std::uint64_t r = random();
    const std::uint64_t thread = (r >> 60) % 4;  // 0: correlation ids
    const std::uint64_t key = thread << 40 | ++counts[thread];
    const auto value = static_cast<std::uint32_t>(r >> 32);
    table.assign(key, value);
    reference[key] = value;
    inserted.push_back(key);
    if (r % 4 == 0) {
      const std::uint64_t victim = inserted[(r >> 8) % inserted.size()];
      const bool present = reference.erase(victim) == 1;
      REQUIRE(table.erase(victim) == present);
      erased += present;
    }
    if (inserted.size() > 3000) {
      const bool present = reference.erase(inserted.front()) == 1;
      REQUIRE(table.erase(inserted.front()) == present);
      erased += present;
      inserted.pop_front();
    }
    if (step % 4096 == 0) {
      for (const auto& [k, v] : reference) REQUIRE(table.find(k) == v);
      for (std::uint64_t t = 0; t < 4; ++t) {
        REQUIRE(table.find(t << 40 | (counts[t] + 1)) == kNone);
        if (!reference.contains(t << 40 | counts[t] / 2)) REQUIRE(table.find(t << 40 | counts[t] / 2) == kNone);
      }
      REQUIRE(table.size() == reference.size());
    }
  }
  CHECK(erased > 1'990'000);
  for (const auto& [k, v] : reference) CHECK(table.find(k) == v);
}
