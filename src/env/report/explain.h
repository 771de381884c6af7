// `banjia env explain NAME`: everything the knowledge base knows about a variable (or an allocator option,
// an invented name, a CUDA name), with sources. A NAME that matches nothing exactly lists fuzzy matches.
#pragma once
#include <string>
#include <string_view>

namespace banjia::env {

// Renders the explanation as text or JSON. Throws InputError when nothing matches.
std::string explain(std::string_view query, bool json);

}  // namespace banjia::env
