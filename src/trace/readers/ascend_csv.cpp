#include "trace/readers/ascend_csv.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <simdjson.h>

#include "common/csv_reader.h"
#include "common/errors.h"
#include "common/file_io.h"
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

// Traffic of one operation or link: within [0, 1e12] MB and ms (an exabyte, thirty years), so that
// sums over any number of them stay finite and a bandwidth is never inf / inf.
bool plausible_traffic(double size_mb, double time_ms) {
  constexpr double kMax = 1e12;
  return size_mb >= 0 && size_mb <= kMax && time_ms >= 0 && time_ms <= kMax;
}

void read_communication(const fs::path& p, NpuExtras& x) {
  std::error_code ec;
  if (!fs::exists(p, ec)) return;
  simdjson::dom::parser parser;
  simdjson::padded_string json(read_file(p));
  simdjson::dom::element root;
  if (parser.parse(json).get(root)) throw InputError(p.string(), "invalid JSON");
  simdjson::dom::object steps;
  if (root.get_object().get(steps)) throw InputError(p.string(), "expected an object of steps");
  for (auto [step, v] : steps) {
    for (const char* kind : {"collective", "p2p"}) {
      simdjson::dom::object ops;
      if (v[kind].get_object().get(ops)) continue;
      for (auto [name, op] : ops) {
        if (name == "Total Op Info") continue;
        double ms = 0, start_us = 0;
        auto time_info = op["Communication Time Info"];
        if (time_info["Elapse Time(ms)"].get_double().get(ms) || !(ms >= 0 && ms * 1e6 <= static_cast<double>(kMaxTimeNs))) continue;
        x.communication_elapse_ms += ms;
        ++x.communication_ops;
        // Epoch microseconds through a double keep about a quarter of a microsecond: enough to
        // order ranks' arrivals at an operation that lasts microseconds or more.
        if (!time_info["Start Timestamp(us)"].get_double().get(start_us) && std::isfinite(start_us) &&
            std::abs(start_us) * 1000 < static_cast<double>(kMaxTimeNs))
          x.collectives.push_back({std::string(step) + "/" + std::string(name), std::llround(start_us * 1000),
                                   std::llround(ms * 1e6)});
        simdjson::dom::object transports;
        if (op["Communication Bandwidth Info"].get_object().get(transports)) continue;
        for (auto [transport, info] : transports) {
          double size_mb = 0, time_ms = 0;
          if (info["Transit Size(MB)"].get_double().get(size_mb) || info["Transit Time(ms)"].get_double().get(time_ms) ||
              !plausible_traffic(size_mb, time_ms))
            continue;
          Traffic& t = x.transport_traffic[std::string(transport)];
          t.size_mb += size_mb;
          t.time_ms += time_ms;
        }
      }
    }
  }
  x.sources.push_back(p.string());
}

// The kind of operation an entry of communication_matrix.json is about: "allreduce-total@g" ->
// "allreduce"; a p2p operation "hcom_send__822_0@g" -> "send".
std::string collective_of(std::string_view name) {
  name = name.substr(0, name.find('@'));
  if (name.ends_with("-total")) name.remove_suffix(6);
  if (name.starts_with("hcom_")) {
    name.remove_prefix(5);
    name = name.substr(0, name.find("__"));
  }
  return std::string(name);
}

// "3-5" -> {3, 5}.
std::optional<std::pair<int64_t, int64_t>> link_ends(std::string_view s) {
  auto dash = s.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  auto a = parse_u64(s.substr(0, dash)), b = parse_u64(s.substr(dash + 1));
  if (!a || !b || *a > uint64_t{1} << 31 || *b > uint64_t{1} << 31) return std::nullopt;
  return std::pair{static_cast<int64_t>(*a), static_cast<int64_t>(*b)};
}

// communication_matrix.json: per step and kind (collective, p2p), the traffic of each link "src-dst"
// per operation type. Where a kind has "<type>-total@group" entries, they sum that type's operations
// and the others ("-top1", "-middle", "-bottom": samples of it) are skipped; otherwise every
// operation counts ("Total Op Info", a sum of them, excepted). Summed per group, kind of operation,
// link and transport.
void read_communication_matrix(const fs::path& p, NpuExtras& x) {
  std::error_code ec;
  if (!fs::exists(p, ec)) return;
  simdjson::dom::parser parser;
  simdjson::padded_string json(read_file(p));
  simdjson::dom::element root;
  if (parser.parse(json).get(root)) throw InputError(p.string(), "invalid JSON");
  simdjson::dom::object steps;
  if (root.get_object().get(steps)) throw InputError(p.string(), "expected an object of steps");
  std::map<std::tuple<std::string, std::string, int64_t, int64_t, std::string>, Traffic> sum;
  for (auto [step, v] : steps) {
    for (const char* kind : {"collective", "p2p"}) {
      simdjson::dom::object ops;
      if (v[kind].get_object().get(ops)) continue;
      auto is_total = [](std::string_view name) { return name.substr(0, name.find('@')).ends_with("-total"); };
      bool has_totals = false;
      for (auto [name, links] : ops) has_totals = has_totals || is_total(name);
      for (auto [name, links] : ops) {
        if (has_totals ? !is_total(name) : name == "Total Op Info") continue;
        const size_t at = name.find('@');
        const std::string group(at == std::string_view::npos ? std::string_view() : name.substr(at + 1));
        const std::string collective = collective_of(name);
        simdjson::dom::object per_link;
        if (links.get_object().get(per_link)) continue;
        for (auto [ends_text, link] : per_link) {
          auto ends = link_ends(ends_text);
          std::string_view transport;
          double size_mb = 0, time_ms = 0;
          if (!ends || link["Transport Type"].get_string().get(transport) ||
              link["Transit Size(MB)"].get_double().get(size_mb) || link["Transit Time(ms)"].get_double().get(time_ms) ||
              !plausible_traffic(size_mb, time_ms))
            continue;
          Traffic& t = sum[{group, collective, ends->first, ends->second, std::string(transport)}];
          t.size_mb += size_mb;
          t.time_ms += time_ms;
        }
      }
    }
  }
  for (auto& [k, t] : sum)
    x.links.push_back({std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k), std::get<4>(k), t});
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
