#include "bench/callgrind_costs.hpp"

#include <cctype>
#include <fstream>
#include <sstream>

namespace computeprof::bench {
namespace {

// "(id) name" defines id, "(id)" refers to it, a bare name has no id.
std::string resolve(std::map<std::string, std::string>& names, const std::string& spec) {
  if (spec.empty() || spec[0] != '(') return spec;
  const std::size_t close = spec.find(')');
  if (close == std::string::npos) return spec;
  const std::string id = spec.substr(1, close - 1);
  std::size_t rest = close + 1;
  while (rest < spec.size() && spec[rest] == ' ') ++rest;
  if (rest < spec.size()) names[id] = spec.substr(rest);
  const auto it = names.find(id);
  return it == names.end() ? "???" : it->second;
}

}  // namespace

bool read_object_costs(const std::string& path, std::map<std::string, std::uint64_t>& costs) {
  std::ifstream in(path);
  if (!in) return false;
  std::map<std::string, std::string> names;
  std::string object = "???";
  // The cost line after `calls=` is the callee's inclusive cost, not this object's.
  bool callee_cost_next = false;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const char c = line[0];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '*') {
      if (callee_cost_next) {
        callee_cost_next = false;
        continue;
      }
      std::istringstream fields(line);
      std::string position;
      std::uint64_t ir = 0;
      if (fields >> position >> ir) costs[object] += ir;
    } else if (line.rfind("ob=", 0) == 0) {
      object = resolve(names, line.substr(3));
    } else if (line.rfind("cob=", 0) == 0) {
      resolve(names, line.substr(4));  // may define a name a later ob= refers to
    } else if (line.rfind("calls=", 0) == 0) {
      callee_cost_next = true;
    }
  }
  return true;
}

}  // namespace computeprof::bench
