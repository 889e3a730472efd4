// The NVTX names and paths table read by the writer while the application's threads
// intern entries (records/range_table): the unit test that runs threads, and so the one
// of this folder the ThreadSanitizer build runs.
#include "catch.hpp"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "records/range_table.hpp"

TEST_CASE("range table: read by one thread while others intern names, domains and paths", "[nvtx][threads]") {
  // The writer reads texts by id without the interning lock while the application's
  // threads add entries: past several chunks, each entry read must be whole (what
  // ThreadSanitizer checks in its build) and the text of its step.
  computeprof::records::RangeTable table;
  constexpr int kThreads = 4;
  constexpr int kNames = 1500;  // per thread; with their paths, past the first chunks
  std::atomic<int> running{kThreads};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&table, &running, t] {
      const auto domain = table.add_domain(table.intern_name("domain" + std::to_string(t)));
      for (int i = 0; i < kNames; ++i) {
        const auto shared = table.intern_name("shared" + std::to_string(i));  // met by every thread
        const auto own = table.intern_name("t" + std::to_string(t) + "-" + std::to_string(i));
        table.intern_path(table.intern_path(0, 0, shared), domain, own);
      }
      running.fetch_sub(1);
    });
  }
  std::size_t read = 0;
  std::size_t wrong = 0;
  std::size_t next_path = 1;
  std::size_t next_name = 1;
  bool last_pass = false;
  while (!last_pass) {
    last_pass = running.load() == 0;
    for (const auto n = table.name_count(); next_name < n; ++next_name, ++read) {
      const auto id = static_cast<computeprof::records::RangeNameId>(next_name);
      if (table.name(id) != table.raw_name(id) || table.name(id).empty()) ++wrong;
    }
    for (const auto n = table.path_count(); next_path < n; ++next_path, ++read) {
      const auto id = static_cast<computeprof::records::RangePathId>(next_path);
      const computeprof::records::RangePathStep step = table.step(id);
      std::string expected(table.path_text(step.parent));
      if (step.parent != 0) expected += '/';
      expected += table.qualified_name(step.domain, step.name);
      if (table.path_text(id) != expected) ++wrong;
    }
  }
  for (auto& thread : threads) thread.join();
  CHECK(wrong == 0);
  CHECK(table.name_count() == 1 + kThreads + kNames + kThreads * kNames);
  CHECK(table.domain_count() == 1 + kThreads);
  CHECK(table.path_count() == 1 + kNames + kThreads * kNames);
  CHECK(read == table.name_count() - 1 + table.path_count() - 1);
  computeprof::records::RangeDomainId domain1 = 0;
  for (computeprof::records::RangeDomainId d = 1; d <= kThreads; ++d) {
    if (table.name(table.domain_name(d)) == "domain1") domain1 = d;
  }
  REQUIRE(domain1 != 0);
  const auto shared7 = table.intern_path(0, 0, table.intern_name("shared7"));
  const auto path_count = table.path_count();
  CHECK(table.path_text(table.intern_path(shared7, domain1, table.intern_name("t1-7"))) == "shared7/t1-7@domain1");
  CHECK(table.path_count() == path_count);  // interned by its thread already
}
