// The one finding model shared by every verb (scan, migrate, env, trace, compare, bench).
// Field names match the public JSON schema documented in docs/scan-migrate.md (JSON output).
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace banjia {

enum class Severity { info, warning, error };
enum class FixKind { automatic, manual, unsupported, advisory };

std::string_view to_string(Severity s);
std::string_view to_string(FixKind f);
std::optional<Severity> parse_severity(std::string_view s);
std::optional<FixKind> parse_fix_kind(std::string_view s);

struct Finding {
  std::string file;      // path as given on the command line (or relative to the scanned root)
  int line = 0;          // 1-based; 0 when the finding is not about a place in a file
  int column = 0;        // 1-based, in Unicode code points
  int end_line = 0;
  int end_column = 0;    // exclusive
  std::string rule;      // kebab-case id
  std::string category;
  Severity severity = Severity::warning;
  FixKind fix = FixKind::manual;
  std::string message;
  std::optional<std::string> replacement;
  std::string source;    // where the fact behind the finding comes from (doc or repository path)
  // Optional extras used by some verbs; empty/absent ones are omitted from output.
  std::string suggestion;
  std::string evidence;
  std::optional<double> est_saving_us;
};

// Orders findings by file, line, column, rule: the order every writer emits.
bool finding_less(const Finding& a, const Finding& b);
// Stable-sorts [first, last) by `less`; one pass when it already is in order (a scan's findings
// usually are: files come in walk order, each file's findings in source order), instead of n log n
// string compares.
template <class It, class Less>
void stable_sort_unless_sorted(It first, It last, Less less) {
  if (!std::is_sorted(first, last, less)) std::stable_sort(first, last, less);
}
inline void sort_findings(std::vector<Finding>& findings) {
  stable_sort_unless_sorted(findings.begin(), findings.end(), finding_less);
}

}  // namespace banjia
