#pragma once
// A private file in $TMPDIR (or /tmp) that lives as long as this object: the launcher's
// log index and the config file that --counters writes.
#include <string>
#include <string_view>

namespace computeprof::tools {

class TemporaryFile {
 public:
  // Creates an empty file "<prefix>XXXXXX", mode 0600 (mkstemp). Throws LaunchError.
  explicit TemporaryFile(std::string_view prefix);
  ~TemporaryFile();
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  const std::string& path() const { return path_; }

  // Replaces the file's contents. Throws LaunchError.
  void write(std::string_view text) const;

  // The file's contents; empty when it cannot be read (someone removed it).
  std::string read() const;

 private:
  std::string path_;
};

}  // namespace computeprof::tools
