// The matcher's queues (shim/activity/ring_queue.hpp): first in, first out across the
// ring's wrap and its growth, elements reused as a pop left them.
#include "catch.hpp"

#include <cstddef>
#include <deque>
#include <random>
#include <vector>

#include "shim/activity/ring_queue.hpp"

using computeprof::shim::RingQueue;

TEST_CASE("RingQueue keeps the order of a deque through wraps and growth", "[ring_queue]") {
  RingQueue<std::size_t> queue;
  std::deque<std::size_t> expected;
  std::mt19937 random(7);
  std::size_t next = 0;
  // Bursts of pushes longer than pops, then shorter, so that the ring wraps at every
  // size it grows through (64 up to 1,024 and more).
  for (int round = 0; round < 2'000; ++round) {
    const std::size_t pushes = random() % (round < 1'000 ? 9 : 5);
    const std::size_t pops = random() % (round < 1'000 ? 7 : 9);
    for (std::size_t i = 0; i < pushes; ++i) {
      queue.push_back(next);
      expected.push_back(next++);
    }
    for (std::size_t i = 0; i < pops && !expected.empty(); ++i) {
      REQUIRE(queue.front() == expected.front());
      queue.pop_front();
      expected.pop_front();
    }
    REQUIRE(queue.size() == expected.size());
    REQUIRE(queue.empty() == expected.empty());
    for (std::size_t i = 0; i < expected.size(); i += 17) REQUIRE(queue[i] == expected[i]);
  }
  CHECK(next > 1'024);
}

TEST_CASE("RingQueue hands back a popped element as it was left, with its capacity", "[ring_queue]") {
  RingQueue<std::vector<int>> queue;
  std::vector<int>& first = queue.push_back();
  CHECK(first.empty());
  first.assign(100, 1);
  queue.pop_front();
  // 64 places: the 64th push after the pop lands where the first element was.
  for (int i = 0; i < 63; ++i) CHECK(queue.push_back().empty());
  std::vector<int>& again = queue.push_back();
  CHECK(again.size() == 100);
  again.clear();
  CHECK(again.capacity() >= 100);
  CHECK(queue.size() == 64);
}
