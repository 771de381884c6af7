// OutputOptions: the exit code every reporting verb derives from --fail-on, and colour for a file.
// NO_COLOR on a terminal: tests/e2e/test_cli_basics.py (it needs a pseudo-terminal).
#include "common/output_options.h"

#include <gtest/gtest.h>

#include "common/errors.h"

namespace banjia {
namespace {

int exit_code(const std::string& fail_on, std::optional<Severity> worst) {
  OutputOptions out;
  out.fail_on = fail_on;
  return out.exit_code(worst);
}

TEST(OutputOptions, FailOnCountsItsLevelAndEveryLevelAbove) {
  EXPECT_EQ(exit_code("error", Severity::error), kExitFindings);
  EXPECT_EQ(exit_code("error", Severity::warning), kExitOk);
  EXPECT_EQ(exit_code("warning", Severity::error), kExitFindings);
  EXPECT_EQ(exit_code("warning", Severity::warning), kExitFindings);
  EXPECT_EQ(exit_code("warning", Severity::info), kExitOk);
  EXPECT_EQ(exit_code("info", Severity::info), kExitFindings);
  EXPECT_EQ(exit_code("none", Severity::error), kExitOk);
  EXPECT_EQ(exit_code("info", std::nullopt), kExitOk);  // nothing found
}

TEST(OutputOptions, WorstSeverityOfFindings) {
  std::vector<Finding> findings(3);
  findings[0].severity = Severity::info;
  findings[1].severity = Severity::warning;
  findings[2].severity = Severity::info;
  EXPECT_EQ(worst_severity(findings), Severity::warning);
  EXPECT_EQ(worst_severity({}), std::nullopt);
}

TEST(OutputOptions, ColourIsNeverWrittenToAFileInAutoMode) {
  OutputOptions out;
  out.output = "report.txt";
  EXPECT_FALSE(out.color_enabled());
  out.color = "always";
  EXPECT_TRUE(out.color_enabled());
}

}  // namespace
}  // namespace banjia
