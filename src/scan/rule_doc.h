// A scan rule's documentation page (docs/rules/<id>.md, `banjia scan --explain RULE`), rendered from
// its catalogue entry in data/rules, and where the page lies on disk for SARIF's helpUri.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "rules/core/catalog.h"

namespace banjia::scan {

// The page in Markdown: title (the id), summary, category, severity, fix kind, message, replacement,
// before/after examples and source for the default target, then each other migration target's form.
std::string rule_doc_markdown(const rules::Rule& rule);

// The same facts as plain text (SARIF's help.text): summary, message, replacement, source.
std::string rule_doc_text(const rules::Rule& rule);

// file:// URI of the rule's page: under the installed documentation when this binary runs from an
// install (bin/ beside share/doc/banjia/docs/rules), else in the source tree when it runs from the
// build tree it was built in; nullopt when neither page exists.
std::optional<std::string> rule_doc_uri(std::string_view id);

// `path` as a file:// URI (bytes outside RFC 3986's unreserved set and '/' percent-encoded).
std::string file_uri(std::string_view absolute_path);

}  // namespace banjia::scan
