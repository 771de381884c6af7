#include "trace/analysis/communication.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <tuple>
#include <unordered_map>

#include "trace/model/trace_model.h"

namespace banjia::trace {

namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  if (v.size() % 2) return v[mid];
  const double upper = v[mid];
  return (*std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid)) + upper) / 2;
}

// msprof-analyze's gap of `values`: (max - min) / mean, with the mean and the index of the least.
struct Gap {
  double ratio = 0, mean = 0;
  size_t least = 0;
};
Gap gap_of(const std::vector<double>& values) {
  if (values.empty()) return {};
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  double mean = 0;
  for (double v : values) mean += v / static_cast<double>(values.size());
  return {mean > 0 ? (*hi - *lo) / mean : 0, mean, static_cast<size_t>(lo - values.begin())};
}

// The operations every rank recorded once (matched by key), each as its index on every rank, in
// the order of the first rank's starts.
std::vector<std::vector<size_t>> shared_operations(const std::vector<Summary>& all) {
  const size_t n = all.size();
  // key -> the call's index on each rank; only keys every rank recorded once are used.
  std::unordered_map<std::string_view, std::vector<size_t>> calls;
  for (size_t r = 0; r < n; ++r) {
    for (size_t i = 0; i < all[r].collectives.size(); ++i) {
      auto& at = calls[all[r].collectives[i].key];
      if (at.size() == r) at.push_back(i);
      else if (at.size() == r + 1) at.push_back(SIZE_MAX);  // recorded twice: ambiguous, never shared
    }
  }
  std::vector<std::vector<size_t>> shared;
  for (auto& [key, at] : calls)
    if (at.size() == n && std::find(at.begin(), at.end(), SIZE_MAX) == at.end()) shared.push_back(at);
  // Fixed order (the map's is not): by the first rank's start.
  std::sort(shared.begin(), shared.end(), [&](const auto& a, const auto& b) {
    return all[0].collectives[a[0]].start_ns < all[0].collectives[b[0]].start_ns;
  });
  return shared;
}

ArrivalView arrivals(const std::vector<Summary>& all, const std::vector<std::vector<size_t>>& shared,
                     double mean_step_us) {
  ArrivalView view;
  const size_t n = all.size();
  if (shared.empty() || n < 2) return view;
  view.collectives = shared.size();
  view.ranks.resize(n);
  auto end_of = [&](size_t r, size_t i) { return all[r].collectives[i].start_ns + all[r].collectives[i].dur_ns; };
  for (size_t r = 1; r < n; ++r) {
    std::vector<double> diffs;
    for (auto& at : shared) diffs.push_back(static_cast<double>(end_of(r, at[r]) - end_of(0, at[0])) / kNsPerUs);
    view.ranks[r].clock_offset_us = median_of(std::move(diffs));
  }
  const double steps = static_cast<double>(std::max<size_t>(1, all[0].steps.size()));
  std::vector<double> arrival(n);
  for (auto& at : shared) {
    for (size_t r = 0; r < n; ++r)
      arrival[r] = static_cast<double>(all[r].collectives[at[r]].start_ns) / kNsPerUs - view.ranks[r].clock_offset_us;
    const size_t last = static_cast<size_t>(std::max_element(arrival.begin(), arrival.end()) - arrival.begin());
    std::vector<double> others = arrival;
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(last));
    const double held = arrival[last] - median_of(std::move(others));
    if (held <= 0) continue;  // all arrived together
    ++view.ranks[last].last;
    view.ranks[last].held_us += held / steps;
  }
  // The scale: the mean step, or for a trace without device time (a CPU backend's), the first
  // rank's time from its first shared operation's start to its last one's end, per step.
  double scale_us = mean_step_us;
  if (scale_us <= 0) {
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (auto& at : shared) {
      first = std::min(first, all[0].collectives[at[0]].start_ns);
      last = std::max(last, end_of(0, at[0]));
    }
    scale_us = static_cast<double>(last - first) / kNsPerUs / steps;
  }
  size_t top = 0;
  for (size_t r = 1; r < n; ++r)
    if (view.ranks[r].held_us > view.ranks[top].held_us) top = r;
  if (scale_us > 0 && view.ranks[top].held_us > kSlowRankRatio * scale_us) view.latest = top;
  return view;
}

// Per kind of operation (the name before "#call" of a kernel's or gloo range's key), over the
// shared operations: the transfer itself lasts the shortest of the ranks' durations (the last rank
// to arrive waits for no one), and moves the first rank's message.
std::vector<CollectiveKind> collective_kinds(const std::vector<Summary>& all,
                                             const std::vector<std::vector<size_t>>& shared) {
  std::map<std::string, CollectiveKind> kinds;
  for (auto& at : shared) {
    const CollectiveCall& first = all[0].collectives[at[0]];
    const size_t hash = first.key.rfind('#');
    if (hash == std::string::npos) continue;
    CollectiveKind& k = kinds[first.key.substr(0, hash)];
    int64_t shortest = first.dur_ns;
    for (size_t r = 1; r < all.size(); ++r) shortest = std::min(shortest, all[r].collectives[at[r]].dur_ns);
    // A sum that would pass int64 (a hostile report) is as unknown as a missing size.
    if (k.calls == 0) k.bytes = first.bytes;
    else if (k.bytes >= 0) k.bytes = first.bytes >= 0 && first.bytes <= INT64_MAX - k.bytes ? k.bytes + first.bytes : -1;
    ++k.calls;
    k.time_us += static_cast<double>(shortest) / kNsPerUs;
  }
  std::vector<CollectiveKind> out;
  for (auto& [name, k] : kinds) {
    k.name = name;
    out.push_back(std::move(k));
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.time_us > b.time_us; });
  return out;
}

std::vector<TransportBandwidth> transport_bandwidth(const std::vector<Summary>& all) {
  std::vector<TransportBandwidth> out;
  for (const char* transport : {"SDMA", "RDMA"}) {
    TransportBandwidth b;
    b.transport = transport;
    bool any = false;
    std::vector<double> gbps;
    for (const Summary& s : all) {
      Traffic t;
      if (s.npu) {
        if (auto it = s.npu->transport_traffic.find(transport); it != s.npu->transport_traffic.end()) t = it->second;
      }
      any = any || t.size_mb > 0;
      b.per_rank.push_back(t);
      gbps.push_back(t.bandwidth_gbps());
    }
    if (!any) continue;
    const Gap gap = gap_of(gbps);
    b.gap_ratio = gap.ratio;
    b.slowest = gap.least;
    b.flagged = b.gap_ratio > kSlowRankRatio;
    out.push_back(std::move(b));
  }
  return out;
}

// Links between the job's ranks. A link names ranks within its group; the group's members are the
// inputs whose links or operations (communication.json's "op@group") name that group, in rank
// order, so the group's rank k is its k-th member (as msprof-analyze maps them). A link to a member
// that was not profiled cannot be mapped: counted.
std::vector<JobLink> merged_links(const std::vector<Summary>& all, size_t& unmapped) {
  std::map<std::string, std::vector<int64_t>> members;
  for (size_t i = 0; i < all.size(); ++i) {
    if (!all[i].npu) continue;
    const int64_t id = all[i].rank.rank ? *all[i].rank.rank : static_cast<int64_t>(i);
    for (const LinkTraffic& l : all[i].npu->links) members[l.group].push_back(id);
    for (const CollectiveCall& c : all[i].collectives)
      if (auto at = c.key.rfind('@'); at != std::string::npos) members[c.key.substr(at + 1)].push_back(id);
  }
  for (auto& [group, m] : members) {
    std::sort(m.begin(), m.end());
    m.erase(std::unique(m.begin(), m.end()), m.end());
  }
  std::map<std::tuple<int64_t, int64_t, std::string>, JobLink> sum;
  unmapped = 0;
  for (const Summary& s : all) {
    if (!s.npu) continue;
    for (const LinkTraffic& l : s.npu->links) {
      const auto& m = members[l.group];
      if (l.src < 0 || l.dst < 0 || static_cast<size_t>(l.src) >= m.size() || static_cast<size_t>(l.dst) >= m.size()) {
        ++unmapped;
        continue;
      }
      const int64_t src = m[static_cast<size_t>(l.src)], dst = m[static_cast<size_t>(l.dst)];
      JobLink& link = sum[{src, dst, l.transport}];
      link.src = src, link.dst = dst, link.transport = l.transport;
      for (Traffic* t : {&link.traffic, &link.by_collective[l.collective]}) {
        t->size_mb += l.traffic.size_mb;
        t->time_ms += l.traffic.time_ms;
      }
    }
  }
  std::vector<JobLink> out;
  for (auto& [k, link] : sum) out.push_back(std::move(link));
  return out;
}

std::vector<SlowLink> slow_links(const std::vector<JobLink>& links) {
  std::map<std::string, std::vector<size_t>> by_transport;
  for (size_t i = 0; i < links.size(); ++i)
    if (links[i].src != links[i].dst && links[i].traffic.time_ms > 0) by_transport[links[i].transport].push_back(i);
  std::vector<SlowLink> out;
  for (auto& [transport, idx] : by_transport) {
    if (idx.size() < 2) continue;
    std::vector<double> gbps;
    for (size_t i : idx) gbps.push_back(links[i].traffic.bandwidth_gbps());
    const Gap gap = gap_of(gbps);
    out.push_back({transport, idx[gap.least], gap.mean, gap.ratio, gap.ratio > kSlowRankRatio});
  }
  return out;
}

}  // namespace

CommunicationView communication_view(const std::vector<Summary>& ranks, double mean_step_us) {
  CommunicationView c;
  const auto shared = ranks.size() >= 2 ? shared_operations(ranks) : std::vector<std::vector<size_t>>{};
  c.arrivals = arrivals(ranks, shared, mean_step_us);
  c.kinds = collective_kinds(ranks, shared);
  c.transports = transport_bandwidth(ranks);
  c.links = merged_links(ranks, c.unmapped_links);
  c.slow_links = slow_links(c.links);
  return c;
}

std::vector<CollectiveCall> collectives_from_events(const TraceData& t, const std::vector<size_t>& events) {
  std::vector<size_t> order = events;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return t.ts[a] < t.ts[b]; });
  std::unordered_map<uint32_t, size_t> calls;  // name id -> calls so far
  std::vector<CollectiveCall> out;
  out.reserve(order.size());
  for (size_t i : order) {
    const size_t nth = calls[t.name[i]]++;
    out.push_back({std::string(t.strings.view(t.name[i])) + "#" + std::to_string(nth), t.ts[i], t.dur[i],
                   t.bytes[i] == kNone ? -1 : t.bytes[i]});
  }
  return out;
}

}  // namespace banjia::trace
