// The shim's internal worker: its thread starts once, named; a wake-up, a request for
// room, work published while it sleeps end its wait, which otherwise ends on time; a
// producer whose ring is full is let go when it drains; its part's handlers run in
// their stage, and a forked child has no worker until it starts it again; a thread
// that cannot be started is said once and tried again.
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "child_process.hpp"
#include "config/report.hpp"
#include "shim/process/internal_worker.hpp"
#include "shim/process/thread_rings.hpp"

using namespace computeprof::shim;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using Ring = ThreadRings<int, 8>::Ring;

namespace {

// Polls `done` every millisecond for at most `limit`.
template <typename Done>
bool eventually(Done&& done, std::chrono::milliseconds limit = 5000ms) {
  const auto end = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() > end) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

void push(Ring& ring, int n) {
  for (int i = 0; i < n; ++i) REQUIRE(ring.try_push([i](int& item) { item = i; }));
}

void empty(Ring& ring) {
  ring.release(ring.read([](int&) {}));
}

}  // namespace

// Its thread records its name and how often it ran, and ends.
namespace started_once {
std::atomic<int> g_runs{0};
char g_name[16];
void run() {
  pthread_getname_np(pthread_self(), g_name, sizeof g_name);
  g_runs.fetch_add(1);
}
struct Shared {
  int value = 7;
};
constinit InternalWorker<Shared> g_worker{{
    .name = "cprof-once",
    .run = run,
    .cannot_start = "cannot start the test's worker",
    .stage = LifecycleStage::operations,
    .handlers = {},
}};
}  // namespace started_once

TEST_CASE("a worker's thread starts once, named, however many threads start it, and what it works on is made once",
          "[internal_worker]") {
  using namespace started_once;
  CHECK_FALSE(g_worker.started());
  CHECK(g_worker.shared() == nullptr);
  std::vector<std::thread> starters;
  std::vector<Shared*> made(4);
  std::atomic<int> started{0};
  for (std::size_t i = 0; i < made.size(); ++i) {
    starters.emplace_back([i, &made, &started] {
      made[i] = &g_worker.shared_or_make();
      if (g_worker.start()) started.fetch_add(1);
    });
  }
  for (std::thread& t : starters) t.join();
  CHECK(started.load() == 4);
  CHECK(g_worker.started());
  CHECK(g_worker.start());
  REQUIRE(eventually([] { return g_runs.load() != 0; }));
  std::this_thread::sleep_for(20ms);
  CHECK(g_runs.load() == 1);
  CHECK(std::string(g_name) == "cprof-once");
  for (Shared* s : made) CHECK(s == g_worker.shared());
  CHECK(g_worker.shared()->value == 7);
}

namespace idle_worker {
constinit InternalWorker<int> g_worker{{
    .name = "cprof-test",
    .run = [] {},
    .cannot_start = "cannot start the test's worker",
    .stage = LifecycleStage::operations,
    .handlers = {},
}};
}  // namespace idle_worker

TEST_CASE("a wait ends on time, at once after a wake-up, and says whether room was asked for", "[internal_worker]") {
  // Waits on the calling thread: no worker thread runs.
  auto& w = idle_worker::g_worker;
  auto start = Clock::now();
  CHECK_FALSE(w.wait_for(20ms));
  CHECK(Clock::now() - start >= 20ms);

  // A wake-up before the wait is kept for it; several count as one.
  w.wake();
  w.wake();
  start = Clock::now();
  CHECK_FALSE(w.wait_for(10s));
  CHECK(Clock::now() - start < 5s);
  start = Clock::now();
  CHECK_FALSE(w.wait_for(20ms));
  CHECK(Clock::now() - start >= 20ms);

  w.request_room();
  start = Clock::now();
  CHECK(w.wait_until(Clock::now() + 10s));
  CHECK(Clock::now() - start < 5s);
  CHECK_FALSE(w.wait_for(1ms));
}

namespace waking {
std::atomic<int> g_rounds{0};
std::atomic<int> g_room_rounds{0};
void run();
constinit InternalWorker<int> g_worker{{
    .name = "cprof-waking",
    .run = run,
    .cannot_start = "cannot start the test's worker",
    .stage = LifecycleStage::activities,
    .handlers = {},
}};
void run() {
  for (;;) {
    if (g_worker.wait_for(60s)) g_room_rounds.fetch_add(1);
    g_rounds.fetch_add(1);
  }
}
}  // namespace waking

TEST_CASE("a worker waiting long is woken by a wake-up and by a request for room", "[internal_worker]") {
  using namespace waking;
  REQUIRE(g_worker.start());
  for (int i = 1; i <= 3; ++i) {
    std::this_thread::sleep_for(5ms);
    g_worker.wake();
    CHECK(eventually([i] { return g_rounds.load() >= i; }));
  }
  const int rounds = g_rounds.load();
  g_worker.request_room();
  CHECK(eventually([] { return g_room_rounds.load() == 1; }));
  CHECK(g_rounds.load() >= rounds + 1);
}

namespace submitting {
std::atomic<bool> g_may_end{false};
void run() {
  while (!g_may_end.load()) std::this_thread::sleep_for(1ms);
}
constinit InternalWorker<int> g_worker{{
    .name = "cprof-submit",
    .run = run,
    .cannot_start = "cannot start the test's worker",
    .stage = LifecycleStage::counters,
    .handlers = {},
}};
}  // namespace submitting

TEST_CASE("submissions go in only while the worker runs, and room is asked for when a ring becomes half full",
          "[internal_worker]") {
  using namespace submitting;
  auto& w = g_worker;
  // Leaked, as the shim's rings are: a thread's ring stays registered after its last use.
  static ThreadRings<int, 8>& rings = *new ThreadRings<int, 8>;
  Ring& ring = rings.this_thread_ring();
  auto fill = [](int& item) { item = 1; };
  CHECK_FALSE(try_submit_to<g_worker>(rings, fill));
  CHECK(ring.size() == 0);
  REQUIRE(w.start());

  for (int i = 0; i < 3; ++i) CHECK(try_submit_to<g_worker>(rings, fill));
  CHECK_FALSE(w.wait_for(0ms));
  CHECK(try_submit_to<g_worker>(rings, fill));  // 4 of 8
  CHECK(w.wait_for(0ms));
  for (int i = 0; i < 4; ++i) CHECK(try_submit_to<g_worker>(rings, fill));
  CHECK_FALSE(try_submit_to<g_worker>(rings, fill));  // full
  CHECK(ring.size() == 8);
  CHECK_FALSE(w.wait_for(0ms));

  // A batch: room is asked for when it reaches half the ring from below.
  empty(ring);
  auto fill_all = [](std::size_t, int& item) { item = 2; };
  CHECK(try_submit_all_to<g_worker>(ring, 3, fill_all));
  CHECK_FALSE(w.wait_for(0ms));
  CHECK(try_submit_all_to<g_worker>(ring, 2, fill_all));  // 3 -> 5
  CHECK(w.wait_for(0ms));
  CHECK(try_submit_all_to<g_worker>(ring, 3, fill_all));  // 5 -> 8
  CHECK_FALSE(w.wait_for(0ms));
  CHECK_FALSE(try_submit_all_to<g_worker>(ring, 1, fill_all));
  g_may_end.store(true);
}

namespace sleeping {
std::atomic<int> g_published{0};
std::atomic<int> g_taken{0};
void run();
constinit InternalWorker<int> g_worker{{
    .name = "cprof-sleeping",
    .run = run,
    .cannot_start = "cannot start the test's worker",
    .stage = LifecycleStage::contexts,
    .handlers = {},
}};
bool has_work() { return g_taken.load() != g_published.load(); }
void run() {
  for (;;) {
    if (has_work()) {
      g_taken.store(g_published.load());
      continue;
    }
    // Long enough that a missed wake-up fails the test.
    g_worker.sleep_unless(has_work, 60s);
  }
}
}  // namespace sleeping

TEST_CASE("work published while the worker sleeps, or while it is about to, wakes it", "[internal_worker]") {
  using namespace sleeping;
  REQUIRE(g_worker.start());
  for (int i = 1; i <= 50; ++i) {
    // Some while it sleeps, some while it looks for work.
    if (i % 2 == 0) std::this_thread::sleep_for(2ms);
    g_published.store(i);
    g_worker.wake_if_idle();
    REQUIRE(eventually([i] { return g_taken.load() == i; }));
  }
  // A request for room while it sleeps wakes it and stays for its next wait.
  std::this_thread::sleep_for(5ms);
  g_worker.request_room();
  CHECK(g_worker.wait_for(0ms));
}

namespace draining {
Ring* g_ring = nullptr;
void run();
constinit InternalWorker<int> g_worker{{
    .name = "cprof-draining",
    .run = run,
    .cannot_start = "cannot start the test's worker",
    .stage = LifecycleStage::records,
    .handlers = {},
}};
void run() {
  for (;;) {
    g_worker.wait_for(60s);
    empty(*g_ring);
    g_worker.notify_drained();
  }
}
}  // namespace draining

TEST_CASE("a producer whose ring is full waits until the worker drains it", "[internal_worker]") {
  using namespace draining;
  static Ring ring;
  g_ring = &ring;
  push(ring, 8);
  REQUIRE(ring.full());
  REQUIRE(g_worker.start());
  const auto start = Clock::now();
  g_worker.wait_for_room(ring, 10s);
  CHECK(Clock::now() - start < 5s);
  CHECK(ring.size() == 0);

  // Nobody drains: the wait ends on time.
  auto& idle = idle_worker::g_worker;
  Ring full;
  push(full, 8);
  const auto waited = Clock::now();
  idle.wait_for_room(full, 20ms);
  CHECK(Clock::now() - waited >= 20ms);
  CHECK(full.full());
}

using computeprof::test::in_child;
using computeprof::test::say;

namespace forking {
std::atomic<int> g_runs{0};
std::atomic<int> g_rounds{0};
void run();
constinit InternalWorker<int> g_worker{{
    .name = "cprof-forking",
    .run = run,
    .cannot_start = "cannot start the test's worker",
    .stage = LifecycleStage::records,
    .handlers = {[] { say('x'); }, [] { say('b'); }, [] { say('p'); }, [] { say('c'); }},
}};
void run() {
  g_runs.fetch_add(1);
  for (;;) {
    g_worker.wait_for(60s);
    g_rounds.fetch_add(1);
  }
}
// Wakes the worker `times` times, each seen within the limit.
bool wakes_answered(int times) {
  for (int i = 0; i < times; ++i) {
    const int before = g_rounds.load();
    g_worker.wake();
    if (!eventually([before] { return g_rounds.load() > before; })) return false;
  }
  return true;
}
}  // namespace forking

TEST_CASE("fork: the part's handlers run in their stage, and the child has no worker until it starts it again",
          "[internal_worker]") {
  using namespace forking;
  const auto [said, status] = in_child([] {
    // The worker waits in its condition as the process forks.
    if (!g_worker.start() || !eventually([] { return g_runs.load() == 1; })) std::exit(10);
    std::this_thread::sleep_for(10ms);
    const pid_t grandchild = fork();
    if (grandchild == 0) {
      if (g_worker.started()) std::_Exit(11);
#if !defined(__SANITIZE_THREAD__)
      // (ThreadSanitizer refuses threads after a fork of a process with threads.)
      g_runs.store(0);
      if (!g_worker.start() || !eventually([] { return g_runs.load() == 1; })) std::_Exit(12);
      // The parent's waiter is not in the child: every wake-up still reaches the new one.
      if (!wakes_answered(3)) std::_Exit(13);
#endif
      std::_Exit(0);
    }
    int grandchild_status = 0;
    waitpid(grandchild, &grandchild_status, 0);
    if (!WIFEXITED(grandchild_status) || WEXITSTATUS(grandchild_status) != 0) {
      std::exit(WIFEXITED(grandchild_status) ? WEXITSTATUS(grandchild_status) : 20);
    }
    // The parent's worker runs on, woken as before.
    if (!g_worker.started() || !wakes_answered(3)) std::exit(14);
  });
  CHECK(status == 0);
  // Before fork; the parent's and the child's in either order; the exit handler.
  REQUIRE(said.size() == 4);
  CHECK(said.front() == 'b');
  CHECK((said.substr(1, 2) == "pc" || said.substr(1, 2) == "cp"));
  CHECK(said.back() == 'x');
}

namespace unstartable {
std::atomic<int> g_runs{0};
constinit InternalWorker<int> g_worker{{
    .name = "cprof-unstart",
    .run = [] { g_runs.fetch_add(1); },
    .cannot_start = "cannot start the test's worker; it works at flushes",
    .stage = LifecycleStage::contexts,
    .handlers = {},
}};
}  // namespace unstartable

TEST_CASE("a worker whose thread cannot be started says so once and is tried again at the next start",
          "[internal_worker]") {
  using namespace unstartable;
  const auto [said, status] = in_child([] {
    computeprof::config::set_warning_sink(
        [](std::string_view line, void*) {
          say('[');
          for (char c : line) say(c);
          say(']');
        },
        nullptr);
    // Every new thread's stack is larger than the address space: none can be made.
    pthread_attr_t usual;
    pthread_getattr_default_np(&usual);
    pthread_attr_t huge;
    pthread_attr_init(&huge);
    pthread_attr_setstacksize(&huge, std::size_t{1} << 47);
    if (pthread_setattr_default_np(&huge) != 0) std::exit(10);
    if (g_worker.start() || g_worker.start() || g_worker.started()) std::exit(11);
    pthread_setattr_default_np(&usual);
    if (!g_worker.start() || !eventually([] { return g_runs.load() == 1; })) std::exit(12);
    say('.');
  });
  CHECK(status == 0);
  CHECK(said == "[cannot start the test's worker; it works at flushes].");
}
