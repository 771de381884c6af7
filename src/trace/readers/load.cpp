#include "trace/readers/load.h"

#include <algorithm>

#include "common/errors.h"
#include "trace/model/phase_timer.h"
#include "trace/readers/ascend_csv.h"
#include "trace/readers/ascend_db.h"
#include "trace/readers/json_trace_reader.h"
#include "trace/readers/profiler_identity.h"

namespace banjia::trace {

namespace fs = std::filesystem;

namespace {
bool has(const fs::path& dir, const char* name) {
  std::error_code ec;
  return fs::exists(dir / name, ec);
}

std::optional<fs::path> find_db(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> dbs;
  for (auto& e : fs::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    if (n.starts_with("ascend_pytorch_profiler") && n.ends_with(".db")) dbs.push_back(e.path());
  }
  std::sort(dbs.begin(), dbs.end());
  if (dbs.empty()) return std::nullopt;
  return dbs.front();
}

// The ASCEND_PROFILER_OUTPUT directory of a torch_npu output, if `dir` is (or holds) one.
std::optional<fs::path> profiler_output_dir(const fs::path& dir) {
  for (const fs::path& d : {dir, dir / "ASCEND_PROFILER_OUTPUT"}) {
    std::error_code ec;
    if (!fs::is_directory(d, ec)) continue;
    if (has(d, "trace_view.json") || has(d, "kernel_details.csv") || has(d, "step_trace_time.csv") || find_db(d))
      return d;
  }
  return std::nullopt;
}

// The ASCEND_PROFILER_OUTPUT directory of an input that is a directory.
fs::path required_output_dir(const fs::path& path) {
  if (auto dir = profiler_output_dir(path)) return *dir;
  throw InputError(path.string(), "not a torch_npu profiler directory (no ASCEND_PROFILER_OUTPUT, trace_view.json, CSVs or .db)");
}

bool is_trace_file(const fs::path& p) {
  std::string n = p.filename().string();
  return n.ends_with(".json") || n.ends_with(".json.gz") || (n.starts_with("ascend_pytorch_profiler") && n.ends_with(".db"));
}
}  // namespace

std::vector<fs::path> expand_inputs(const std::vector<std::string>& args) {
  std::vector<fs::path> out;
  for (auto& a : args) {
    fs::path p(a);
    std::error_code ec;
    if (!fs::exists(p, ec)) throw InputError(a, "no such file or directory");
    if (!fs::is_directory(p, ec) || profiler_output_dir(p)) {
      out.push_back(p);
      continue;
    }
    std::vector<fs::path> ranks;
    for (auto& e : fs::directory_iterator(p, ec)) {
      if (e.is_directory() ? profiler_output_dir(e.path()).has_value() : is_trace_file(e.path()))
        ranks.push_back(e.path());
    }
    if (ranks.empty())
      throw InputError(a, "directory holds no Kineto trace, *_ascend_pt or ASCEND_PROFILER_OUTPUT directory");
    std::sort(ranks.begin(), ranks.end());
    out.insert(out.end(), ranks.begin(), ranks.end());
  }
  return out;
}

TraceData read_host_trace(const fs::path& path, unsigned threads, bool keep_input_types) {
  std::error_code ec;
  fs::path file = path;
  if (fs::is_directory(path, ec)) {
    fs::path dir = required_output_dir(path);
    if (has(dir, "trace_view.json")) file = dir / "trace_view.json";
    else if (auto db = find_db(dir)) file = *db;
    else throw InputError(path.string(), "torch_npu profiler directory without trace_view.json or .db: no host ops to read");
  }
  TraceData t = file.filename().string().ends_with(".db") ? read_ascend_db(file)
                                                          : read_json_trace(file, kDefaultPartBytes, threads, keep_input_types);
  t.file = path.string();
  return t;
}

ProfilerRun load(const fs::path& path, unsigned threads) {
  ProfilerRun run;
  TraceData& t = run.trace;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    fs::path npu_dir = required_output_dir(path);
    if (has(npu_dir, "trace_view.json")) t = read_json_trace(npu_dir / "trace_view.json", kDefaultPartBytes, threads);
    else if (auto db = find_db(npu_dir)) t = read_ascend_db(*db);
    else t = trace_from_kernel_details(npu_dir);
    t.file = path.string();
    PhaseTimer timer("NPU side files");
    run.npu = read_npu_extras(npu_dir, t);
    run.rank = torch_npu_identity(npu_dir);
    return run;
  }
  t = path.filename().string().ends_with(".db") ? read_ascend_db(path) : read_json_trace(path, kDefaultPartBytes, threads);
  if (t.format == TraceFormat::torch_npu) {
    PhaseTimer timer("NPU side files");
    run.npu = read_npu_extras(path.parent_path(), t);
  }
  if (!t.distributed_info.empty()) run.rank = parse_distributed_info(t.distributed_info);
  else if (t.format == TraceFormat::torch_npu) run.rank = torch_npu_identity(path.parent_path());
  return run;
}

}  // namespace banjia::trace
