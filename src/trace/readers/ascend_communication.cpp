#include "trace/readers/ascend_communication.h"

#include <cmath>
#include <map>
#include <simdjson.h>
#include <tuple>

#include "common/errors.h"
#include "common/file_io.h"
#include "trace/readers/decimal_time.h"

namespace banjia::trace {

namespace fs = std::filesystem;

namespace {

// communication.json and communication_matrix.json share one shape, {step: {"collective": {op:
// ...}, "p2p": {op: ...}}}: calls fn(step, kind, ops) for each step and kind present. False when
// the file does not exist.
template <class Fn>
bool for_each_step_and_kind(const fs::path& p, Fn&& fn) {
  std::error_code ec;
  if (!fs::exists(p, ec)) return false;
  simdjson::dom::parser parser;
  simdjson::padded_string json(read_file(p));
  simdjson::dom::element root;
  if (parser.parse(json).get(root)) throw InputError(p.string(), "invalid JSON");
  simdjson::dom::object steps;
  if (root.get_object().get(steps)) throw InputError(p.string(), "expected an object of steps");
  for (auto [step, v] : steps) {
    for (const char* kind : {"collective", "p2p"}) {
      simdjson::dom::object ops;
      if (!v[kind].get_object().get(ops)) fn(step, std::string_view(kind), ops);
    }
  }
  return true;
}

// Traffic of one operation or link: within [0, 1e12] MB and ms (an exabyte, thirty years), so that
// sums over any number of them stay finite and a bandwidth is never inf / inf.
bool plausible_traffic(double size_mb, double time_ms) {
  constexpr double kMax = 1e12;
  return size_mb >= 0 && size_mb <= kMax && time_ms >= 0 && time_ms <= kMax;
}

}  // namespace

void read_communication(const fs::path& p, NpuExtras& x) {
  const bool found = for_each_step_and_kind(p, [&](std::string_view step, std::string_view, simdjson::dom::object ops) {
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
  });
  if (found) x.sources.push_back(p.string());
}

namespace {

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

}  // namespace

// communication_matrix.json: per step and kind (collective, p2p), the traffic of each link "src-dst"
// per operation type. Where a kind has "<type>-total@group" entries, they sum that type's operations
// and the others ("-top1", "-middle", "-bottom": samples of it) are skipped; otherwise every
// operation counts ("Total Op Info", a sum of them, excepted). Summed per group, kind of operation,
// link and transport.
void read_communication_matrix(const fs::path& p, NpuExtras& x) {
  std::map<std::tuple<std::string, std::string, int64_t, int64_t, std::string>, Traffic> sum;
  const bool found = for_each_step_and_kind(p, [&](std::string_view, std::string_view, simdjson::dom::object ops) {
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
  });
  for (auto& [k, t] : sum)
    x.links.push_back({std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k), std::get<4>(k), t});
  if (found) x.sources.push_back(p.string());
}

}  // namespace banjia::trace
