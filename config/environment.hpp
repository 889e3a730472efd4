#pragma once
// The COMPUTE_PROFILE / CUDA_PROFILE / OPENCL_PROFILE variable families (docs/format.md,
// section 1) and the settings they give each kind of context.
#include <optional>
#include <string>
#include <string_view>

#include "config/profile_config.hpp"

namespace computeprof::config {

enum class Api { cuda, opencl };

// Looks up an environment variable; nullopt when it is not set.
using EnvLookup = std::optional<std::string> (*)(std::string_view name, void* user);

// Reads the real process environment.
std::optional<std::string> process_env(std::string_view name, void* user);

// What the variables say for one kind of context, before the config file is read.
struct ApiEnvironment {
  bool enabled = false;
  std::string family;          // "COMPUTE_PROFILE", "CUDA_PROFILE" or "OPENCL_PROFILE"
  std::string log_template;    // the *_LOG value, or the family's default name
  bool csv = false;            // *_PROFILE_CSV
  std::string config_path;     // *_PROFILE_CONFIG, empty when unset
  // COMPUTEPROF_CONFIG_NAME: what warnings call the config file. The computeprof
  // command gives the shim a copy of the user's file with its options' lines added, and
  // names the user's file here; empty: the path itself.
  std::string config_name;
};

// COMPUTE_* apply to both kinds and win over the kind's own family. Values other than
// 0/1 are warned about once: a non-empty one means 1 for *_PROFILE (the user asked for
// profiling) and 0 for *_PROFILE_CSV (the default format); an empty one counts as unset.
ApiEnvironment read_api_environment(Api api, EnvLookup lookup, void* user);

// Everything a context of one kind needs: the variables and the config file together.
struct Settings {
  bool enabled = false;
  std::string log_template;
  LogFormat format = LogFormat::kvp;
  ProfileConfig config;
};

Settings resolve_settings(const ApiEnvironment& env);

// Both kinds at once; a config file both kinds name is read and reported once.
struct ProcessSettings {
  Settings cuda;
  Settings opencl;
};
ProcessSettings load_process_settings(EnvLookup lookup, void* user);

}  // namespace computeprof::config
