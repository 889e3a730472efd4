// Nothing lost, nobody let in: logs are never followed through symbolic links and never
// emptied while another process writes them.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "catch.hpp"

#include "e2e_support.hpp"

using namespace e2e;

TEST_CASE("a program run by a profiled program keeps out of its parent's log: it writes its own, said once",
          "[e2e][hostile]") {
  auto o = profiling();
  const auto r = run_client("dlsym", "exec-child", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string child = printed_value(r.out, "child");
  REQUIRE_FALSE(child.empty());
  const std::string child_pid = child.substr(0, child.find(' '));
  CHECK(child.ends_with(" exited 0"));
  CHECK(r.err == "computeprof: '" + std::string("compute_profile.log") +
                     "' is being written by another process; this one writes 'compute_profile_" + child_pid +
                     ".log'\n");
  const auto parent_log = read_log(o.directory + "/compute_profile.log");
  CHECK(methods(parent_log) == Methods{"_Z4spiny", "_Z4spiny"});
  const auto child_log = read_log(o.directory + "/compute_profile_" + child_pid + ".log");
  CHECK(child_log.records.size() == 8);
}

TEST_CASE("a log path that is a symbolic link is not followed: its target stays as it was", "[e2e][hostile]") {
  auto o = profiling();
  const std::string target = o.directory + "/precious.txt";
  std::FILE* f = std::fopen(target.c_str(), "w");
  REQUIRE(f);
  std::fputs("keep me\n", f);
  std::fclose(f);
  REQUIRE(symlink(target.c_str(), (o.directory + "/compute_profile.log").c_str()) == 0);
  const auto r = run_client("dlsym", "bracket", o);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(read_file(target) == "keep me\n");
  CHECK(r.err == "computeprof: cannot open log 'compute_profile.log': is a symbolic link, not followed; this "
                 "context is not logged\n");
}
