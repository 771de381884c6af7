// Reads an msprobe dump.json (statistics or tensor task) into dump entries, flattening each call the
// way msprobe's compare does: input_args/input_kwargs/input -> ".input", output -> ".output",
// parameters -> ".parameters"; list elements append ".{i}", dict entries ".{key}".
#pragma once
#include <filesystem>

#include "compare/model/dump_model.h"

namespace banjia::compare {

// `dump_json` is the dump.json file; tensor data files are looked up next to it and in
// dump_tensor_data/. Throws InputError for unreadable or malformed JSON.
void load_msprobe_dump(const std::filesystem::path& dump_json, Dump& dump);

}  // namespace banjia::compare
