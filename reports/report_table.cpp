#include "reports/report_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace computeprof::reports {
namespace {

// The length of the valid UTF-8 sequence at the start of `s`, 0 when it is not one.
std::size_t utf8_length(std::string_view s) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (s.size() < length) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  }
  return length;
}

void append_csv_field(std::string& out, std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out.append(field);
    return;
  }
  out.push_back('"');
  for (const char c : field) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

}  // namespace

void append_json_text(std::string& out, std::string_view s) {
  out.push_back('"');
  while (!s.empty()) {
    const std::size_t length = utf8_length(s);
    if (length == 0) {
      out.append("\\ufffd");
      s.remove_prefix(1);
      continue;
    }
    const char c = s.front();
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned char>(c));
    } else {
      out.append(s.substr(0, length));
    }
    s.remove_prefix(length);
  }
  out.push_back('"');
}

std::string format_table_text(const ReportTable& table) {
  std::string out = table.title + ":\n";
  if (table.rows.empty()) return out + "None.\n";
  std::vector<std::size_t> widths;
  for (const ReportColumn& column : table.columns) widths.push_back(column.title.size());
  for (const auto& row : table.rows) {
    for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c) widths[c] = std::max(widths[c], row[c].text.size());
  }
  const auto append_line = [&](const auto& cell_text) {
    std::string line;
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      if (c > 0) line += "  ";
      const std::string_view text = cell_text(c);
      const std::size_t pad = widths[c] - std::min(widths[c], text.size());
      const bool last = c + 1 == table.columns.size();
      if (table.columns[c].number) line.append(pad, ' ');
      line.append(text);
      if (!table.columns[c].number && !last) line.append(pad, ' ');
    }
    out += line + "\n";
  };
  append_line([&](std::size_t c) -> std::string_view { return table.columns[c].title; });
  for (const auto& row : table.rows) {
    append_line([&](std::size_t c) -> std::string_view { return c < row.size() ? row[c].text : std::string_view(); });
  }
  return out;
}

std::string format_tables_csv(const std::vector<ReportTable>& tables) {
  std::string out;
  for (std::size_t t = 0; t < tables.size(); ++t) {
    if (t > 0) out.push_back('\n');
    const ReportTable& table = tables[t];
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      if (c > 0) out.push_back(',');
      append_csv_field(out, table.columns[c].key);
    }
    out.push_back('\n');
    for (const auto& row : table.rows) {
      for (std::size_t c = 0; c < table.columns.size(); ++c) {
        if (c > 0) out.push_back(',');
        if (c < row.size()) append_csv_field(out, row[c].value);
      }
      out.push_back('\n');
    }
  }
  return out;
}

std::string format_tables_json(const std::vector<ReportTable>& tables) {
  std::string out = "{";
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const ReportTable& table = tables[t];
    if (t > 0) out.push_back(',');
    out += "\n";
    append_json_text(out, table.key);
    out += ":[";
    for (std::size_t r = 0; r < table.rows.size(); ++r) {
      out += r > 0 ? ",\n" : "\n";
      out.push_back('{');
      for (std::size_t c = 0; c < table.columns.size(); ++c) {
        if (c > 0) out.push_back(',');
        append_json_text(out, table.columns[c].key);
        out.push_back(':');
        const std::string& value = c < table.rows[r].size() ? table.rows[r][c].value : std::string();
        if (!table.columns[c].number) {
          append_json_text(out, value);
        } else {
          out += value.empty() ? "null" : value;
        }
      }
      out.push_back('}');
    }
    out += "]";
  }
  out += "\n}\n";
  return out;
}

}  // namespace computeprof::reports
