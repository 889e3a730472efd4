// The matcher's index of ids in flight: one place per id, displaced ids beside it
// (against a node-based map over millions of ids: test_id_table.cpp).
#include "catch.hpp"

#include <cstdint>

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
