#pragma once
// A log file, written through a buffer. The path may be anything a hostile
// environment chose: open() follows no symbolic link, writes only to a regular file
// with one link, and leaves alone a file another live process is writing (it holds
// the file's lock). Failures are one warning each; the caller goes on either way.
#include <string>
#include <string_view>

namespace computeprof::logfmt {

enum class OpenStatus {
  opened,
  // Another open LogFile, in this process or another, holds the path's lock: the file
  // was left as it was. The caller may try insert_process_suffix(path, pid) instead.
  held,
  failed,
};

struct OpenResult {
  OpenStatus status;
  // failed: the warning it was, which says why (the path escaped, one line).
  std::string why;
  // So that `if (!file.open(path))` reads "not opened", whatever the reason.
  explicit operator bool() const { return status == OpenStatus::opened; }
};

class LogFile {
 public:
  LogFile() = default;
  LogFile(const LogFile&) = delete;
  LogFile& operator=(const LogFile&) = delete;
  ~LogFile();

  // Opens `path` for writing: creates it with mode 0644 minus umask, or empties the
  // regular file that is there once its lock is held. Warns once, with the path and
  // the reason, when the result is `failed`; `held` is the caller's to report.
  //
  // The lock is flock(LOCK_EX): it belongs to the open file description, so unlike a
  // POSIX record lock it is not dropped when the application closes some other
  // descriptor of the same file, and two LogFiles in one process exclude each other
  // too. (An OFD lock, F_OFD_SETLK, would behave the same; flock is simpler and older.
  // On NFS the kernel emulates flock with a byte-range lock, which excludes other
  // processes and clients only.) The lock lasts until close().
  //
  // A forked child shares the description, and so the lock, with its parent. It must
  // not unlock (that would release the parent's lock too): it calls abandon(), which
  // only closes its own descriptor, and the lock stays the parent's. The descriptor is
  // close-on-exec, so a program the child runs does not hold it either.
  OpenResult open(const std::string& path);
  bool is_open() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }

  // Buffers text; writes through once the buffer is large.
  void append(std::string_view text);
  // Room for `bound` more bytes after what is buffered, for a record writer to fill in
  // place (no line is copied); commit(end) then keeps what it wrote, up to `end`, and
  // writes through once the buffer is large. Nullptr when the file is not open. Inline:
  // the writer asks once per record, and only a buffer too small goes out of line.
  char* room_for(std::size_t bound) {
    if (fd_ >= 0 && buffer_.size() - used_ >= bound) return buffer_.data() + used_;
    return grow_room(bound);
  }
  void commit(const char* end) {
    used_ = static_cast<std::size_t>(end - buffer_.data());
    if (used_ >= kFlushThreshold) flush();
  }
  // Writes everything buffered.
  void flush();
  // Writes everything buffered, then `text` from where it is: a writer that gathers its
  // own batches has them written without a copy into the buffer.
  void write(std::string_view text);
  // Writes everything buffered, then `tail` after it without counting it as written:
  // the next write replaces the tail (a JSON file stays valid after every flush).
  void flush_with_tail(std::string_view tail);
  // Replaces the whole file with `text` (a snapshot written again at each flush point,
  // such as the memory report); nothing may be appended to such a file.
  void rewrite(std::string_view text);
  // Writes everything buffered, then closes the file, which releases its lock.
  void close();

  // Drops the descriptor and the buffer without writing (a forked child must not
  // write its parent's buffered records a second time, nor release its lock).
  void abandon();

 private:
  static constexpr std::size_t kFlushThreshold = 64 * 1024;

  char* grow_room(std::size_t bound);
  void write_all(std::string_view text);

  int fd_ = -1;
  bool write_failed_ = false;
  std::string path_;
  std::string buffer_;  // the first used_ bytes are buffered text
  std::size_t used_ = 0;
};

}  // namespace computeprof::logfmt
