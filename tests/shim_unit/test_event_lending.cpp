// How a conckerneltrace track's slots get events without creating pairs
// (shim/timing/event_lending.hpp): only from slots before the reference, and a thread
// keeps at most as many pairs as it has operations in flight, plus two.
#include "catch.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <random>
#include <set>

#include "shim/timing/event_lending.hpp"

using namespace computeprof::shim;

namespace {

// Distinct stand-ins for events: only their identity is moved.
CUevent fake_event(std::size_t n) { return reinterpret_cast<CUevent>(0x1000 + 16 * n); }

struct Owner {
  std::unique_ptr<EventTrack> track = std::make_unique<EventTrack>();
  std::size_t created = 0;  // pairs

  EventSlot& slot(std::size_t index) { return track->slots[index % EventTrack::kSlots]; }
  void create(std::size_t h) {
    slot(h).start = fake_event(2 * created);
    slot(h).end = fake_event(2 * created + 1);
    ++created;
  }
  void set_tail(std::size_t tail) { track->tail.store(tail, std::memory_order_release); }
};

}  // namespace

TEST_CASE("a slot is lent the events of the slot before the reference while few operations are in flight",
          "[event_lending]") {
  Owner o;
  o.create(3);
  o.set_tail(5);  // slot 4 is the reference
  o.create(4);
  REQUIRE(lend_events(*o.track, 7));
  CHECK(o.slot(7).start == fake_event(0));
  CHECK(o.slot(7).end == fake_event(1));
  CHECK(o.slot(3).start == nullptr);
  CHECK(o.slot(3).end == nullptr);
  CHECK(o.slot(4).start == fake_event(2));  // the reference keeps its own
  // Slot 3 has given already.
  CHECK_FALSE(lend_events(*o.track, 8));

  SECTION("not with as many in flight as the lending depth") {
    Owner many;
    many.create(3);
    many.set_tail(5);
    CHECK_FALSE(lend_events(*many.track, 5 + kLendingDepth));
    CHECK(lend_events(*many.track, 5 + kLendingDepth - 1));
  }
}

TEST_CASE("a slot takes a pair parked before the reference, never one from the reference on", "[event_lending]") {
  Owner o;
  const std::size_t tail = 300;
  const std::size_t h = 310;
  // Slots tail - 1 (the reference) to h - 1 are in flight, each with its pair.
  for (std::size_t k = tail - 1; k < h; ++k) o.create(k);
  o.set_tail(tail);
  CHECK_FALSE(take_parked_events(*o.track, h));
  CHECK(o.slot(h).start == nullptr);

  // A pair left where the tail jumped past it, and one in slot h - kSlots, which is
  // slot h itself: only the first may give.
  o.slot(tail - 40).start = fake_event(1000);
  o.slot(tail - 40).end = fake_event(1001);
  REQUIRE(take_parked_events(*o.track, h));
  CHECK(o.slot(h).start == fake_event(1000));
  CHECK(o.slot(h).end == fake_event(1001));
  CHECK(o.slot(tail - 40).start == nullptr);
  for (std::size_t k = tail - 1; k < h; ++k) CHECK(o.slot(k).start != nullptr);

  SECTION("the nearest first") {
    o.slot(h + 1).start = nullptr;
    o.slot(tail - 3).start = fake_event(2000);
    o.slot(tail - 3).end = fake_event(2001);
    o.slot(tail - 90).start = fake_event(3000);
    o.slot(tail - 90).end = fake_event(3001);
    REQUIRE(take_parked_events(*o.track, h + 1));
    CHECK(o.slot(h + 1).start == fake_event(2000));
    CHECK(o.slot(tail - 90).start == fake_event(3000));
  }
  SECTION("none before the tail passed two slots") {
    Owner young;
    young.create(0);
    young.set_tail(1);
    CHECK_FALSE(take_parked_events(*young.track, 2));
  }
}

TEST_CASE("a thread keeps at most as many pairs as it has operations in flight, plus two, however the tail jumps",
          "[event_lending]") {
  // The owner's way (shim/timing/operation_timing.cpp): lend, else take a parked pair, else
  // create one. The resolver completes slots in jumps and falls behind by up to
  // `lag`; lending alone created a pair at each jump of more than one, for good.
  const std::size_t lag = GENERATE(std::size_t{1}, std::size_t{4}, std::size_t{15}, std::size_t{40});
  INFO("lag up to " << lag);
  Owner o;
  std::mt19937 random(11);
  std::size_t tail = 0;
  std::size_t stalled_for = 0;
  std::size_t most_in_flight = 0;
  for (std::size_t h = 0; h < 20'000; ++h) {
    // The resolver stalls for 0 to `lag` operations, then completes some of what was
    // published; it is never more than `lag` behind (a full track waits for it).
    if (stalled_for == 0) {
      tail = std::uniform_int_distribution<std::size_t>(tail, h)(random);
      stalled_for = std::uniform_int_distribution<std::size_t>(0, lag)(random);
    } else {
      --stalled_for;
    }
    if (h - tail > lag) tail = h - lag;
    o.set_tail(tail);
    most_in_flight = std::max(most_in_flight, h - tail);
    if (!o.slot(h).start && !lend_events(*o.track, h) && !take_parked_events(*o.track, h)) o.create(h);
    // Every pair is in one slot only.
    std::set<CUevent> seen;
    if (h % 997 == 0) {
      for (const EventSlot& s : o.track->slots) {
        if (s.start) CHECK(seen.insert(s.start).second);
      }
    }
  }
  INFO("most in flight " << most_in_flight << ", pairs " << o.created);
  CHECK(most_in_flight == lag);
  CHECK(o.created <= most_in_flight + 2);
}
