#pragma once
// The tables of `computeprof stats` as text, CSV or JSON (docs/format.md, "Stats
// output"): one model, three layouts, so that every table a person reads is also one a
// script or a spreadsheet reads without parsing the text.
#include <string>
#include <string_view>
#include <vector>

namespace computeprof::reports {

enum class TableFormat { text, csv, json };

struct ReportCell {
  std::string text;   // as the text layout shows it ("1.5741ms", "12.5%", "-")
  std::string value;  // CSV and JSON: a number's digits ("1574100"; empty: none), or a string
};

struct ReportColumn {
  std::string key;    // CSV's column line and JSON's member name
  std::string title;  // the text layout's heading
  bool number = true; // a number: right-aligned, a bare JSON number (null when empty)
};

struct ReportTable {
  std::string key;    // JSON's member name
  std::string title;  // the text layout's line above the table
  std::vector<ReportColumn> columns;
  std::vector<std::vector<ReportCell>> rows;
};

// Text: `title:`, then the headings and rows, numbers right-aligned, text columns left-
// aligned, two spaces between columns; an empty table says "None.".
std::string format_table_text(const ReportTable& table);

// CSV (RFC 4180): each table's column line and rows, one empty line between tables.
std::string format_tables_csv(const std::vector<ReportTable>& tables);

// JSON: one object, each table a member holding an array of row objects.
std::string format_tables_json(const std::vector<ReportTable>& tables);

// `s` as a JSON string: control characters escaped (\u00XX), every byte that is not
// part of valid UTF-8 as U+FFFD, so that any name reads back.
void append_json_text(std::string& out, std::string_view s);

}  // namespace computeprof::reports
