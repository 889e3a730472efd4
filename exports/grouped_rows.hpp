#pragma once
// A table's rows inserted many to one INSERT statement (both export databases): SQLite
// runs a statement at about the cost of a row, and a table with AUTOINCREMENT reads and
// writes its sequence once a statement. A row's values are bound to its place in the
// statement as it is added, and the statement runs when full; the rest are inserted
// before each commit (insert_waiting) by statements of 16, 8, 4, 2 and 1 rows (31 rows
// left are five statements, not 31), so a transaction holds every row added in it, in
// the order added. SQLite keeps a statement's bound values from one run to the next: a
// value equal to the one bound at its place last time (a run's device, stream, kernel,
// grid, ...) is not bound again, which is most of a row's binding cost.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exports/sqlite_library.hpp"

namespace computeprof::exports {

// A value of a row: NULL, an integer, or a short BLOB held in place (no allocation).
struct SqlValue {
  enum class Kind : std::uint8_t { null, integer, blob };
  static constexpr std::size_t kBlobBytes = 16;

  SqlValue() = default;
  SqlValue(std::nullopt_t) {}                                        // NOLINT: rows are lists of plain values
  SqlValue(std::int64_t v) : integer(v), kind(Kind::integer) {}      // NOLINT
  SqlValue(std::optional<std::int64_t> v) : integer(v.value_or(0)), kind(v ? Kind::integer : Kind::null) {}  // NOLINT
  // At most kBlobBytes bytes.
  static SqlValue blob(std::string_view bytes) {
    SqlValue v;
    v.kind = Kind::blob;
    v.size = static_cast<std::uint8_t>(bytes.size() < kBlobBytes ? bytes.size() : kBlobBytes);
    std::memcpy(v.bytes, bytes.data(), v.size);
    return v;
  }

  // A NULL's and a BLOB's integer is 0: most values are told apart by two compares.
  bool operator==(const SqlValue& o) const {
    if (integer != o.integer || kind != o.kind) return false;
    return kind != Kind::blob || (size == o.size && std::memcmp(bytes, o.bytes, size) == 0);
  }

  std::int64_t integer = 0;
  char bytes[kBlobBytes] = {};
  std::uint8_t size = 0;
  Kind kind = Kind::null;
};

class GroupedRows {
 public:
  // `single` is "INSERT ... VALUES (...)", one row of `?` and constants; the grouped
  // statement repeats its row up to SQLite's oldest limit of bound values.
  bool prepare(const SqliteLibrary* sql, sqlite3* db, const char* single);
  // Adds a row of as many values as the row's `?`; returns false when SQLite fails.
  bool add(std::initializer_list<SqlValue> row);
  // Inserts the rows waiting for a full statement.
  bool insert_waiting();
  void finalize();

 private:
  // The statements, finalized, are not used again.
  void forget();
  // A statement of some rows, and what its places hold (a statement is prepared with
  // every place NULL).
  struct Statement {
    sqlite3_stmt* st = nullptr;
    std::vector<SqlValue> bound;
  };
  // The statement of `rows` rows, prepared when first needed.
  bool prepare_rows(Statement& s, std::size_t rows);
  // Binds `values` at `at` of `s`, skipping those equal to what its place holds (a BLOB
  // is bound from there: it stays until rebound).
  void bind(Statement& s, std::size_t at, const SqlValue* values, std::size_t count);
  bool step(Statement& s);

  // Statements of fewer rows than a full one: 1, 2, 4, 8 and 16.
  static constexpr std::size_t kParts = 5;

  const SqliteLibrary* sql_ = nullptr;
  sqlite3* db_ = nullptr;
  std::string single_sql_;
  std::size_t columns_ = 0;
  std::size_t rows_ = 1;     // rows per full statement
  std::size_t waiting_ = 0;  // rows bound to the full statement, not yet inserted
  Statement full_;
  Statement parts_[kParts];  // parts_[i]: 2^i rows
};

}  // namespace computeprof::exports
