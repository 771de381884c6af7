// Dotted release versions as Ascend names them ("7.3.0", "26.1.0", "6.0.RC3", "8.1.RC1").
#pragma once
#include <string_view>

namespace banjia {

// True for one or more dot-separated parts, each digits or "RC" followed by digits.
bool is_release_version(std::string_view v);

// <0, 0, >0 like strcmp. Parts compare numerically; "RCn" sorts before any plain number in the same
// position (6.0.RC3 < 6.0.0); a missing part counts as 0 (7.3 == 7.3.0).
int compare_versions(std::string_view a, std::string_view b);

}  // namespace banjia
