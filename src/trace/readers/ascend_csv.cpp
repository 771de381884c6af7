#include "trace/readers/ascend_csv.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/csv_reader.h"
#include "common/errors.h"
#include "common/file_io.h"
#include "trace/readers/ascend_communication.h"
#include "trace/readers/decimal_time.h"
#include "trace/model/trace_rules.h"

namespace banjia::trace {

namespace fs = std::filesystem;

namespace {
size_t need(const CsvTable& t, std::initializer_list<std::string_view> names, const fs::path& file) {
  if (auto c = t.column(names)) return *c;
  throw InputError(file.string(), "missing column '" + std::string(*names.begin()) + "'");
}

// A cell as a number; empty, N/A, garbage and non-finite ("inf", "nan", 1e999) cells count as 0.
double num(const std::vector<std::string>& row, std::optional<size_t> col) {
  if (!col || *col >= row.size()) return 0;
  double v = parse_number_cell(row[*col]).value_or(0);
  return std::isfinite(v) ? v : 0;
}

std::optional<CsvTable> load_csv(const fs::path& p) {
  std::error_code ec;
  if (!fs::exists(p, ec)) return std::nullopt;
  return parse_csv(read_file(p), p.string());
}

void read_kernel_details(const fs::path& p, NpuExtras& x, double slow_us) {
  auto t = load_csv(p);
  if (!t) return;
  size_t core = need(*t, {"Accelerator Core"}, p);
  size_t dur = need(*t, {"Duration(us)"}, p);
  for (auto& row : t->rows) {
    if (core >= row.size()) continue;
    std::string c(trim_cell(row[core]));
    double d = num(row, dur);
    x.core_time_us[c] += d;
    if (c == "AI_CPU") {
      ++x.ai_cpu_tasks;
      x.ai_cpu_us += d;
      if (d >= slow_us) ++x.ai_cpu_slow_tasks;
    }
  }
  x.sources.push_back(p.string());
}

void read_step_trace(const fs::path& p, NpuExtras& x) {
  auto t = load_csv(p);
  if (!t) return;
  size_t step = need(*t, {"Step"}, p), comp = need(*t, {"Computing"}, p);
  size_t cno = need(*t, {"Communication(Not Overlapped)"}, p), free = need(*t, {"Free"}, p);
  auto ov = t->column({"Overlapped"}), comm = t->column({"Communication"}), stage = t->column({"Stage"});
  auto bubble = t->column({"Bubble"}), prep = t->column({"Preparing"});
  for (auto& row : t->rows) {
    if (step >= row.size()) continue;
    NpuStepTrace r;
    r.step = std::string(trim_cell(row[step]));
    r.computing = num(row, comp);
    r.comm_not_overlapped = num(row, cno);
    r.overlapped = num(row, ov);
    r.communication = num(row, comm);
    r.free = num(row, free);
    r.stage = num(row, stage);
    r.bubble = num(row, bubble);
    if (prep && *prep < row.size())
      if (auto v = parse_number_cell(row[*prep]); v && std::isfinite(*v)) r.preparing = v;
    x.step_trace.push_back(r);
  }
  x.sources.push_back(p.string());
}

void read_op_statistic(const fs::path& p, NpuExtras& x) {
  auto t = load_csv(p);
  if (!t) return;
  size_t type = need(*t, {"OP Type"}, p), count = need(*t, {"Count"}, p), total = need(*t, {"Total Time(us)"}, p);
  for (auto& row : t->rows) {
    if (type >= row.size()) continue;
    OpRow r;
    r.name = std::string(trim_cell(row[type]));
    double n = num(row, count);
    r.count = n >= 0 && n < 0x1p53 ? static_cast<size_t>(n) : 0;  // a count beyond 2^53 is no count
    r.total_us = r.self_us = num(row, total);
    x.op_statistic.push_back(r);
  }
  x.sources.push_back(p.string());
}

// One row per op call: host self/total time (what a trace_view.json would give) and the device time
// of the tasks the op launched, which no other side file attributes to torch ops.
void read_operator_details(const fs::path& p, NpuExtras& x) {
  auto t = load_csv(p);
  if (!t) return;
  size_t name = need(*t, {"Name"}, p);
  size_t host_self = need(*t, {"Host Self Duration(us)"}, p), host_total = need(*t, {"Host Total Duration(us)"}, p);
  size_t dev_self = need(*t, {"Device Self Duration(us)"}, p), dev_total = need(*t, {"Device Total Duration(us)"}, p);
  std::map<std::string, OperatorDetailRow> by_name;
  for (auto& row : t->rows) {
    if (name >= row.size()) continue;
    std::string n(trim_cell(row[name]));
    OperatorDetailRow& r = by_name[n];
    r.name = n;
    ++r.count;
    r.host_self_us += num(row, host_self);
    r.host_total_us += num(row, host_total);
    r.device_self_us += num(row, dev_self);
    r.device_total_us += num(row, dev_total);
  }
  for (auto& [n, r] : by_name) x.operator_details.push_back(r);
  std::stable_sort(x.operator_details.begin(), x.operator_details.end(),
                   [](const OperatorDetailRow& a, const OperatorDetailRow& b) { return a.device_total_us > b.device_total_us; });
  x.sources.push_back(p.string());
}

}  // namespace

NpuExtras read_npu_extras(const fs::path& dir, const TraceData& t) {
  NpuExtras x;
  double slow = 20;
  if (auto* r = trace_rules().advisor("aicpu-fallback")) slow = r->param("min_task_us");
  if (fs::exists(dir / "kernel_details.csv")) {
    read_kernel_details(dir / "kernel_details.csv", x, slow);
  } else {
    for (size_t i = 0; i < t.size(); ++i) {
      if (t.kind[i] != Kind::kernel || !t.task_type[i]) continue;
      std::string c(t.strings.view(t.task_type[i]));
      double d = t.dur[i] / 1000.0;
      x.core_time_us[c] += d;
      if (c == "AI_CPU") {
        ++x.ai_cpu_tasks;
        x.ai_cpu_us += d;
        if (d >= slow) ++x.ai_cpu_slow_tasks;
      }
    }
  }
  read_step_trace(dir / "step_trace_time.csv", x);
  read_op_statistic(dir / "op_statistic.csv", x);
  read_operator_details(dir / "operator_details.csv", x);
  read_communication(dir / "communication.json", x);
  read_communication_matrix(dir / "communication_matrix.json", x);
  return x;
}

TraceData trace_from_kernel_details(const fs::path& dir) {
  fs::path p = dir / "kernel_details.csv";
  auto csv = load_csv(p);
  if (!csv) throw InputError(dir.string(), "no trace_view.json, profiler .db or kernel_details.csv");
  TraceData t;
  t.file = dir.string();
  t.format = TraceFormat::torch_npu;
  t.process_names[1] = "Ascend Hardware";
  t.process_names[2] = "HCCL";
  t.process_labels[1] = t.process_labels[2] = "NPU";
  t.process_names[3] = "Python";
  size_t name = need(*csv, {"Name"}, p), start = need(*csv, {"Start Time(us)"}, p), dur = need(*csv, {"Duration(us)"}, p);
  auto core = csv->column({"Accelerator Core"}), step = csv->column({"Step Id", "Step ID"});
  std::map<std::string, std::pair<int64_t, int64_t>> steps;
  auto push = [&](uint32_t nm, int64_t ts, int64_t d, int64_t pid, uint32_t task) {
    t.name.push_back(nm);
    t.cat.push_back(0);
    t.shape.push_back(0);
    t.task_type.push_back(task);
    t.ts.push_back(ts);
    t.dur.push_back(d);
    t.pid.push_back(pid);
    t.tid.push_back(0);
    t.corr.push_back(kNone);
    t.ext_id.push_back(kNone);
    t.bytes.push_back(kNone);
  };
  for (auto& row : csv->rows) {
    if (std::max({name, start, dur}) >= row.size()) {
      ++t.missing_fields;
      continue;
    }
    auto ts = parse_us_to_ns(row[start]);
    auto d = parse_us_to_ns(row[dur]);
    if (!ts || !d) {
      ++t.missing_fields;
      continue;
    }
    std::string c = core && *core < row.size() ? std::string(trim_cell(row[*core])) : "";
    int64_t dur_ns = std::max<int64_t>(0, *d);  // a negative duration is a zero-length task, in steps too
    push(t.strings.intern(trim_cell(row[name])), *ts, dur_ns, c == "HCCL" ? 2 : 1, t.strings.intern(c));
    if (step && *step < row.size()) {
      std::string sid(trim_cell(row[*step]));
      auto [it, fresh] = steps.try_emplace(sid, *ts, *ts + dur_ns);
      if (!fresh) {
        it->second.first = std::min(it->second.first, *ts);
        it->second.second = std::max(it->second.second, *ts + dur_ns);
      }
    }
  }
  uint32_t cpu_op = t.strings.intern("cpu_op");
  for (auto& [sid, range] : steps) {
    push(t.strings.intern("ProfilerStep#" + sid), range.first, range.second - range.first, 3, 0);
    t.cat.back() = cpu_op;
  }
  if (t.size() == 0) throw InputError(p.string(), "no kernel rows");
  t.classify();
  return t;
}

}  // namespace banjia::trace
