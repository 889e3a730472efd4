// The matcher's id indexes: the same answers as a node-based map through millions of
// insertions and erasures (IdTable's backward-shift erasure must never lose a key behind
// a gap; SequentialIdTable must find a displaced key wherever it went).
#include "catch.hpp"

#include <cstdint>
#include <deque>
#include <random>
#include <unordered_map>

#include "shim/activity/id_table.hpp"
#include "shim/activity/sequential_id_table.hpp"

using computeprof::shim::IdTable;
using computeprof::shim::SequentialIdTable;

TEST_CASE("IdTable finds, overwrites and erases keys", "[id_table]") {
  IdTable<std::uint64_t> table;
  CHECK(table.find(7) == IdTable<std::uint64_t>::kNone);
  CHECK_FALSE(table.erase(7));
  table.assign(7, 1);
  table.assign(0, 2);  // 0 is a key like any other
  CHECK(table.find(7) == 1);
  CHECK(table.find(0) == 2);
  table.assign(7, 3);
  CHECK(table.find(7) == 3);
  CHECK(table.size() == 2);
  CHECK(table.erase(7));
  CHECK(table.find(7) == IdTable<std::uint64_t>::kNone);
  CHECK(table.find(0) == 2);
  CHECK(table.size() == 1);
}

TEMPLATE_TEST_CASE("The id indexes agree with unordered_map over 2 M insertions and erasures", "[id_table]",
                   IdTable<std::uint64_t>, SequentialIdTable<std::uint64_t>) {
  // Ids as the shim makes them: a thread's number from bit 40 above its count (three
  // threads, whose windows meet as their counts drift), or CUPTI's consecutive
  // correlation ids; up to 3,000 outstanding, erased oldest first or at random.
  constexpr std::uint32_t kNone = TestType::kNone;
  std::mt19937_64 random(14);
  TestType table;
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
