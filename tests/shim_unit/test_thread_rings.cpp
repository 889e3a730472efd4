// A thread's ring takes a batch of items whole or not at all (ThreadRings::Ring::try_push_all),
// or one filled in place; the consumer's list of rings follows threads that come and go.
#include "catch.hpp"

#include <cstddef>
#include <thread>
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

TEST_CASE("an item filled in place is seen only once published, and a full ring has no place", "[thread_rings]") {
  Ring ring;
  int* place = ring.next_place();
  REQUIRE(place != nullptr);
  *place = 41;
  CHECK(ring.size() == 0);
  CHECK(drain(ring).empty());
  // Left unpublished (a failed call), the place is the next one again.
  CHECK(ring.next_place() == place);
  *place = 42;
  ring.publish();
  CHECK(drain(ring) == std::vector<int>{42});
  for (int i = 0; i < 8; ++i) REQUIRE(ring.try_push([i](int& item) { item = i; }));
  CHECK(ring.next_place() == nullptr);
}

TEST_CASE("the consumer's list of rings follows threads that come and go", "[thread_rings]") {
  // An instantiation of its own: its rings and exits are this test's only. Leaked, as the
  // shim's rings are: the main thread's ring stays registered after the test.
  using Rings = computeprof::shim::ThreadRings<long, 4>;
  static Rings& rings = *new Rings;
  std::vector<Rings::Ring*> listed;
  rings.snapshot(listed);
  CHECK(listed.empty());
  rings.this_thread_ring().try_push([](long& item) { item = 1; });
  rings.snapshot(listed);
  REQUIRE(listed.size() == 1);
  rings.snapshot(listed);  // nothing changed: the same list
  CHECK(listed.size() == 1);
  std::thread([&] { rings.this_thread_ring().try_push([](long& item) { item = 2; }); }).join();
  rings.snapshot(listed);
  REQUIRE(listed.size() == 2);
  // The exited thread's ring is freed once read, not before.
  rings.free_exited();
  rings.snapshot(listed);
  CHECK(listed.size() == 2);
  for (Rings::Ring* ring : listed) ring->release(ring->read([](long&) {}));
  rings.free_exited();
  rings.snapshot(listed);
  CHECK(listed.size() == 1);
  // Another list is filled whatever the first was given.
  std::vector<Rings::Ring*> other;
  rings.snapshot(other);
  CHECK(other == listed);
}
