#include "catch.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "config/environment.hpp"
#include "warning_capture.hpp"

using namespace computeprof::config;
using computeprof::test::WarningCapture;

namespace {

using Env = std::map<std::string, std::string, std::less<>>;

std::optional<std::string> lookup(std::string_view name, void* user) {
  const Env& env = *static_cast<const Env*>(user);
  auto it = env.find(name);
  if (it == env.end()) return std::nullopt;
  return it->second;
}

ApiEnvironment read(Api api, Env env) { return read_api_environment(api, lookup, &env); }

}  // namespace

TEST_CASE("nothing set: nothing profiled", "[env]") {
  WarningCapture warnings;
  CHECK_FALSE(read(Api::cuda, {}).enabled);
  CHECK_FALSE(read(Api::opencl, {}).enabled);
  CHECK(warnings.lines().empty());
}

TEST_CASE("precedence of the three families", "[env]") {
  WarningCapture warnings;
  struct Row {
    Env env;
    bool cuda;
    bool opencl;
  };
  // clang-format off
  const Row rows[] = {
      {{{"COMPUTE_PROFILE", "1"}}, true, true},
      {{{"COMPUTE_PROFILE", "0"}}, false, false},
      {{{"CUDA_PROFILE", "1"}}, true, false},
      {{{"OPENCL_PROFILE", "1"}}, false, true},
      {{{"CUDA_PROFILE", "1"}, {"OPENCL_PROFILE", "1"}}, true, true},
      {{{"COMPUTE_PROFILE", "0"}, {"CUDA_PROFILE", "1"}}, false, false},
      {{{"COMPUTE_PROFILE", "0"}, {"OPENCL_PROFILE", "1"}}, false, false},
      {{{"COMPUTE_PROFILE", "1"}, {"CUDA_PROFILE", "0"}}, true, true},
      {{{"CUDA_PROFILE", "0"}, {"OPENCL_PROFILE", "1"}}, false, true},
  };
  // clang-format on
  for (const Row& row : rows) {
    INFO("COMPUTE=" << (row.env.count("COMPUTE_PROFILE") ? row.env.at("COMPUTE_PROFILE") : "-")
                    << " CUDA=" << (row.env.count("CUDA_PROFILE") ? row.env.at("CUDA_PROFILE") : "-")
                    << " OPENCL=" << (row.env.count("OPENCL_PROFILE") ? row.env.at("OPENCL_PROFILE") : "-"));
    CHECK(read(Api::cuda, row.env).enabled == row.cuda);
    CHECK(read(Api::opencl, row.env).enabled == row.opencl);
  }
  CHECK(warnings.lines().empty());
}

TEST_CASE("default log names per family", "[env]") {
  CHECK(read(Api::cuda, {{"COMPUTE_PROFILE", "1"}}).log_template == "compute_profile.log");
  CHECK(read(Api::opencl, {{"COMPUTE_PROFILE", "1"}}).log_template == "compute_profile.log");
  CHECK(read(Api::cuda, {{"CUDA_PROFILE", "1"}}).log_template == "cuda_profile_%d.log");
  CHECK(read(Api::opencl, {{"OPENCL_PROFILE", "1"}}).log_template == "opencl_profile_%d.log");
  CHECK(read(Api::cuda, {{"CUDA_PROFILE", "1"}}).family == "CUDA_PROFILE");
  CHECK(read(Api::cuda, {{"COMPUTE_PROFILE", "1"}, {"CUDA_PROFILE", "1"}}).family == "COMPUTE_PROFILE");
}

TEST_CASE("LOG, CSV and CONFIG: the COMPUTE_ ones win, the family's own apply alone", "[env]") {
  Env env{{"CUDA_PROFILE", "1"},
          {"CUDA_PROFILE_LOG", "cuda.log"},
          {"CUDA_PROFILE_CSV", "1"},
          {"CUDA_PROFILE_CONFIG", "cuda.cfg"},
          {"OPENCL_PROFILE", "1"},
          {"OPENCL_PROFILE_LOG", "cl.log"}};
  auto cuda = read(Api::cuda, env);
  CHECK(cuda.log_template == "cuda.log");
  CHECK(cuda.csv);
  CHECK(cuda.config_path == "cuda.cfg");
  auto cl = read(Api::opencl, env);
  CHECK(cl.log_template == "cl.log");
  CHECK_FALSE(cl.csv);
  CHECK(cl.config_path.empty());

  env["COMPUTE_PROFILE_LOG"] = "all.log";
  env["COMPUTE_PROFILE_CSV"] = "0";
  env["COMPUTE_PROFILE_CONFIG"] = "all.cfg";
  cuda = read(Api::cuda, env);
  CHECK(cuda.log_template == "all.log");
  CHECK_FALSE(cuda.csv);
  CHECK(cuda.config_path == "all.cfg");
  cl = read(Api::opencl, env);
  CHECK(cl.log_template == "all.log");
  CHECK(cl.config_path == "all.cfg");
  CHECK(cl.config_name.empty());
  env["COMPUTEPROF_CONFIG_NAME"] = "mine.cfg";
  CHECK(read(Api::cuda, env).config_name == "mine.cfg");
}

TEST_CASE("values other than 0 and 1 are warned about once, naming variable and value", "[env]") {
  WarningCapture warnings;
  Env env{{"COMPUTE_PROFILE", "yes"}, {"COMPUTE_PROFILE_CSV", "2"}};
  auto cuda = read(Api::cuda, env);
  auto cl = read(Api::opencl, env);
  CHECK(cuda.enabled);
  CHECK(cl.enabled);
  CHECK_FALSE(cuda.csv);
  REQUIRE(warnings.lines().size() == 2);
  CHECK(warnings.lines()[0] == "COMPUTE_PROFILE='yes' is not 0 or 1; treated as 1");
  CHECK(warnings.lines()[1] == "COMPUTE_PROFILE_CSV='2' is not 0 or 1; treated as 0");
}

TEST_CASE("an empty variable counts as unset, with a warning", "[env]") {
  WarningCapture warnings;
  auto cuda = read(Api::cuda, {{"COMPUTE_PROFILE", ""}, {"CUDA_PROFILE", "1"}});
  CHECK(cuda.enabled);
  CHECK(cuda.family == "CUDA_PROFILE");
  CHECK(cuda.log_template == "cuda_profile_%d.log");
  REQUIRE(warnings.lines().size() == 1);
  CHECK(warnings.lines()[0] == "COMPUTE_PROFILE is set but empty; treated as unset");
}

TEST_CASE("profilelogformat overrides COMPUTE_PROFILE_CSV", "[env]") {
  auto dir = std::filesystem::temp_directory_path() / "computeprof-env-test.cfg";
  std::ofstream(dir) << "profilelogformat KVP\n";
  Env env{{"COMPUTE_PROFILE", "1"}, {"COMPUTE_PROFILE_CSV", "1"}, {"COMPUTE_PROFILE_CONFIG", dir.string()}};
  auto settings = load_process_settings(lookup, &env);
  CHECK(settings.cuda.format == LogFormat::kvp);
  CHECK(settings.opencl.format == LogFormat::kvp);
  env.erase("COMPUTE_PROFILE_CONFIG");
  settings = load_process_settings(lookup, &env);
  CHECK(settings.cuda.format == LogFormat::csv);
  std::filesystem::remove(dir);
}

TEST_CASE("a config file both kinds share is read and reported once", "[env]") {
  WarningCapture warnings;
  Env env{{"COMPUTE_PROFILE", "1"}, {"COMPUTE_PROFILE_CONFIG", "/nonexistent/shared.cfg"}};
  auto settings = load_process_settings(lookup, &env);
  CHECK(settings.cuda.enabled);
  CHECK(settings.opencl.enabled);
  CHECK(warnings.lines().size() == 1);
}

TEST_CASE("a config file is not read when profiling is off", "[env]") {
  WarningCapture warnings;
  Env env{{"CUDA_PROFILE_CONFIG", "/nonexistent/x.cfg"}};
  auto settings = load_process_settings(lookup, &env);
  CHECK_FALSE(settings.cuda.enabled);
  CHECK(warnings.lines().empty());
}

TEST_CASE("a 100000-byte value is one warning line of 249 characters", "[env]") {
  WarningCapture warnings;
  CHECK(read(Api::cuda, {{"COMPUTE_PROFILE", std::string(100000, 'x')}}).enabled);
  REQUIRE(warnings.lines().size() == 1);
  CHECK(warnings.lines()[0] == "COMPUTE_PROFILE='" + std::string(200, 'x') + "...' is not 0 or 1; treated as 1");
  CHECK(warnings.lines()[0].size() == 249);
}

TEST_CASE("a line break in a value cannot forge a second warning line", "[env]") {
  WarningCapture warnings;
  CHECK_FALSE(read(Api::cuda, {{"CUDA_PROFILE", "1"}, {"CUDA_PROFILE_CSV", "0\ncomputeprof: forged"}}).csv);
  REQUIRE(warnings.lines().size() == 1);
  CHECK(warnings.lines()[0] == "CUDA_PROFILE_CSV='0\\ncomputeprof: forged' is not 0 or 1; treated as 0");
}
