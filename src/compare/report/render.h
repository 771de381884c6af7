// Renderers of a CompareResult: JSON (the documented schema), CSV (msprobe column names where they
// exist), text (summary, localisation, worst entries) and a self-contained HTML page.
#pragma once
#include <string>

#include "compare/analysis/comparison.h"

namespace banjia::compare {

std::string render_dump_json(const Dump& a, const Dump& b, const CompareResult& r);
std::string render_dump_csv(const CompareResult& r);
std::string render_dump_text(const Dump& a, const Dump& b, const CompareResult& r, size_t worst_n, bool color);
std::string render_dump_html(const Dump& a, const Dump& b, const CompareResult& r);

// Shared by the renderers: "module" of an entry, or the key when the module is empty.
std::string display_module(const DumpEntry& e);

}  // namespace banjia::compare
