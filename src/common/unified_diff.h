// Unified diffs (as `diff -u` / `git diff` print them) between two texts, by lines, using Myers'
// O(ND) algorithm: fast for the sparse edits banjia makes to large files.
#pragma once
#include <string>
#include <string_view>

namespace banjia {

// Returns "" when the texts are equal. Lines keep their own line endings; a last line without a
// newline is marked "\ No newline at end of file".
std::string unified_diff(std::string_view before, std::string_view after, const std::string& before_label,
                         const std::string& after_label, int context = 3);

}  // namespace banjia
