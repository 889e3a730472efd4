#include "shim/output/grouped_rows.hpp"

#include <algorithm>
#include <string>

namespace computeprof::shim {
namespace {

// SQLite before 3.32 takes at most 999 bound values a statement.
constexpr std::size_t kMaxBound = 999;
// Under callgrind 32 rows a statement cost less than 8 or 128 (docs/performance.md).
constexpr std::size_t kMaxRows = 32;

}  // namespace

bool GroupedRows::prepare(const SqliteLibrary* sql, sqlite3* db, const char* single) {
  sql_ = sql;
  const std::string_view text = single;
  const std::string_view row = text.substr(text.rfind('('));
  columns_ = static_cast<std::size_t>(std::count(row.begin(), row.end(), '?'));
  rows_ = std::clamp<std::size_t>(columns_ != 0 ? kMaxBound / columns_ : kMaxRows, 1, kMaxRows);
  if (sql_->prepare_v2(db, single, -1, &single_, nullptr) != SQLITE_OK) return false;
  if (rows_ == 1) return true;
  std::string grouped(text);
  for (std::size_t i = 1; i < rows_; ++i) {
    grouped += ", ";
    grouped += row;
  }
  waiting_.reserve(columns_ * rows_);
  return sql_->prepare_v2(db, grouped.c_str(), -1, &grouped_, nullptr) == SQLITE_OK;
}

bool GroupedRows::run(sqlite3_stmt* st, const SqlValue* values, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const SqlValue& v = values[i];
    const int column = static_cast<int>(i + 1);
    switch (v.kind) {
      case SqlValue::Kind::null: sql_->bind_null(st, column); break;
      case SqlValue::Kind::integer: sql_->bind_int64(st, column, v.integer); break;
      // The value stays where it is until the statement has run.
      case SqlValue::Kind::blob: sql_->bind_blob(st, column, v.bytes, v.size, SQLITE_STATIC); break;
    }
  }
  const bool done = sql_->step(st) == SQLITE_DONE;
  sql_->reset(st);
  return done;
}

bool GroupedRows::add(std::initializer_list<SqlValue> row) {
  if (rows_ == 1) return run(single_, row.begin(), row.size());
  waiting_.insert(waiting_.end(), row.begin(), row.end());
  if (waiting_.size() < columns_ * rows_) return true;
  const bool done = run(grouped_, waiting_.data(), waiting_.size());
  waiting_.clear();
  return done;
}

bool GroupedRows::insert_waiting() {
  bool done = true;
  for (std::size_t at = 0; done && at < waiting_.size(); at += columns_) done = run(single_, &waiting_[at], columns_);
  waiting_.clear();
  return done;
}

void GroupedRows::finalize() {
  if (single_) sql_->finalize(single_);
  if (grouped_) sql_->finalize(grouped_);
  forget();
}

void GroupedRows::forget() {
  single_ = nullptr;
  grouped_ = nullptr;
  waiting_.clear();
}

}  // namespace computeprof::shim
