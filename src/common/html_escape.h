// Text made safe inside HTML and SVG markup: the one function the page builder (html.h) and the SVG
// chart parts (svg_chart_parts.h) both need, apart so that neither unit includes the other.
#pragma once
#include <string>
#include <string_view>

namespace banjia::html {

// `s` with & < > " ' as character references: safe as element text and as a quoted attribute value.
std::string escape(std::string_view s);

}  // namespace banjia::html
