#pragma once
// The classic logs of one context (docs/format.md, "Output"): a header, then one line
// per record, key-value or CSV. The file is created by the context's first record.
#include <string>

#include "config/environment.hpp"
#include "logfmt/columns.hpp"
#include "logfmt/log_file.hpp"
#include "logfmt/record_writer.hpp"
#include "shim/output/record_sink.hpp"

namespace computeprof::shim {

class ClassicLogSink : public RecordSink {
 public:
  void begin() override;
  void write(const ProfiledContext& context, const records::Record& record) override;
  void flush() override;
  void end() override;
  void abandon() override;

 protected:
  ClassicLogSink(const ProfiledContext& context, config::LogFormat format);

 private:
  const ProfiledContext& context_;
  const config::Settings& settings_;
  logfmt::LineWriter lines_;
  logfmt::LogFile file_;
};

class KeyValueLogSink final : public ClassicLogSink {
 public:
  explicit KeyValueLogSink(const ProfiledContext& context) : ClassicLogSink(context, config::LogFormat::kvp) {}
};

class CsvLogSink final : public ClassicLogSink {
 public:
  explicit CsvLogSink(const ProfiledContext& context) : ClassicLogSink(context, config::LogFormat::csv) {}
};

}  // namespace computeprof::shim
