#include "trace/report/cluster_input_json.h"

#include <cmath>
#include <simdjson.h>

#include "common/errors.h"
#include "trace/model/time_units.h"

namespace banjia::trace {

namespace {

using simdjson::dom::element;

// Reads members of the report's objects; fails with one line naming the file and what is wrong.
struct ReportReader {
  const std::string& file;

  [[noreturn]] void fail(const std::string& problem) const { throw InputError(file, problem); }

  element member(element obj, const char* key) const {
    element v;
    if (obj[key].get(v)) fail(std::string("missing '") + key + "'");
    return v;
  }
  double finite(element e, const char* what) const {
    double v = 0;
    if (e.get_double().get(v) || !std::isfinite(v)) fail(std::string("'") + what + "' must be a finite number");
    return v;
  }
  double number(element obj, const char* key) const { return finite(member(obj, key), key); }
  int64_t time_ns(element e, const char* what) const {
    int64_t v = 0;
    if (e.get_int64().get(v) || v < -kMaxTimeNs || v > kMaxTimeNs)
      fail(std::string("'") + what + "' must be an integer within +-3e18 ns");
    return v;
  }
  std::string text(element e, const char* what) const {
    std::string_view v;
    if (e.get_string().get(v)) fail(std::string("'") + what + "' must be a string");
    return std::string(v);
  }
  std::string string_member(element obj, const char* key) const { return text(member(obj, key), key); }
  std::optional<int64_t> optional_int(element obj, const char* key) const {
    const element v = member(obj, key);
    if (v.is_null()) return std::nullopt;
    int64_t i = 0;
    if (v.get_int64().get(i)) fail(std::string("'") + key + "' must be an integer or null");
    return i;
  }
  int64_t group_rank(element obj, const char* key) const {
    auto v = optional_int(obj, key);
    if (!v || *v < 0 || *v > (int64_t{1} << 31)) fail(std::string("'") + key + "' must be a rank");
    return *v;
  }
  simdjson::dom::array array(element obj, const char* key) const {
    simdjson::dom::array a;
    if (obj[key].get_array().get(a)) fail(std::string("missing array '") + key + "'");
    return a;
  }

  Breakdown breakdown(element e) const {
    Breakdown b;
    b.wall_us = number(e, "wall_us");
    b.compute_us = number(e, "compute_us");
    b.comm_us = number(e, "comm_us");
    b.memory_us = number(e, "memory_us");
    b.idle_us = number(e, "idle_us");
    return b;
  }
  Traffic traffic(element e) const {
    Traffic t{number(e, "size_mb"), number(e, "time_ms")};
    if (t.size_mb < 0 || t.time_ms < 0) fail("traffic must not be negative");
    return t;
  }

  Summary trace(element t) const {
    Summary s;
    s.file = string_member(t, "file");
    s.overall.breakdown = breakdown(member(t, "overall"));
    for (element st : array(t, "steps")) {
      StepStats step;
      step.name = string_member(st, "name");
      step.breakdown = breakdown(st);
      s.steps.push_back(std::move(step));
    }
    element in;
    if (t["cluster_input"].get(in)) fail("a trace without 'cluster_input' (a report of an older banjia)");
    s.rank.rank = optional_int(in, "rank");
    s.rank.world_size = optional_int(in, "world_size");
    s.rank.job = string_member(in, "job");
    for (element c : array(in, "collectives")) {
      simdjson::dom::array call;
      element key, start, dur, size;
      int64_t bytes = -1;
      if (c.get_array().get(call) || call.size() != 4 || call.at(0).get(key) || call.at(1).get(start) ||
          call.at(2).get(dur) || call.at(3).get(size) || size.get_int64().get(bytes) || bytes < -1 ||
          bytes > (int64_t{1} << 53))
        fail("a collective must be [key, start_ns, dur_ns, bytes (-1: unknown)]");
      const int64_t dur_ns = time_ns(dur, "dur_ns");
      if (dur_ns < 0) fail("'dur_ns' must not be negative");
      s.collectives.push_back({text(key, "key"), time_ns(start, "start_ns"), dur_ns, bytes});
    }
    NpuExtras npu;
    for (element x : array(in, "transport_traffic")) npu.transport_traffic[string_member(x, "transport")] = traffic(x);
    for (element l : array(in, "links"))
      npu.links.push_back({string_member(l, "group"), string_member(l, "collective"), group_rank(l, "src"),
                           group_rank(l, "dst"), string_member(l, "transport"), traffic(l)});
    for (element p : array(in, "pipeline")) {
      simdjson::dom::array row;
      element stage, bubble;
      if (p.get_array().get(row) || row.size() != 2 || row.at(0).get(stage) || row.at(1).get(bubble))
        fail("a pipeline row must be [stage_us, bubble_us]");
      NpuStepTrace st;
      st.stage = finite(stage, "stage_us");
      st.bubble = finite(bubble, "bubble_us");
      npu.step_trace.push_back(st);
    }
    if (!npu.transport_traffic.empty() || !npu.links.empty() || !npu.step_trace.empty()) s.npu = std::move(npu);
    return s;
  }
};

}  // namespace

void write_cluster_input_json(JsonWriter& w, const Summary& s) {
  w.begin_object();
  w.field("rank", s.rank.rank).field("world_size", s.rank.world_size).field("job", s.rank.job);
  // [key, start_ns, dur_ns, bytes] per operation: compact, as a large trace has thousands.
  w.key("collectives").begin_array();
  for (const CollectiveCall& c : s.collectives)
    w.begin_array().value(c.key).value(c.start_ns).value(c.dur_ns).value(c.bytes).end_array();
  w.end_array();
  w.key("transport_traffic").begin_array();
  if (s.npu)
    for (const auto& [transport, t] : s.npu->transport_traffic)
      w.begin_object().field("transport", transport).field("size_mb", t.size_mb).field("time_ms", t.time_ms).end_object();
  w.end_array();
  // [stage_us, bubble_us] per row of torch_npu's step_trace_time.csv.
  w.key("pipeline").begin_array();
  if (s.npu)
    for (const NpuStepTrace& st : s.npu->step_trace) w.begin_array().value(st.stage).value(st.bubble).end_array();
  w.end_array();
  w.key("links").begin_array();
  if (s.npu)
    for (const LinkTraffic& l : s.npu->links)
      w.begin_object().field("group", l.group).field("collective", l.collective).field("src", l.src).field("dst", l.dst)
          .field("transport", l.transport).field("size_mb", l.traffic.size_mb).field("time_ms", l.traffic.time_ms).end_object();
  w.end_array();
  w.end_object();
}

std::vector<Summary> read_summary_report_json(std::string_view json_text, const std::string& file) {
  ReportReader r{file};
  simdjson::padded_string json(json_text);
  simdjson::dom::parser parser;
  element root;
  if (parser.parse(json).get(root)) r.fail("invalid JSON");
  std::string_view tool, command;
  if (root["tool"].get_string().get(tool) || tool != "banjia" || root["command"].get_string().get(command) ||
      command != "trace summary")
    r.fail("not a report of `banjia trace summary --format json`");
  element summary;
  if (root["summary"].get(summary)) r.fail("missing 'summary'");
  std::vector<Summary> out;
  for (element t : r.array(summary, "traces")) out.push_back(r.trace(t));
  if (out.empty()) r.fail("no traces");
  return out;
}

}  // namespace banjia::trace
