#include "config/environment.hpp"

#include <cstdlib>
#include <fmt/format.h>

#include "config/report.hpp"

namespace computeprof::config {
namespace {

enum class Flag { unset, off, on };

// Reads a 0/1 variable. `invalid_means` is what a value other than 0/1 stands for.
Flag read_flag(std::string_view name, Flag invalid_means, EnvLookup lookup, void* user) {
  std::optional<std::string> value = lookup(name, user);
  if (!value) return Flag::unset;
  if (*value == "0") return Flag::off;
  if (*value == "1") return Flag::on;
  if (value->empty()) {
    warn_once(fmt::format("{} is set but empty; treated as unset", name));
    return Flag::unset;
  }
  warn_once(fmt::format("{}='{}' is not 0 or 1; treated as {}", name, escape_for_warning(*value),
                        invalid_means == Flag::on ? 1 : 0));
  return invalid_means;
}

std::string_view own_family(Api api) { return api == Api::cuda ? "CUDA_PROFILE" : "OPENCL_PROFILE"; }

std::string_view own_default_log(Api api) {
  return api == Api::cuda ? "cuda_profile_%d.log" : "opencl_profile_%d.log";
}

// A non-empty string variable, COMPUTE_ one first.
std::optional<std::string> read_string(std::string_view suffix, std::string_view family, EnvLookup lookup,
                                       void* user) {
  if (auto v = lookup(fmt::format("COMPUTE_PROFILE{}", suffix), user); v && !v->empty()) return v;
  if (auto v = lookup(fmt::format("{}{}", family, suffix), user); v && !v->empty()) return v;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> process_env(std::string_view name, void*) {
  const char* v = std::getenv(std::string(name).c_str());
  if (!v) return std::nullopt;
  return std::string(v);
}

ApiEnvironment read_api_environment(Api api, EnvLookup lookup, void* user) {
  ApiEnvironment env;
  std::string_view family = own_family(api);
  Flag compute = read_flag("COMPUTE_PROFILE", Flag::on, lookup, user);
  Flag own = read_flag(family, Flag::on, lookup, user);
  if (compute != Flag::unset) {
    env.family = "COMPUTE_PROFILE";
    env.enabled = compute == Flag::on;
  } else {
    env.family = std::string(family);
    env.enabled = own == Flag::on;
  }
  if (auto log = read_string("_LOG", family, lookup, user)) {
    env.log_template = *log;
  } else {
    env.log_template = compute != Flag::unset ? "compute_profile.log" : std::string(own_default_log(api));
  }
  Flag csv = read_flag("COMPUTE_PROFILE_CSV", Flag::off, lookup, user);
  if (csv == Flag::unset) csv = read_flag(fmt::format("{}_CSV", family), Flag::off, lookup, user);
  env.csv = csv == Flag::on;
  env.config_path = read_string("_CONFIG", family, lookup, user).value_or("");
  env.config_name = lookup("COMPUTEPROF_CONFIG_NAME", user).value_or("");
  return env;
}

Settings resolve_settings(const ApiEnvironment& env) {
  Settings s;
  s.enabled = env.enabled;
  s.log_template = env.log_template;
  if (env.enabled && !env.config_path.empty()) s.config = load_profile_config(env.config_path, env.config_name);
  s.format = s.config.log_format.value_or(env.csv ? LogFormat::csv : LogFormat::kvp);
  return s;
}

ProcessSettings load_process_settings(EnvLookup lookup, void* user) {
  ApiEnvironment cuda = read_api_environment(Api::cuda, lookup, user);
  ApiEnvironment opencl = read_api_environment(Api::opencl, lookup, user);
  ProcessSettings out;
  out.cuda = resolve_settings(cuda);
  if (opencl.enabled && cuda.enabled && opencl.config_path == cuda.config_path) {
    out.opencl = out.cuda;
    out.opencl.enabled = true;
    out.opencl.log_template = opencl.log_template;
    out.opencl.format = out.cuda.config.log_format.value_or(opencl.csv ? LogFormat::csv : LogFormat::kvp);
  } else {
    out.opencl = resolve_settings(opencl);
  }
  return out;
}

}  // namespace computeprof::config
