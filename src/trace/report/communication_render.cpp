#include "trace/report/communication_render.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "common/html.h"

namespace banjia::trace {

namespace {

void write_traffic(JsonWriter& w, const Traffic& t) {
  w.field("size_mb", t.size_mb).field("time_ms", t.time_ms).field("bandwidth_gbps", t.bandwidth_gbps());
}

}  // namespace

void write_communication_json(JsonWriter& w, const ClusterView& c) {
  const CommunicationView& m = c.communication;
  w.begin_object();
  w.key("arrivals").begin_object().field("collectives", static_cast<uint64_t>(m.arrivals.collectives));
  w.key("ranks").begin_array();
  for (size_t i = 0; i < m.arrivals.ranks.size(); ++i) {
    const RankArrivals& a = m.arrivals.ranks[i];
    w.begin_object().field("index", static_cast<uint64_t>(i)).field("rank", c.ranks[i].rank)
        .field("clock_offset_us", a.clock_offset_us).field("last", static_cast<uint64_t>(a.last))
        .field("held_us", a.held_us).end_object();
  }
  w.end_array();
  if (m.arrivals.latest) w.field("latest_index", static_cast<uint64_t>(*m.arrivals.latest)).field("latest_rank", rank_of(c, *m.arrivals.latest));
  else w.key("latest_index").null().key("latest_rank").null();
  w.end_object();
  w.key("kinds").begin_array();
  for (const CollectiveKind& k : m.kinds) {
    w.begin_object().field("name", k.name).field("calls", static_cast<uint64_t>(k.calls));
    if (k.bytes >= 0) w.field("bytes", k.bytes).field("bandwidth_gbps", k.bandwidth_gbps());
    else w.key("bytes").null().key("bandwidth_gbps").null();
    w.field("time_us", k.time_us).end_object();
  }
  w.end_array();
  w.key("transports").begin_array();
  for (const TransportBandwidth& b : m.transports) {
    w.begin_object().field("transport", b.transport).field("gap_ratio", b.gap_ratio)
        .field("slowest_index", static_cast<uint64_t>(b.slowest)).field("slowest_rank", rank_of(c, b.slowest))
        .field("flagged", b.flagged);
    w.key("ranks").begin_array();
    for (size_t i = 0; i < b.per_rank.size(); ++i) {
      w.begin_object().field("index", static_cast<uint64_t>(i));
      write_traffic(w, b.per_rank[i]);
      w.end_object();
    }
    w.end_array().end_object();
  }
  w.end_array();
  w.key("links").begin_array();
  for (const JobLink& l : m.links) {
    w.begin_object().field("src", l.src).field("dst", l.dst).field("transport", l.transport);
    write_traffic(w, l.traffic);
    w.key("collectives").begin_array();
    for (const auto& [collective, t] : l.by_collective) {
      w.begin_object().field("collective", collective);
      write_traffic(w, t);
      w.end_object();
    }
    w.end_array().end_object();
  }
  w.end_array();
  w.field("unmapped_links", static_cast<uint64_t>(m.unmapped_links));
  w.key("slow_links").begin_array();
  for (const SlowLink& s : m.slow_links)
    w.begin_object().field("transport", s.transport).field("src", m.links[s.link].src).field("dst", m.links[s.link].dst)
        .field("bandwidth_gbps", m.links[s.link].traffic.bandwidth_gbps()).field("mean_gbps", s.mean_gbps)
        .field("gap_ratio", s.gap_ratio).field("flagged", s.flagged).end_object();
  w.end_array();
  w.end_object();
}

std::string communication_text(const ClusterView& c) {
  const CommunicationView& m = c.communication;
  std::string o;
  const ArrivalView& a = m.arrivals;
  if (a.collectives > 0) {
    double offset = 0;
    for (const RankArrivals& r : a.ranks) offset = std::max(offset, std::abs(r.clock_offset_us));
    size_t top = 0;
    for (size_t i = 1; i < a.ranks.size(); ++i)
      if (a.ranks[i].held_us > a.ranks[top].held_us) top = i;
    o += fmt::format("  arrivals at {} shared collectives (clocks aligned on their ends, offsets up to {:.3f} ms): rank {} "
                     "arrives last at {} and holds the others {:.3f} ms per step{}\n",
                     a.collectives, offset / 1000, rank_of(c, top), a.ranks[top].last, a.ranks[top].held_us / 1000,
                     a.latest ? "; the others wait for it" : "");
  }
  for (size_t i = 0; i < m.kinds.size() && i < 5; ++i) {
    const CollectiveKind& k = m.kinds[i];
    const double calls = static_cast<double>(k.calls);
    o += fmt::format("  {} x{}: {:.3f} ms per call (the shortest rank's){}\n", k.name, k.calls, k.time_us / calls / 1000,
                     k.bytes >= 0 ? fmt::format(", {:.3f} MB per call, {:.3f} GB/s", static_cast<double>(k.bytes) / calls / 1e6,
                                                k.bandwidth_gbps())
                                  : "");
  }
  for (const TransportBandwidth& b : m.transports)
    o += fmt::format("  {} bandwidth: (max-min)/mean = {:.1f}%{}\n", b.transport, 100 * b.gap_ratio,
                     b.flagged ? fmt::format(" > 5%: slow link at rank {} ({:.3f} GB/s)", rank_of(c, b.slowest),
                                             b.per_rank[b.slowest].bandwidth_gbps())
                               : "");
  if (m.unmapped_links > 0)
    o += fmt::format("  {} links name ranks of their group that are not among the inputs: not in the link matrix\n",
                     m.unmapped_links);
  for (const SlowLink& s : m.slow_links) {
    const JobLink& l = m.links[s.link];
    o += fmt::format("  {} links: slowest {}->{} at {:.3f} GB/s, mean {:.3f}, (max-min)/mean = {:.1f}%{}\n", s.transport, l.src,
                     l.dst, l.traffic.bandwidth_gbps(), s.mean_gbps, 100 * s.gap_ratio, s.flagged ? " > 5%: slow link" : "");
  }
  return o;
}

std::string links_csv(const ClusterView& c) {
  std::string o = "src,dst,transport,collective,size_mb,time_ms,bandwidth_gbps\n";
  auto row = [&](const JobLink& l, std::string_view collective, const Traffic& t) {
    o += fmt::format("{},{},{},{},{:.6f},{:.6f},{:.6f}\n", l.src, l.dst, l.transport, collective, t.size_mb, t.time_ms,
                     t.bandwidth_gbps());
  };
  for (const JobLink& l : c.communication.links) {
    row(l, "all", l.traffic);
    for (const auto& [collective, t] : l.by_collective) row(l, collective, t);
  }
  return o;
}

std::string communication_html(const ClusterView& c) {
  const CommunicationView& m = c.communication;
  std::string body;
  if (!m.arrivals.ranks.empty()) {
    std::vector<html::Row> rows;
    for (size_t i = 0; i < m.arrivals.ranks.size(); ++i) {
      const RankArrivals& a = m.arrivals.ranks[i];
      rows.push_back({{std::to_string(rank_of(c, i)), fmt::format("{:.3f}", a.clock_offset_us / 1000), std::to_string(a.last),
                       fmt::format("{:.3f}", a.held_us / 1000)},
                      m.arrivals.latest == i ? "status-warn" : ""});
    }
    body += fmt::format("<h2>Arrivals at {} shared collectives</h2>", m.arrivals.collectives);
    body += html::table({{"rank", html::Align::kNumber}, {"clock offset (ms)", html::Align::kNumber}, {"arrives last (count)", html::Align::kNumber},
                         {"holds the others (ms per step)", html::Align::kNumber}},
                        rows);
  }
  // Heat map: one cell per source and destination rank, the bandwidth of their busiest transport
  // other than LOCAL, shaded against the fastest link.
  std::map<std::pair<int64_t, int64_t>, const JobLink*> busiest;
  std::vector<int64_t> ids;
  double fastest = 0;
  for (const JobLink& l : m.links) {
    if (l.transport == "LOCAL" || l.traffic.time_ms <= 0) continue;
    auto& b = busiest[{l.src, l.dst}];
    if (!b || l.traffic.size_mb > b->traffic.size_mb) b = &l;
    ids.push_back(l.src);
    ids.push_back(l.dst);
    fastest = std::max(fastest, l.traffic.bandwidth_gbps());
  }
  if (busiest.empty()) return body;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  body += "<h2>Link bandwidth (from the row's rank to the column's)</h2><table class=\"heatmap\"><tr><th class=\"num\">rank</th>";
  for (int64_t d : ids) body += fmt::format("<th class=\"num\">to {} (GB/s)</th>", d);
  body += "</tr>";
  for (int64_t s : ids) {
    body += fmt::format("<tr><td class=\"num\">{}</td>", s);
    for (int64_t d : ids) {
      auto it = busiest.find({s, d});
      if (it == busiest.end()) {
        body += "<td class=\"num\"></td>";
        continue;
      }
      const double gbps = it->second->traffic.bandwidth_gbps();
      // Slower links are redder: lightness from 45 % (slowest) to 95 % (the fastest link).
      const double share = fastest > 0 ? gbps / fastest : 1;
      body += fmt::format("<td class=\"num\" style=\"background:hsl(0,70%,{:.0f}%)\" title=\"{}\">{:.2f}</td>",
                          45 + 50 * share, html::escape(it->second->transport), gbps);
    }
    body += "</tr>";
  }
  body += "</table>";
  return body;
}

}  // namespace banjia::trace
