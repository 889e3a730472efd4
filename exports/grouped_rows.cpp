#include "exports/grouped_rows.hpp"

#include <algorithm>
#include <string>

namespace computeprof::exports {
namespace {

// SQLite before 3.32 takes at most 999 bound values a statement.
constexpr std::size_t kMaxBound = 999;
// Under callgrind 32 rows a statement cost less than 8 or 128 (docs/performance.md).
constexpr std::size_t kMaxRows = 32;

}  // namespace

bool GroupedRows::prepare(const SqliteLibrary* sql, sqlite3* db, const char* single) {
  sql_ = sql;
  db_ = db;
  single_sql_ = single;
  const std::string_view row = std::string_view(single_sql_).substr(single_sql_.rfind('('));
  columns_ = static_cast<std::size_t>(std::count(row.begin(), row.end(), '?'));
  rows_ = std::clamp<std::size_t>(columns_ != 0 ? kMaxBound / columns_ : kMaxRows, 1, kMaxRows);
  waiting_ = 0;
  return prepare_rows(parts_[0], 1) && (rows_ == 1 || prepare_rows(full_, rows_));
}

bool GroupedRows::prepare_rows(Statement& s, std::size_t rows) {
  if (s.st) return true;
  std::string text = single_sql_;
  const std::string_view row = std::string_view(single_sql_).substr(single_sql_.rfind('('));
  for (std::size_t i = 1; i < rows; ++i) {
    text += ", ";
    text += row;
  }
  s.bound.assign(columns_ * rows, SqlValue());
  return sql_->prepare_v2(db_, text.c_str(), -1, &s.st, nullptr) == SQLITE_OK;
}

void GroupedRows::bind(Statement& s, std::size_t at, const SqlValue* values, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const SqlValue& v = values[i];
    SqlValue& b = s.bound[at + i];
    if (v == b) continue;
    b = v;
    const int place = static_cast<int>(at + i + 1);
    switch (v.kind) {
      case SqlValue::Kind::null: sql_->bind_null(s.st, place); break;
      case SqlValue::Kind::integer: sql_->bind_int64(s.st, place, v.integer); break;
      case SqlValue::Kind::blob: sql_->bind_blob(s.st, place, b.bytes, b.size, SQLITE_STATIC); break;
    }
  }
}

bool GroupedRows::step(Statement& s) {
  const bool done = sql_->step(s.st) == SQLITE_DONE;
  sql_->reset(s.st);
  return done;
}

bool GroupedRows::add(std::initializer_list<SqlValue> row) {
  if (rows_ == 1) {
    bind(parts_[0], 0, row.begin(), row.size());
    return step(parts_[0]);
  }
  bind(full_, waiting_ * columns_, row.begin(), row.size());
  if (++waiting_ < rows_) return true;
  waiting_ = 0;
  return step(full_);
}

bool GroupedRows::insert_waiting() {
  // Fewer than rows_ <= kMaxRows wait, a sum of parts: the largest first keeps them in order.
  static_assert(kMaxRows <= std::size_t{1} << kParts);
  std::size_t at = 0;
  bool done = true;
  for (std::size_t i = kParts; done && i-- > 0;) {
    const std::size_t rows = std::size_t{1} << i;
    if ((waiting_ & rows) == 0) continue;
    Statement& part = parts_[i];
    done = prepare_rows(part, rows);
    if (!done) break;
    bind(part, 0, &full_.bound[at * columns_], rows * columns_);
    done = step(part);
    at += rows;
  }
  waiting_ = 0;
  return done;
}

void GroupedRows::finalize() {
  if (full_.st) sql_->finalize(full_.st);
  for (Statement& part : parts_) {
    if (part.st) sql_->finalize(part.st);
  }
  forget();
}

void GroupedRows::forget() {
  full_.st = nullptr;
  for (Statement& part : parts_) part.st = nullptr;
  waiting_ = 0;
}

}  // namespace computeprof::exports
