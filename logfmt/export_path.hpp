#pragma once
// Where an export of the whole process goes (docs/format.md, "Exports"): the classic
// log's path template with %d dropped (the file holds every device) and the export's
// extension in place of the log's.
#include <string>
#include <string_view>

namespace computeprof::logfmt {

// "compute_profile.log", ".json" -> "compute_profile.json";
// "logs/cuda_profile_%d.log", ".sqlite" -> "logs/cuda_profile.sqlite" (a separator
// just before %d goes with it); "run_%p" -> "run_%p.json".
std::string export_path_template(std::string_view log_template, std::string_view extension);

}  // namespace computeprof::logfmt
