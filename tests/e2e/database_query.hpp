#pragma once
// Rows of an SQL query on an exported database, as "a|b|c" lines (NULL for null).
#include <string>
#include <vector>

namespace e2e {

std::vector<std::string> query(const std::string& database, const std::string& sql);

}  // namespace e2e
