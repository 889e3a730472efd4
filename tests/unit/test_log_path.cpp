#include "catch.hpp"

#include <map>
#include <string>

#include "logfmt/log_path.hpp"
#include "warning_capture.hpp"

using namespace computeprof;
using namespace computeprof::logfmt;

namespace {

std::optional<std::string> fake_env(std::string_view name, void*) {
  static const std::map<std::string, std::string, std::less<>> env{{"OMPI_COMM_WORLD_RANK", "3"},
                                                                   {"SLURM_PROCID", "17"}};
  auto it = env.find(name);
  if (it == env.end()) return std::nullopt;
  return it->second;
}

std::string expand(std::string_view tmpl, int device = 2) {
  PathTemplateValues v;
  v.device = device;
  v.pid = 4242;
  v.hostname = "node07";
  v.lookup = fake_env;
  return expand_log_path(tmpl, v);
}

}  // namespace

TEST_CASE("template sequences expand", "[path]") {
  test::WarningCapture warnings;
  CHECK(expand("cuda_profile_%d.log") == "cuda_profile_2.log");
  CHECK(expand("p%p.log") == "p4242.log");
  CHECK(expand("%h-%d.log") == "node07-2.log");
  CHECK(expand("rank%q{OMPI_COMM_WORLD_RANK}_%q{SLURM_PROCID}.log") == "rank3_17.log");
  CHECK(expand("100%%.log") == "100%.log");
  CHECK(expand("/a/b/%h/%p/%d/%%d") == "/a/b/node07/4242/2/%d");
  CHECK(expand("compute_profile.log") == "compute_profile.log");
  CHECK(warnings.lines().empty());
}

TEST_CASE("unknown sequences stay literal and are warned about once", "[path]") {
  test::WarningCapture warnings;
  CHECK(expand("a%x_%d.log") == "a%x_2.log");
  CHECK(expand("a%x_%d.log", 3) == "a%x_3.log");
  CHECK(expand("end%") == "end%");
  CHECK(expand("q%q.log") == "q%q.log");
  CHECK(expand("q%q{UNCLOSED.log") == "q%q{UNCLOSED.log");
  REQUIRE(warnings.lines().size() == 4);
  CHECK(warnings.lines()[0] == "log path 'a%x_%d.log': unknown sequence '%x' kept as is");
  CHECK(warnings.lines()[1] == "log path 'end%' ends with a lone '%'; kept as is");
  CHECK(warnings.lines()[2] == "log path 'q%q.log': %q needs {NAME}; kept as is");
  CHECK(warnings.lines()[3] == "log path 'q%q{UNCLOSED.log': %q needs {NAME}; kept as is");
}

TEST_CASE("an unset %q{NAME} expands to nothing, warned about once", "[path]") {
  test::WarningCapture warnings;
  CHECK(expand("r%q{NO_SUCH_RANK}.log") == "r.log");
  CHECK(expand("r%q{NO_SUCH_RANK}.log", 1) == "r.log");
  REQUIRE(warnings.lines().size() == 1);
  CHECK(warnings.lines()[0] == "log path 'r%q{NO_SUCH_RANK}.log': %q{NO_SUCH_RANK} is not set; it expands to nothing");
}

TEST_CASE("the context suffix goes before the extension", "[path]") {
  CHECK(insert_context_suffix("compute_profile.log", 2) == "compute_profile_2.log");
  CHECK(insert_context_suffix("dir.d/profile", 3) == "dir.d/profile_3");
  CHECK(insert_context_suffix("/x/.hidden", 4) == "/x/.hidden_4");
  CHECK(insert_context_suffix("a.b.csv", 5) == "a.b_5.csv");
}

TEST_CASE("two contexts never share a file", "[path]") {
  test::WarningCapture warnings;
  LogPathRegistry registry;
  CHECK(registry.claim("compute_profile.log", 1) == "compute_profile.log");
  CHECK(registry.claim("compute_profile.log", 2) == "compute_profile_2.log");
  CHECK(registry.claim("compute_profile.log", 1) == "compute_profile.log");
  CHECK(registry.claim("cuda_profile_0.log", 3) == "cuda_profile_0.log");
  CHECK(registry.claim("compute_profile.log", 4) == "compute_profile_4.log");
  REQUIRE(warnings.lines().size() == 2);
  CHECK(warnings.lines()[0] ==
        "context 2 would share log 'compute_profile.log' with context 1; it writes 'compute_profile_2.log'");
  CHECK(warnings.lines()[1] ==
        "context 4 would share log 'compute_profile.log' with context 1; it writes 'compute_profile_4.log'");
}

TEST_CASE("a suffixed path that is itself taken gets another suffix", "[path]") {
  test::WarningCapture warnings;
  LogPathRegistry registry;
  CHECK(registry.claim("a_2.log", 1) == "a_2.log");
  CHECK(registry.claim("a.log", 3) == "a.log");
  CHECK(registry.claim("a.log", 2) == "a_2_2.log");
  registry.clear();
  CHECK(registry.claim("a.log", 2) == "a.log");
}

TEST_CASE("path warnings escape the template, the sequence and the variable name", "[path]") {
  test::WarningCapture warnings;
  CHECK(expand("a%\n.log") == "a%\n.log");
  CHECK(expand("\x1b[2J%x") == "\x1b[2J%x");
  CHECK(expand("r%q{A\tB}.log") == "r.log");
  CHECK(expand(std::string(300, 'p') + "%y") == std::string(300, 'p') + "%y");
  REQUIRE(warnings.lines().size() == 4);
  CHECK(warnings.lines()[0] == "log path 'a%\\n.log': unknown sequence '%\\n' kept as is");
  CHECK(warnings.lines()[1] == "log path '\\x1b[2J%x': unknown sequence '%x' kept as is");
  CHECK(warnings.lines()[2] == "log path 'r%q{A\\tB}.log': %q{A\\tB} is not set; it expands to nothing");
  CHECK(warnings.lines()[3] == "log path '" + std::string(200, 'p') + "...': unknown sequence '%y' kept as is");
}

TEST_CASE("a shared path with a line break is echoed escaped", "[path]") {
  test::WarningCapture warnings;
  LogPathRegistry registry;
  CHECK(registry.claim("x\ny.log", 1) == "x\ny.log");
  CHECK(registry.claim("x\ny.log", 2) == "x\ny_2.log");
  REQUIRE(warnings.lines().size() == 1);
  CHECK(warnings.lines()[0] == "context 2 would share log 'x\\ny.log' with context 1; it writes 'x\\ny_2.log'");
}

TEST_CASE("the process suffix goes before the extension", "[path]") {
  CHECK(insert_process_suffix("compute_profile.log", 4242) == "compute_profile_4242.log");
  CHECK(insert_process_suffix("dir/a.log", 7) == "dir/a_7.log");
  CHECK(insert_process_suffix("dir.d/profile", 31337) == "dir.d/profile_31337");
  CHECK(insert_process_suffix("/x/.hidden", 2) == "/x/.hidden_2");
  CHECK(insert_process_suffix("a.b.csv", 4194304) == "a.b_4194304.csv");
}
