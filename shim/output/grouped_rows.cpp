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
  waiting_ = 0;
  bound_single_.assign(columns_, SqlValue());
  if (sql_->prepare_v2(db, single, -1, &single_, nullptr) != SQLITE_OK) return false;
  if (rows_ == 1) return true;
  std::string grouped(text);
  for (std::size_t i = 1; i < rows_; ++i) {
    grouped += ", ";
    grouped += row;
  }
  bound_grouped_.assign(columns_ * rows_, SqlValue());
  return sql_->prepare_v2(db, grouped.c_str(), -1, &grouped_, nullptr) == SQLITE_OK;
}

void GroupedRows::bind(sqlite3_stmt* st, SqlValue* bound, std::size_t at, const SqlValue* values, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    const SqlValue& v = values[i];
    SqlValue& b = bound[at + i];
    if (v == b) continue;
    b = v;
    const int place = static_cast<int>(at + i + 1);
    switch (v.kind) {
      case SqlValue::Kind::null: sql_->bind_null(st, place); break;
      case SqlValue::Kind::integer: sql_->bind_int64(st, place, v.integer); break;
      case SqlValue::Kind::blob: sql_->bind_blob(st, place, b.bytes, b.size, SQLITE_STATIC); break;
    }
  }
}

bool GroupedRows::step(sqlite3_stmt* st) {
  const bool done = sql_->step(st) == SQLITE_DONE;
  sql_->reset(st);
  return done;
}

bool GroupedRows::add(std::initializer_list<SqlValue> row) {
  if (rows_ == 1) {
    bind(single_, bound_single_.data(), 0, row.begin(), row.size());
    return step(single_);
  }
  bind(grouped_, bound_grouped_.data(), waiting_ * columns_, row.begin(), row.size());
  if (++waiting_ < rows_) return true;
  waiting_ = 0;
  return step(grouped_);
}

bool GroupedRows::insert_waiting() {
  bool done = true;
  for (std::size_t i = 0; done && i < waiting_; ++i) {
    bind(single_, bound_single_.data(), 0, &bound_grouped_[i * columns_], columns_);
    done = step(single_);
  }
  waiting_ = 0;
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
  waiting_ = 0;
}

}  // namespace computeprof::shim
