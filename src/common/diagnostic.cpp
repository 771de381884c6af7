#include "common/diagnostic.h"

#include <tuple>

namespace banjia {

std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::info: return "info";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
  }
  return "info";
}

std::string_view to_string(FixKind f) {
  switch (f) {
    case FixKind::automatic: return "automatic";
    case FixKind::manual: return "manual";
    case FixKind::unsupported: return "unsupported";
    case FixKind::advisory: return "advisory";
  }
  return "manual";
}

std::optional<Severity> parse_severity(std::string_view s) {
  if (s == "info") return Severity::info;
  if (s == "warning") return Severity::warning;
  if (s == "error") return Severity::error;
  return std::nullopt;
}

std::optional<FixKind> parse_fix_kind(std::string_view s) {
  if (s == "automatic") return FixKind::automatic;
  if (s == "manual") return FixKind::manual;
  if (s == "unsupported") return FixKind::unsupported;
  if (s == "advisory") return FixKind::advisory;
  return std::nullopt;
}

bool finding_less(const Finding& a, const Finding& b) {
  return std::tie(a.file, a.line, a.column, a.rule) < std::tie(b.file, b.line, b.column, b.rule);
}

}  // namespace banjia
