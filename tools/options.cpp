#include "tools/options.hpp"

namespace computeprof::tools {
namespace {

using Effect = Option::Effect;
using Value = Option::Value;

// The flags of config/options.def. Each config option is a config file line of
// docs/format.md; the parser of the config file judges its value, so that a flag and
// its line cannot disagree.
constexpr Option kOptions[] = {
#define FLAG(effect, long_name, short_name, value, value_name, config_line, help, ...) \
  {Effect::effect, long_name, short_name, Value::value, value_name, help, config_line},
#include "config/options.def"
};

}  // namespace

std::span<const Option> options() { return kOptions; }

}  // namespace computeprof::tools
