// computeprof stacked with another CUDA interposer (stacked_interposer/counting_layer.cpp,
// with and without its dlsym hook, and wrapping what cuGetProcAddress answers as
// HAMi-core does), before and after it in LD_PRELOAD, on every reach path, with memtrace
// on and in both timing modes: the other layer sees as many calls as it does alone,
// computeprof records each operation once, the program prints and exits as it does
// without computeprof (docs/design.md, "Stacking").
#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"

#include "e2e_support.hpp"

using namespace e2e;

namespace {

// The counting layer's "name count" lines.
std::map<std::string, long> layer_counts(const std::string& path) {
  std::map<std::string, long> counts;
  std::ifstream in(path);
  std::string name;
  long n = 0;
  while (in >> name >> n) counts[name] = n;
  return counts;
}

// The counting layer's builds.
enum class Layer {
  plain,     // wraps its exports and the next layer's answers that are the next definition
  hook,      // the same, and hooks dlsym
  wrapping,  // hooks dlsym and wraps whatever cuGetProcAddress answers (HAMi-core)
};

const char* layer_path(Layer layer) {
  switch (layer) {
    case Layer::plain: return COUNTING_LAYER_PATH;
    case Layer::hook: return COUNTING_LAYER_DLSYM_PATH;
    case Layer::wrapping: return COUNTING_LAYER_WRAPPING_PATH;
  }
  return nullptr;
}

// `o` with the counting layer preloaded before or after the shim, writing its counts in
// o.directory.
void add_layer(RunOptions& o, Layer layer, bool shim_first) {
  (shim_first ? o.preload_after : o.preload_before).push_back(layer_path(layer));
  o.env["COUNTING_LAYER_FILE"] = o.directory + "/layer_counts";
}

struct LayeredRun {
  RunResult result;
  std::map<std::string, long> counts;  // what the layer saw
};

// `o` (its argv) run with the layer.
LayeredRun run_layered(RunOptions o, Layer layer, bool shim_first) {
  add_layer(o, layer, shim_first);
  LayeredRun r{run(o), {}};
  r.counts = layer_counts(o.directory + "/layer_counts");
  return r;
}

std::vector<std::string> client(const std::string& reach, const std::string& scenario) {
  return {reach.starts_with("linked") ? CLIENT_LINKED_PATH : CLIENT_PATH, reach, scenario};
}

// `argv` with the layer alone, no computeprof.
LayeredRun run_alone(std::vector<std::string> argv, Layer layer,
                     const std::map<std::string, std::optional<std::string>>& env = {}) {
  RunOptions o;
  o.directory = make_scratch_directory();
  o.preload_shim = false;
  o.env = env;
  o.argv = std::move(argv);
  return run_layered(o, layer, false);
}

// `argv` profiled with `config`, the layer before or after computeprof.
LayeredRun run_stacked(std::vector<std::string> argv, Layer layer, bool shim_first, const std::string& config,
                       RunOptions& o, const std::map<std::string, std::optional<std::string>>& env = {}) {
  o = profiling(config);
  for (const auto& [name, value] : env) o.env[name] = value;
  o.argv = std::move(argv);
  return run_layered(o, layer, shim_first);
}

// Every record's method in every log of `directory`.
Methods all_methods(const std::string& directory) {
  Methods out;
  for (const auto& f : list_directory(directory)) {
    if (!f.starts_with("compute_profile") || !f.ends_with(".log")) continue;
    for (auto& m : methods(read_log(directory + "/" + f))) out.push_back(std::move(m));
  }
  std::sort(out.begin(), out.end());
  return out;
}

Methods sorted(Methods m) {
  std::sort(m.begin(), m.end());
  return m;
}

// What computeprof writes on stderr with memtrace on, and nothing else.
bool only_memory_lines(const std::string& err) {
  std::istringstream in(err);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("computeprof: memory: ")) return false;
  }
  return true;
}

// driver_client's "basic" (tests/e2e/driver_client.cpp).
const Methods kBasicMethods = {"memcpyHtoD", "memcpyHtoD", "_Z6vecAddPKfS0_Pfi", "_Z4spiny",
                               "memcpyDtoHasync", "memcpyDtoD", "memset", "_Z4spiny"};

}  // namespace

TEST_CASE("stacked with another interposer: both orders, with and without its dlsym hook, memtrace on, both timing "
          "modes, the other layer counts as alone and every operation is recorded once",
          "[e2e][stacking]") {
  const auto reach = GENERATE(as<std::string>{}, "linked", "dlsym", "procaddress", "procaddress-ptds", "runtime");
  const bool hook = GENERATE(false, true);
  INFO("reach " << reach << (hook ? ", the layer hooks dlsym" : ""));
  const Layer layer = hook ? Layer::hook : Layer::plain;
  const auto alone = run_alone(client(reach, "basic"), layer);
  INFO(alone.result.out << alone.result.err);
  REQUIRE(alone.result.exit_code == 0);
  REQUIRE(alone.counts.size() == 6);
  // The layer is reached by linking, and through its dlsym hook on every path; not for
  // the per-thread launch (its _ptsz variant is not the layer's) nor the per-thread
  // lookups of cuLaunchKernel.
  CHECK(alone.counts.at("cuLaunchKernel") == (reach == "linked" || (hook && reach != "procaddress-ptds") ? 2 : 0));
  CHECK(alone.counts.at("cuMemAlloc_v2") == (reach == "linked" || hook ? 4 : 0));

  for (const bool shim_first : {true, false}) {
    for (const bool concurrent : {false, true}) {
      INFO((shim_first ? "computeprof first" : "the layer first") << (concurrent ? ", conckerneltrace" : ", serialized"));
      RunOptions o;
      const auto r = run_stacked(client(reach, "basic"), layer, shim_first,
                                 std::string("memtrace\n") + (concurrent ? "conckerneltrace\n" : ""), o);
      INFO(r.result.out << r.result.err);
      CHECK(r.result.exit_code == 0);
      CHECK(r.result.out == alone.result.out);
      CHECK(only_memory_lines(r.result.err));
      CHECK(r.counts == alone.counts);
      CHECK(all_methods(o.directory) == sorted(kBasicMethods));
      // Five allocations and five frees, each traced once.
      CHECK(read_file(o.directory + "/compute_profile.memory").find("\n# 10 events, 0 frees of unknown addresses\n") !=
            std::string::npos);
    }
  }
}

TEST_CASE("stacked with another interposer that hooks dlsym and wraps what cuGetProcAddress answers (HAMi-core): "
          "both orders, every reach path, the layer counts every call once, as alone, nothing is said, every operation "
          "is recorded once",
          "[e2e][stacking]") {
  const auto reach = GENERATE(as<std::string>{}, "linked", "linked-procaddress", "dlsym", "procaddress",
                              "procaddress-ptds", "runtime");
  INFO("reach " << reach);
  const auto alone = run_alone(client(reach, "basic"), Layer::wrapping);
  INFO(alone.result.out << alone.result.err);
  REQUIRE(alone.result.exit_code == 0);
  // Both default-stream launches: by its export where linking or its dlsym hook finds
  // it, else by the answer it wrapped; the per-thread one is not the layer's. Its
  // allocation exports, by linking or its dlsym hook. Its export of the lookup function
  // where dlsym or linking finds it, the lookup function it answered "cuGetProcAddress"
  // with for the rest of the runtime's lookups.
  const bool by_export = reach == "linked" || reach == "dlsym";
  const bool by_lookup = reach != "procaddress-ptds" && !by_export;
  CHECK(alone.counts.at("cuLaunchKernel") == (by_export ? 2 : 0));
  CHECK(alone.counts.at("cuLaunchKernel(answer)") == (by_lookup ? 2 : 0));
  CHECK(alone.counts.at("cuMemAlloc_v2") == (by_export ? 4 : 0));
  CHECK(alone.counts.at("cuGetProcAddress") == (by_export ? 0 : reach == "runtime" ? 2 : 41));
  CHECK(alone.counts.at("cuGetProcAddress(answer)") == (reach == "runtime" ? 42 : 0));
  for (const bool shim_first : {true, false}) {
    INFO((shim_first ? "computeprof first" : "the layer first"));
    RunOptions o;
    const auto r = run_stacked(client(reach, "basic"), Layer::wrapping, shim_first, "memtrace\n", o);
    INFO(r.result.out << r.result.err);
    CHECK(r.result.exit_code == 0);
    CHECK(r.result.out == alone.result.out);
    CHECK(only_memory_lines(r.result.err));
    CHECK(r.counts == alone.counts);
    CHECK(all_methods(o.directory) == sorted(kBasicMethods));
    CHECK(read_file(o.directory + "/compute_profile.memory").find("\n# 10 events, 0 frees of unknown addresses\n") !=
          std::string::npos);
  }
}

TEST_CASE("stacked with another interposer, many threads: the layer sees every launch, each recorded once",
          "[e2e][stacking]") {
  const Layer layer = GENERATE(Layer::plain, Layer::hook, Layer::wrapping);
  const std::vector<std::string> argv = {MULTI_THREAD_PATH, "4", "50"};
  const auto alone = run_alone(argv, layer);
  REQUIRE(alone.result.exit_code == 0);
  CHECK(alone.counts.at("cuLaunchKernel") == 200);
  for (const bool shim_first : {true, false}) {
    for (const bool concurrent : {false, true}) {
      INFO("layer " << layer_path(layer) << (shim_first ? ", computeprof first" : ", the layer first")
                    << (concurrent ? ", conckerneltrace" : ", serialized"));
      RunOptions o;
      const auto r = run_stacked(argv, layer, shim_first, concurrent ? "conckerneltrace\n" : "", o,
                                 {{"COMPUTE_PROFILE_LOG", "compute_profile_%d.log"}});
      INFO(r.result.out << r.result.err);
      CHECK(r.result.exit_code == 0);
      CHECK(r.result.out == alone.result.out);
      CHECK(r.counts == alone.counts);
      Methods expected(200, "_Z5emptyv");
      expected.insert(expected.end(), 4, "memcpyHtoDasync");
      expected.insert(expected.end(), 4, "memcpyDtoHasync");
      CHECK(all_methods(o.directory) == sorted(expected));
    }
  }
}

TEST_CASE("a driver that answers per-thread lookups with the default-stream function: every copy recorded once, "
          "alone and stacked",
          "[e2e][stacking]") {
  const auto layer = GENERATE(as<std::string>{}, "none", "after", "before");
  const bool cupti = GENERATE(true, false);
  INFO("layer " << layer << (cupti ? ", CUPTI" : ", event pairs"));
  RunOptions o = profiling();
  o.env["SIMCUDA_PER_THREAD_AS_DEFAULT"].emplace(1, '1');  // not = "1": GCC 12 warns falsely (-Wrestrict)
  if (!cupti) o.env["COMPUTEPROF_CUPTI_LIBRARY"] = o.directory + "/no-such-libcupti.so";
  if (layer != "none") add_layer(o, Layer::plain, layer == "after");
  const auto r = run_client("procaddress-ptds", "ten-copies", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.ends_with("10 copies ok\nPASS\n"));
  Methods expected(5, "memcpyHtoD");
  expected.insert(expected.end(), 5, "memcpyDtoHasync");
  CHECK(all_methods(o.directory) == sorted(expected));
}

TEST_CASE("a layer that calls computeprof again inside a call, or finds its next function on the driver's handle "
          "through computeprof's dlsym: no loop, each operation recorded once",
          "[e2e][stacking]") {
  const auto how = GENERATE(as<std::string>{}, "COUNTING_LAYER_LAUNCH=ex", "COUNTING_LAYER_NEXT=driver-handle");
  const auto reach = GENERATE(as<std::string>{}, "linked", "runtime");
  const auto eq = how.find('=');
  const std::map<std::string, std::optional<std::string>> env = {{how.substr(0, eq), how.substr(eq + 1)}};
  INFO(how << ", reach " << reach);
  const auto alone = run_alone(client(reach, "basic"), Layer::plain, env);
  REQUIRE(alone.result.exit_code == 0);
  for (const bool shim_first : {true, false}) {
    INFO((shim_first ? "computeprof first" : "the layer first"));
    RunOptions o;
    const auto r = run_stacked(client(reach, "basic"), Layer::plain, shim_first, "memtrace\n", o, env);
    INFO(r.result.out << r.result.err);
    CHECK(r.result.exit_code == 0);
    CHECK(r.result.out == alone.result.out);
    CHECK(r.counts == alone.counts);
    CHECK(all_methods(o.directory) == sorted(kBasicMethods));
    CHECK(read_file(o.directory + "/compute_profile.memory").find("\n# 10 events, 0 frees of unknown addresses\n") !=
          std::string::npos);
  }
}

TEST_CASE("a layer that answers one entry point two ways, linked and looked up: one line says computeprof calls the "
          "first it found",
          "[e2e][stacking]") {
  RunOptions o = profiling();
  add_layer(o, Layer::plain, true);
  const auto r = run_client("linked", "launch-then-lookup", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err ==
        "computeprof: another CUDA interposer answers cuLaunchKernel by this lookup with another function than "
        "computeprof already calls; computeprof's wrapper calls the first it found\n");
  CHECK(all_methods(o.directory) == Methods{"_Z4spiny", "_Z4spiny"});
  // Alone, the layer sees the linked launch only; under computeprof both (the limit).
  CHECK(layer_counts(o.directory + "/layer_counts").at("cuLaunchKernel") == 2);
}
