// A thread's ring takes a batch of items whole or not at all (ThreadRings::Ring::try_push_all).
#include "catch.hpp"

#include <cstddef>
#include <vector>

#include "shim/process/thread_rings.hpp"

namespace {
using Ring = computeprof::shim::ThreadRings<int, 8>::Ring;

std::vector<int> drain(Ring& ring) {
  std::vector<int> items;
  ring.release(ring.read([&](int& item) { items.push_back(item); }));
  return items;
}
}  // namespace

TEST_CASE("try_push_all publishes a batch in order when it fits even across the end of the ring", "[thread_rings]") {
  Ring ring;
  for (int i = 0; i < 6; ++i) REQUIRE(ring.try_push([i](int& item) { item = i; }));
  CHECK(drain(ring) == std::vector<int>{0, 1, 2, 3, 4, 5});

  // Places 6, 7, 0, 1, 2: the batch wraps.
  CHECK(ring.try_push_all(5, [](std::size_t i, int& item) { item = 10 + static_cast<int>(i); }));
  CHECK(ring.size() == 5);
  CHECK(drain(ring) == std::vector<int>{10, 11, 12, 13, 14});
}

TEST_CASE("try_push_all writes nothing when fewer places are free than the batch needs", "[thread_rings]") {
  Ring ring;
  for (int i = 0; i < 4; ++i) REQUIRE(ring.try_push([i](int& item) { item = i; }));
  int written = 0;
  CHECK_FALSE(ring.try_push_all(5, [&](std::size_t, int&) { ++written; }));
  CHECK(written == 0);
  CHECK(ring.size() == 4);

  CHECK(ring.try_push_all(4, [](std::size_t i, int& item) { item = 4 + static_cast<int>(i); }));
  CHECK(ring.full());
  CHECK(drain(ring) == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
}
