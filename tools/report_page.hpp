#pragma once
// The report page's sources (webreport/), embedded at build time by
// webreport/embed_page.cmake into a generated file of the computeprof command.
#include <string_view>

namespace computeprof::tools {

// The HTML, with the places for the style, the data and the script: the lines
// "<!--style-->", "<!--data-->" and "<!--script-->".
std::string_view report_page_html();
std::string_view report_page_style();
std::string_view report_page_script();

}  // namespace computeprof::tools
