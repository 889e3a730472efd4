// computeprof merge on the JSON traces of three ranks of the simulated driver (two plain,
// one gzip): the events equal the inputs' on one time axis, --align undoes anchors skewed
// by known offsets (check_merge.py); a malformed input is one error naming it and leaves
// no output file.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "catch.hpp"

#include "e2e_support.hpp"

using namespace e2e;

namespace {

RunResult merge(const std::string& directory, const std::vector<std::string>& args) {
  RunOptions o;
  o.directory = directory;
  o.preload_shim = false;
  o.argv = {COMPUTEPROF_CLI_PATH, "merge"};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  return e2e::run(o);
}

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// Three ranks' traces in one directory: rank_0.json, rank_1.json, rank_2.json.gz.
std::vector<std::string> three_ranks(std::string& directory) {
  std::vector<std::string> traces;
  for (int rank = 0; rank < 3; ++rank) {
    const auto r = run_rank(directory, rank, 3, rank == 2 ? "export json.gz\n" : "export json\n");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    traces.push_back(directory + "/rank_" + std::to_string(rank) + (rank == 2 ? ".json.gz" : ".json"));
    REQUIRE(exists(traces.back()));
  }
  return traces;
}

}  // namespace

TEST_CASE("merge: three ranks on one time axis, their events as they were, --align undoes skewed anchors",
          "[e2e][merge]") {
  std::string directory;
  const auto traces = three_ranks(directory);
  std::string command = std::string(PYTHON3_PATH) + " " + CHECK_MERGE_PATH + " " + COMPUTEPROF_CLI_PATH + " " +
                        directory;
  for (const auto& t : traces) command += " " + t;
  const CommandOutput r = command_output(command);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(r.out.starts_with("merge ok: 3 runs, 3 skewed copies of "));
}

TEST_CASE("merge: a malformed or truncated input, a rank twice or a missing --align range is one error, no output",
          "[e2e][merge]") {
  std::string directory;
  const auto traces = three_ranks(directory);
  const std::string out = directory + "/merged.json";

  // Cut inside the second line: the error names the file and where the text ends.
  const std::string plain = contents(traces[0]);
  const std::string cut = directory + "/cut.json";
  write_file(cut, plain.substr(0, plain.find('\n', plain.find('\n') + 1) + 12));
  auto r = merge(directory, {traces[1], cut, "-o", out});
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(r.err == "computeprof: merge: " + cut + ": line 3, column 12: the text ends inside a string\n");
  CHECK(!exists(out));

  // Not JSON at all, at a known place.
  const std::string broken = directory + "/broken.json";
  write_file(broken, "{\"baseTimeNanoseconds\":1,\n\"traceEvents\":[{\"ph\":\"X\"} {}]}");
  r = merge(directory, {broken, "-o", out});
  CHECK(r.exit_code == 1);
  CHECK(r.err == "computeprof: merge: " + broken + ": line 2, column 27: ',' or ']' is expected after an event\n");
  CHECK(!exists(out));

  // A gzip trace cut inside its first member.
  const std::string packed = contents(traces[2]);
  const std::string cut_gzip = directory + "/cut.json.gz";
  write_file(cut_gzip, packed.substr(0, 40));
  r = merge(directory, {traces[0], cut_gzip, "-o", out + ".gz"});
  CHECK(r.exit_code == 1);
  CHECK(r.err == "computeprof: merge: " + cut_gzip + ": the gzip data ends inside a member (byte 40)\n");
  CHECK(!exists(out + ".gz"));

  r = merge(directory, {traces[0], traces[1], traces[0], "-o", out});
  CHECK(r.exit_code == 1);
  CHECK(r.err == "computeprof: merge: " + traces[0] + " and " + traces[0] + " are both rank 0\n");

  r = merge(directory, {traces[0], traces[1], "--align", "nothing", "-o", out});
  CHECK(r.exit_code == 1);
  CHECK(r.err == "computeprof: merge: " + traces[0] + ": no kernel or NVTX range named 'nothing' ends in it\n");
  CHECK(!exists(out));

  // An existing output is left as it was when the merge fails.
  write_file(out, "before");
  r = merge(directory, {traces[0], directory + "/missing.json", "-o", out});
  CHECK(r.exit_code == 1);
  CHECK(r.err == "computeprof: merge: " + directory + "/missing.json: No such file or directory\n");
  CHECK(contents(out) == "before");

  r = merge(directory, {traces[0]});
  CHECK(r.exit_code == 2);
  CHECK(r.err == "computeprof: merge needs -o OUT.json, -o OUT.json.gz or -o OUT.pftrace (see computeprof --help)\n");
}

TEST_CASE("merge: run files merge as the JSON traces made from them", "[e2e][merge]") {
  std::string directory;
  for (int rank = 0; rank < 2; ++rank) {
    const auto r = run_rank(directory, rank, 2, "export cprof,json\n");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
  }
  // Each merged file made in a directory of its own: the same name, which the trace records.
  REQUIRE(mkdir((directory + "/traces").c_str(), 0700) == 0);
  REQUIRE(mkdir((directory + "/runs").c_str(), 0700) == 0);
  const auto from_traces = merge(directory + "/traces", {"../rank_0.json", "../rank_1.json", "-o", "merged.json"});
  INFO(from_traces.out << from_traces.err);
  REQUIRE(from_traces.exit_code == 0);
  const auto from_runs = merge(directory + "/runs", {"../rank_1.cprof", "../rank_0.cprof", "-o", "merged.json"});
  INFO(from_runs.out << from_runs.err);
  REQUIRE(from_runs.exit_code == 0);
  CHECK(from_runs.err.empty());
  CHECK(contents(directory + "/runs/merged.json") == contents(directory + "/traces/merged.json"));

  // A damaged run file is one error naming it and where, and no output.
  std::string damaged = contents(directory + "/rank_1.cprof");
  REQUIRE(damaged.size() > 40);
  damaged[damaged.size() - 20] ^= 0x10;
  write_file(directory + "/damaged.cprof", damaged);
  const auto bad = merge(directory, {"rank_0.cprof", "damaged.cprof", "-o", "bad.json"});
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.starts_with("computeprof: merge: damaged.cprof: at byte "));
  CHECK_FALSE(exists(directory + "/bad.json"));
}
