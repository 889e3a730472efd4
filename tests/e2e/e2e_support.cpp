#include "e2e_support.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace e2e {

std::string write_config(const std::string& directory, const std::string& text) {
  const std::string path = directory + "/profile.cfg";
  std::ofstream(path) << text;
  return path;
}

RunOptions profiling(const std::string& config) {
  RunOptions o;
  o.directory = make_scratch_directory();
  o.env["COMPUTE_PROFILE"].emplace(1, '1');  // not = "1": GCC 12 warns falsely (-Wrestrict)
  if (!config.empty()) o.env["COMPUTE_PROFILE_CONFIG"] = write_config(o.directory, config);
  return o;
}

Methods methods(const ParsedLog& log) {
  Methods out;
  for (const auto& r : log.records) out.push_back(r.at("method"));
  return out;
}

RunResult run_client(const std::string& reach, const std::string& scenario, RunOptions options,
                     std::vector<std::string> extra_args) {
  const std::string client = reach == "linked" ? CLIENT_LINKED_PATH : CLIENT_PATH;
  options.argv = {client, reach, scenario};
  for (auto& a : extra_args) options.argv.push_back(std::move(a));
  return run(options);
}

RunResult run_memory_client(const std::string& reach, const std::string& scenario, RunOptions options) {
  options.argv = {reach == "linked" ? MEMORY_CLIENT_LINKED_PATH : MEMORY_CLIENT_PATH, reach, scenario};
  return run(options);
}

std::string printed_value(const std::string& out, const std::string& prefix) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with(prefix + " ")) return line.substr(prefix.size() + 1);
  }
  return {};
}

CommandOutput command_output(const std::string& command) {
  CommandOutput result;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) {
    result.out = "popen failed: " + command;
    return result;
  }
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, p)) > 0;) result.out.append(buffer, n);
  const int status = pclose(p);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

RunResult run_rank(std::string& directory, int rank, int world_size, const std::string& config) {
  auto o = profiling(config);
  if (!directory.empty()) o.directory = directory;
  directory = o.directory;
  o.env["COMPUTE_PROFILE_LOG"] = directory + "/rank_%q{RANK}.log";
  o.env["RANK"] = std::to_string(rank);
  o.env["WORLD_SIZE"] = std::to_string(world_size);
  return run_client("linked", "basic", o);
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace e2e
