// The one sequence of every recorded operation (shim/process/recorded_operation.hpp),
// with a timing that notes its steps.
#include "catch.hpp"

#include <string>
#include <vector>

#include "records/record.hpp"
#include "shim/process/recorded_operation.hpp"

using computeprof::records::Record;
using computeprof::shim::record_operation;

namespace {

class NotingTiming {
 public:
  explicit NotingTiming(std::vector<std::string>& steps) : steps_(steps) {}
  Record& record() {
    steps_.push_back("claim");
    return record_;
  }
  template <typename Call>
  int around(Call& call) {
    steps_.push_back("before");
    const int result = call();
    steps_.push_back("after");
    return result;
  }
  void complete() { steps_.push_back("complete"); }
  const Record& held() const { return record_; }

 private:
  std::vector<std::string>& steps_;
  Record record_;
};

}  // namespace

TEST_CASE("an operation: claimed, identified and described before the call, completed after it", "[operation]") {
  std::vector<std::string> steps;
  NotingTiming timing(steps);
  const int result = record_operation(
      timing, "cuMemsetD8_v2", 0,
      [&](Record& r) {
        steps.push_back("describe " + std::string(r.api));
        r.transfer_bytes = 64;
      },
      [&] {
        steps.push_back("call");
        return 0;
      });
  CHECK(result == 0);
  CHECK(steps == std::vector<std::string>{"claim", "describe cuMemsetD8_v2", "before", "call", "after", "complete"});
  CHECK(timing.held().api == "cuMemsetD8_v2");
  CHECK(timing.held().correlation_id != 0);
  CHECK(timing.held().thread_id != 0);
  CHECK(timing.held().stack_id == 0);  // depth 0: no stack
  CHECK(timing.held().transfer_bytes == 64);
}

TEST_CASE("an operation the driver rejected: its error back unchanged, not completed", "[operation]") {
  std::vector<std::string> steps;
  NotingTiming timing(steps);
  const int result = record_operation(timing, "cuLaunchKernel", 0, [](Record&) {}, [] { return 700; });
  CHECK(result == 700);
  CHECK(steps == std::vector<std::string>{"claim", "before", "after"});
}

TEST_CASE("operations of one thread are numbered in turn", "[operation]") {
  std::vector<std::string> steps;
  NotingTiming first(steps), second(steps);
  record_operation(first, "a", 0, [](Record&) {}, [] { return 0; });
  record_operation(second, "b", 0, [](Record&) {}, [] { return 0; });
  CHECK(second.held().correlation_id == first.held().correlation_id + 1);
  CHECK(second.held().thread_id == first.held().thread_id);
}
