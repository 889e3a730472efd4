// The per-thread cache of streams' ids (shim/cuda/stream_ids): the driver is asked once
// per stream and context, and again whenever a stream or a context may have gone, as a
// destroyed stream's handle may come back as another stream.
#include "catch.hpp"

#include <map>
#include <utility>

#include "shim/cuda/stream_ids.hpp"
#include "shim/timing/thread_context.hpp"

using namespace computeprof::shim;

namespace {

// The fake driver's streams: handle -> id, and how often it was asked.
std::map<CUstream, unsigned long long> g_ids;
int g_asked = 0;

CUresult fake_stream_get_id(CUstream stream, unsigned long long* id) {
  ++g_asked;
  const auto it = g_ids.find(stream);
  if (it == g_ids.end()) return CUDA_ERROR_INVALID_HANDLE;
  *id = it->second;
  return CUDA_SUCCESS;
}

CUstream handle(std::uintptr_t n) { return reinterpret_cast<CUstream>(n); }
CUcontext context(std::uintptr_t n) { return reinterpret_cast<CUcontext>(n); }

}  // namespace

TEST_CASE("stream ids: asked once per stream and context, again after a stream or context went", "[streams]") {
  DriverCalls d;
  d.stream_get_id = fake_stream_get_id;
  g_ids = {{handle(0x100), 7}, {handle(0x200), 8}};
  g_asked = 0;
  // Fresh contexts, so that no earlier case's entries answer.
  forget_thread_contexts();

  CHECK(stream_id(d, context(0x10), handle(0x100)) == 7);
  CHECK(stream_id(d, context(0x10), handle(0x100)) == 7);
  CHECK(stream_id(d, context(0x10), handle(0x200)) == 8);
  CHECK(g_asked == 2);

  SECTION("the same handle in another context is asked for") {
    CHECK(stream_id(d, context(0x20), handle(0x100)) == 7);
    CHECK(g_asked == 3);
  }
  SECTION("a destroyed stream's handle, come back as another stream, gets the new id") {
    stream_destruction_begins();
    g_ids[handle(0x100)] = 9;
    // While a destruction is under way nothing is cached: each lookup asks.
    CHECK(stream_id(d, context(0x10), handle(0x100)) == 9);
    CHECK(stream_id(d, context(0x10), handle(0x100)) == 9);
    CHECK(g_asked == 4);
    stream_destruction_ends();
    CHECK(stream_id(d, context(0x10), handle(0x100)) == 9);
    CHECK(stream_id(d, context(0x10), handle(0x200)) == 8);
    CHECK(stream_id(d, context(0x10), handle(0x100)) == 9);
    CHECK(g_asked == 6);
  }
  SECTION("two destructions at once: cached again only after both ended") {
    stream_destruction_begins();
    stream_destruction_begins();
    stream_destruction_ends();
    CHECK(stream_id(d, context(0x10), handle(0x100)) == 7);
    CHECK(stream_id(d, context(0x10), handle(0x100)) == 7);
    CHECK(g_asked == 4);
    stream_destruction_ends();
    CHECK(stream_id(d, context(0x10), handle(0x100)) == 7);
    CHECK(stream_id(d, context(0x10), handle(0x100)) == 7);
    CHECK(g_asked == 5);
  }
  SECTION("a context that may have gone empties the cache") {
    forget_thread_contexts();
    CHECK(stream_id(d, context(0x10), handle(0x100)) == 7);
    CHECK(g_asked == 3);
  }
  SECTION("a stream the driver does not know is not cached, and is 0") {
    CHECK(stream_id(d, context(0x10), handle(0x300)) == 0);
    CHECK(stream_id(d, context(0x10), handle(0x300)) == 0);
    CHECK(g_asked == 4);
  }
  SECTION("no current context: the driver answers each time") {
    CHECK(stream_id(d, nullptr, handle(0x100)) == 7);
    CHECK(stream_id(d, nullptr, handle(0x100)) == 7);
    CHECK(g_asked == 4);
  }
  SECTION("more streams than the cache holds: each still gets its own id") {
    for (std::uintptr_t n = 1; n <= 6; ++n) g_ids[handle(0x1000 + n)] = 100 + n;
    for (int pass = 0; pass < 2; ++pass) {
      for (std::uintptr_t n = 1; n <= 6; ++n) CHECK(stream_id(d, context(0x10), handle(0x1000 + n)) == 100 + n);
    }
  }
}
