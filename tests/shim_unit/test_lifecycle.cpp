// The lifecycle owner: stages run in their fixed order whatever order the parts added
// their handlers in; the shim's threads are named and take no signal.
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "catch.hpp"
#include "child_process.hpp"
#include "shim/process/lifecycle.hpp"

using namespace computeprof::shim;
using computeprof::test::in_child;
using computeprof::test::say;

TEST_CASE("exit handlers run in stage order, once per registration, whatever the order they were added in",
          "[lifecycle]") {
  const auto [said, status] = in_child([] {
    add_lifecycle_handlers(LifecycleStage::records, {[] { say('R'); }});
    add_lifecycle_handlers(LifecycleStage::operations, {[] { say('O'); }});
    add_lifecycle_handlers(LifecycleStage::counters, {[] { say('C'); }});
    // Fork handlers only: no exit sequence of their own.
    add_lifecycle_handlers(LifecycleStage::activities, {nullptr, [] {}, nullptr, nullptr});
  });
  CHECK(status == 0);
  // Three handlers with an exit part: three registrations, each running every stage.
  CHECK(said == "OCROCROCR");
}

TEST_CASE("fork handlers: prepare in stage order, parent and child in reverse", "[lifecycle]") {
  const auto [said, status] = in_child([] {
    add_lifecycle_handlers(LifecycleStage::contexts, {nullptr, [] { say('c'); }, [] { say('C'); }, [] { say('X'); }});
    add_lifecycle_handlers(LifecycleStage::operations,
                           {nullptr, [] { say('o'); }, [] { say('O'); }, [] { say('Y'); }});
    add_lifecycle_handlers(LifecycleStage::records, {nullptr, [] { say('r'); }, [] { say('R'); }, [] { say('Z'); }});
    const pid_t grandchild = fork();
    if (grandchild == 0) std::_Exit(0);
    waitpid(grandchild, nullptr, 0);
  });
  CHECK(status == 0);
  // Prepare o r c; then the parent's C R O and the child's X Z Y, in either interleaving.
  REQUIRE(said.size() == 9);
  CHECK(said.substr(0, 3) == "orc");
  std::string parent, child;
  for (char c : said.substr(3)) (std::string("CRO").find(c) != std::string::npos ? parent : child) += c;
  CHECK(parent == "CRO");
  CHECK(child == "XZY");
}

namespace {
std::atomic<bool> g_ran{false};
char g_name[32];
sigset_t g_blocked;
void* record_thread_state(void*) {
  pthread_getname_np(pthread_self(), g_name, sizeof g_name);
  pthread_sigmask(SIG_SETMASK, nullptr, &g_blocked);
  g_ran.store(true);
  return nullptr;
}
}  // namespace

TEST_CASE("internal threads are named and block every signal, the caller's mask is unchanged", "[lifecycle]") {
  sigset_t before, after;
  pthread_sigmask(SIG_SETMASK, nullptr, &before);
  REQUIRE(start_internal_thread("cprof-test", record_thread_state, nullptr));
  pthread_sigmask(SIG_SETMASK, nullptr, &after);
  for (int i = 0; i < 5000 && !g_ran.load(); ++i) usleep(1000);
  REQUIRE(g_ran.load());
  CHECK(std::string(g_name) == "cprof-test");
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGCHLD, SIGPIPE}) {
    CHECK(sigismember(&g_blocked, sig) == 1);
    CHECK(sigismember(&after, sig) == sigismember(&before, sig));
  }
}
