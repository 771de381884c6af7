// One dump (a banjia capture dir, an msprobe dump, or a bare .npy/.npz) as a list of entries in
// execution order. Entries point at their tensor bytes; statistics-only entries carry stats instead.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compare/model/count_sketch.h"
#include "compare/readers/tensor_store.h"

namespace banjia::compare {

struct SummaryStats {
  std::optional<double> max, min, mean, norm;  // NaN/Inf kept as such
  std::optional<int64_t> nan_count, inf_count;
  std::vector<double> sketch;  // the count sketch of the dump's scheme (Dump::sketch), empty when none
  bool any() const { return max || min || mean || norm; }
};

// kOutsideDump: the dump names its data file by a path that leaves the dump's directory (absolute, or
// with ".."): never opened, reported as an entry that cannot be compared.
enum class DataKind { kNone, kNpyFile, kNpzMember, kPtFile, kMissingFile, kOutsideDump };

// Whether a data file name a dump gives stays inside its directory: relative, without "..".
bool data_name_stays_inside(std::string_view name);

struct DumpEntry {
  std::string key;     // unique name: banjia key, msprobe flattened row name, npz member
  std::string module;  // module path (banjia) or call name (msprobe)
  std::string type;    // module class or api type
  std::string dtype;   // original dtype name as the producer wrote it ("bfloat16", "torch.float16")
  std::vector<int64_t> shape;
  bool has_shape = false;
  SummaryStats stats;
  bool requires_grad_known = false, requires_grad = false;
  int64_t reduction = 0;         // reduction length of the module's math ("reduce"), 0 when not recorded
  std::string autocast;          // autocast dtype the module ran under ("autocast"), "" when none
  std::optional<bool> training;  // module.training ("training"), when recorded
  // the module computes in its output's dtype whatever autocast says ("computes_in_output_dtype")
  std::optional<bool> computes_in_output_dtype;
  DataKind data = DataKind::kNone;
  std::string data_path;  // file for kNpyFile/kPtFile/kMissingFile, data name for display
  size_t npz_member = 0;  // index into the archive's members for kNpzMember
};

struct Dump {
  std::string path;
  std::string format;  // "banjia", "msprobe", "npy", "npz"
  std::string task;    // "tensor" or "statistics"
  std::map<std::string, std::string> meta;  // run, device, torch, ... as text
  std::optional<SketchScheme> sketch;       // the scheme of its entries' sketches (banjia capture)
  std::vector<DumpEntry> entries;
  std::shared_ptr<NpzArchive> archive;  // for kNpzMember entries
};

// Loads the tensor of one entry; returns "" or a one-line problem (for a per-entry status).
std::string load_tensor(const Dump& dump, const DumpEntry& entry, LoadedTensor& out);

// Name without the call counter: the key for matching what exact keys left unmatched.
std::string name_without_call_count(const DumpEntry& entry, const std::string& format);

}  // namespace banjia::compare
