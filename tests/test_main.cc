// The doctest main of every test executable. A run that selects no test case fails: CTest runs each case
// as `exe --test-case=NAME`, and a name CTest cannot pass whole (doctest_discover_tests splits names at ';'
// into several entries) would otherwise become entries that run nothing and pass.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

namespace {

unsigned g_selected = 0;
bool g_ran = false;

// Records how many test cases passed the filters (listing queries never start a run).
struct SelectedCount : doctest::IReporter {
  explicit SelectedCount(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& s) override {
    g_ran = true;
    g_selected = s.numTestCasesPassingFilters;
  }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};
REGISTER_LISTENER("selected_count", 1, SelectedCount);

}  // namespace

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int rc = context.run();
  if (context.shouldExit()) return rc;
  if (g_ran && g_selected == 0) {
    std::fprintf(stderr, "doctest: no test case matched the filters: this run tested nothing (a test name with ';' "
                         "is split by CTest; rename it)\n");
    return rc ? rc : 1;
  }
  return rc;
}
