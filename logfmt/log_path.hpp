#pragma once
// Log path templates (%d %p %h %q{NAME} %%) and the rule that keeps two contexts out
// of one file (docs/format.md, "Log path template").
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "config/environment.hpp"

namespace computeprof::logfmt {

struct PathTemplateValues {
  int device = 0;
  long pid = 0;
  std::string_view hostname;
  config::EnvLookup lookup = config::process_env;
  void* lookup_user = nullptr;
};

// Expands a template. Unknown `%x` sequences stay literal; they and unset `%q{NAME}`
// variables (which expand to nothing) are warned about once per process.
std::string expand_log_path(std::string_view path_template, const PathTemplateValues& values);

// "dir/a.log" + 2 -> "dir/a_2.log"; "dir/a" + 2 -> "dir/a_2".
std::string insert_context_suffix(std::string_view path, int context);

// "dir/a.log" + 4242 -> "dir/a_4242.log": the path a process takes when another live
// process holds the lock of `path` (LogFile::open said OpenStatus::held).
std::string insert_process_suffix(std::string_view path, long pid);

// Hands each context a path no other context of this process writes to.
class LogPathRegistry {
 public:
  // Returns `path`, or if an earlier context holds it, the path with `_<context>`
  // before its extension (and says so on stderr).
  std::string claim(const std::string& path, int context);

  // Forgets every claim (a forked child writes its own files).
  void clear();

 private:
  std::mutex mutex_;
  std::map<std::string, int, std::less<>> owners_;
};

}  // namespace computeprof::logfmt
