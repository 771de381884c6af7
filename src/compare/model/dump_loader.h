// Detects the layout of a dump path (a banjia capture dir, an msprobe dump, a bare .npy/.npz) and
// loads its entries into the dump model (dump_model.h).
#pragma once
#include <string>

#include "compare/model/dump_model.h"

namespace banjia::compare {

// Loads a dump from a directory or a file. Throws InputError for input it cannot read at all
// (missing path, unknown layout, malformed index). Per-tensor problems surface later, per entry.
Dump load_dump(const std::string& path);

}  // namespace banjia::compare
