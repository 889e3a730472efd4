// A table's rows grouped many to one INSERT (exports/grouped_rows.hpp): full groups
// go in as they fill, the rest at insert_waiting, every row in the order added, with its
// NULLs, integers, BLOBs and the statement's constants.
#include <string>
#include <vector>

#include "catch.hpp"
#include "exports/grouped_rows.hpp"

using namespace computeprof::exports;

namespace {

struct MemoryDatabase {
  const SqliteLibrary* sql = nullptr;
  sqlite3* db = nullptr;
  MemoryDatabase() {
    std::string error;
    sql = sqlite_library(error);
    REQUIRE(sql);
    REQUIRE(sql->open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) == SQLITE_OK);
    REQUIRE(sql->exec(db, "CREATE TABLE T(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, a INT, b INT, c BLOB, d INT)",
                      nullptr, nullptr, nullptr) == SQLITE_OK);
  }
  ~MemoryDatabase() { sql->close_v2(db); }
  // Each row as "id|a|b|hex(c)|d".
  std::vector<std::string> rows() const {
    std::vector<std::string> out;
    REQUIRE(sql->exec(
                db, "SELECT _id_ || '|' || ifnull(a, 'null') || '|' || b || '|' || hex(c) || '|' || d FROM T ORDER BY _id_",
                [](void* rows, int, char** values, char**) {
                  static_cast<std::vector<std::string>*>(rows)->emplace_back(values[0]);
                  return 0;
                },
                &out, nullptr) == SQLITE_OK);
    return out;
  }
};

}  // namespace

TEST_CASE("grouped rows: 32 to a statement as they fill, the rest at insert_waiting, in order") {
  MemoryDatabase m;
  GroupedRows rows;
  REQUIRE(rows.prepare(m.sql, m.db, "INSERT INTO T (a, b, c, d) VALUES (?, ?, ?, 7)"));
  for (std::int64_t i = 0; i < 70; ++i) {
    const char blob[2] = {static_cast<char>(i), '\xff'};
    REQUIRE(rows.add({i % 3 == 0 ? SqlValue(std::nullopt) : SqlValue(i), -i, SqlValue::blob(std::string_view(blob, 2))}));
    // Two full groups by the 64th row; the 6 after it wait.
    CHECK(m.rows().size() == (i + 1 < 32 ? 0u : i + 1 < 64 ? 32u : 64u));
  }
  REQUIRE(rows.insert_waiting());
  const std::vector<std::string> all = m.rows();
  REQUIRE(all.size() == 70);
  CHECK(all[0] == "1|null|0|00FF|7");
  CHECK(all[1] == "2|1|-1|01FF|7");
  CHECK(all[31] == "32|31|-31|1FFF|7");
  CHECK(all[32] == "33|32|-32|20FF|7");
  CHECK(all[69] == "70|null|-69|45FF|7");
  // Nothing waits twice.
  REQUIRE(rows.insert_waiting());
  CHECK(m.rows().size() == 70);
  rows.finalize();
}

TEST_CASE("grouped rows: a row of more bound values than 999 / 32 groups fewer rows, never past 999") {
  MemoryDatabase m;
  REQUIRE(m.sql->exec(m.db, "CREATE TABLE W("
                            "c0 INT, c1 INT, c2 INT, c3 INT, c4 INT, c5 INT, c6 INT, c7 INT, c8 INT, c9 INT, "
                            "c10 INT, c11 INT, c12 INT, c13 INT, c14 INT, c15 INT, c16 INT, c17 INT, c18 INT, c19 INT, "
                            "c20 INT, c21 INT, c22 INT, c23 INT, c24 INT, c25 INT, c26 INT, c27 INT, c28 INT, c29 INT, "
                            "c30 INT, c31 INT, c32 INT, c33 INT, c34 INT, c35 INT, c36 INT, c37 INT, c38 INT, c39 INT)",
                      nullptr, nullptr, nullptr) == SQLITE_OK);
  std::string sql = "INSERT INTO W VALUES (?";
  for (int i = 1; i < 40; ++i) sql += ", ?";
  sql += ")";
  GroupedRows rows;
  REQUIRE(rows.prepare(m.sql, m.db, sql.c_str()));
  const auto count = [&] {
    std::string n;
    REQUIRE(m.sql->exec(
                m.db, "SELECT count(*) FROM W",
                [](void* out, int, char** values, char**) {
                  *static_cast<std::string*>(out) = values[0];
                  return 0;
                },
                &n, nullptr) == SQLITE_OK);
    return n;
  };
  // 40 values a row: 24 rows a statement (960 values).
  for (int i = 0; i < 24; ++i) {
    CHECK(count() == "0");
    REQUIRE(rows.add({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
                      21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40}));
  }
  CHECK(count() == "24");
  rows.finalize();
}

TEST_CASE("grouped rows: a value equal to the one last bound at its place is kept, any other replaces it") {
  MemoryDatabase m;
  GroupedRows rows;
  REQUIRE(rows.prepare(m.sql, m.db, "INSERT INTO T (a, b, c, d) VALUES (?, ?, ?, ?)"));
  // Rows 0-39 repeat one row but for b; rows 40-79 change a between NULL and a value, c
  // between two BLOBs of different lengths, d between an integer and NULL, at places
  // that held the first rows' values (groups of 32, then one by one at insert_waiting).
  const char one[1] = {'\x01'};
  const char two[3] = {'\x02', '\x03', '\x04'};
  for (std::int64_t i = 0; i < 40; ++i) REQUIRE(rows.add({5, i, SqlValue::blob(std::string_view(one, 1)), 9}));
  REQUIRE(rows.insert_waiting());
  for (std::int64_t i = 40; i < 80; ++i) {
    const bool odd = i % 2 == 1;
    REQUIRE(rows.add({odd ? SqlValue(std::nullopt) : SqlValue(i), i,
                      odd ? SqlValue::blob(std::string_view(two, 3)) : SqlValue::blob(std::string_view(one, 1)),
                      odd ? SqlValue(9) : SqlValue(std::nullopt)}));
  }
  REQUIRE(rows.insert_waiting());
  std::vector<std::string> all;
  REQUIRE(m.sql->exec(
              m.db, "SELECT _id_ || '|' || ifnull(a, 'null') || '|' || b || '|' || hex(c) || '|' || ifnull(d, 'null') "
                    "FROM T ORDER BY _id_",
              [](void* out, int, char** values, char**) {
                static_cast<std::vector<std::string>*>(out)->emplace_back(values[0]);
                return 0;
              },
              &all, nullptr) == SQLITE_OK);
  REQUIRE(all.size() == 80);
  CHECK(all[0] == "1|5|0|01|9");
  CHECK(all[31] == "32|5|31|01|9");
  CHECK(all[32] == "33|5|32|01|9");
  CHECK(all[39] == "40|5|39|01|9");
  const std::vector<std::string> changed(all.begin() + 40, all.end());
  REQUIRE(changed.size() == 40);
  CHECK(changed[0] == "41|40|40|01|null");
  CHECK(changed[1] == "42|null|41|020304|9");
  CHECK(changed[31] == "72|null|71|020304|9");
  CHECK(changed[32] == "73|72|72|01|null");
  CHECK(changed[39] == "80|null|79|020304|9");
  rows.finalize();
}

TEST_CASE("grouped rows: 31 rows left at a commit go in as 16, 8, 4, 2 and 1, in the order added") {
  MemoryDatabase m;
  GroupedRows rows;
  REQUIRE(rows.prepare(m.sql, m.db, "INSERT INTO T (a, b, c, d) VALUES (?, ?, X'AB', ?)"));
  for (std::int64_t i = 0; i < 63; ++i) REQUIRE(rows.add({i, 100 + i, i / 10}));
  CHECK(m.rows().size() == 32u);
  REQUIRE(rows.insert_waiting());
  const std::vector<std::string> all = m.rows();
  REQUIRE(all.size() == 63);
  for (std::size_t i = 0; i < all.size(); ++i) {
    CHECK(all[i] == std::to_string(i + 1) + "|" + std::to_string(i) + "|" + std::to_string(100 + i) + "|AB|" +
                        std::to_string(i / 10));
  }
  // The parts keep what they bound: the next commit's 31 rows are as exact.
  for (std::int64_t i = 63; i < 126; ++i) REQUIRE(rows.add({i, 100 + i, i / 10}));
  REQUIRE(rows.insert_waiting());
  const std::vector<std::string> again = m.rows();
  REQUIRE(again.size() == 126);
  for (std::size_t i = 63; i < again.size(); ++i) {
    CHECK(again[i] == std::to_string(i + 1) + "|" + std::to_string(i) + "|" + std::to_string(100 + i) + "|AB|" +
                          std::to_string(i / 10));
  }
  rows.finalize();
}
