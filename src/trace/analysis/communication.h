// Communication across the ranks of one job: when each rank arrives at the collectives they share
// (so who the others wait for, read from the communication itself), the bandwidth each rank reaches
// per transport (msprof-analyze's slow-link rule) and the traffic of every link.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trace/analysis/summary.h"

namespace banjia::trace {

// msprof-analyze's gap rule, for slow ranks and slow links alike: a metric whose (max - min) / mean
// across ranks exceeds it flags the rank at the extreme (mstt: advisor/analyzer/cluster,
// RATIO_THRESHOLD of slow_rank_analyzer.py and slow_link_analyzer.py).
constexpr double kSlowRankRatio = 0.05;

// The operations of a collective end together on every rank (none can finish before the last
// has sent its part), so the median difference of their ends is the offset between two ranks'
// clocks; with it removed, the rank that starts an operation last is the one the others wait for.
struct RankArrivals {
  double clock_offset_us = 0;  // this rank's clock minus the first rank's
  size_t last = 0;             // shared operations this rank arrived at last
  double held_us = 0;          // at those, its arrival minus the others' median arrival (how long
                               // the typical other rank waited for it), per step
};

struct ArrivalView {
  size_t collectives = 0;          // operations every rank recorded (matched by key)
  std::vector<RankArrivals> ranks; // parallel to the cluster's ranks; empty when none are shared
  std::optional<size_t> latest;    // the rank that holds the others longest, when that exceeds
                                   // kSlowRankRatio of the mean step (without device time: of the
                                   // span of the shared operations, per step)
};

// One kind of collective (a communication kernel's or gloo range's name) over the operations every
// rank recorded. The transfer itself lasts the shortest of the ranks' durations (the last rank to
// arrive waits for no one); its bandwidth is the message size over that time (NCCL's algorithm
// bandwidth), where the trace records the message (Kineto's "In msg nelems" and "dtype").
struct CollectiveKind {
  std::string name;
  size_t calls = 0;
  int64_t bytes = -1;  // the first rank's messages summed over the calls; -1 where one is unknown
  double time_us = 0;  // the shortest duration across the ranks, summed over the calls
  double bandwidth_gbps() const { return bytes >= 0 && time_us > 0 ? static_cast<double>(bytes) / time_us / 1e3 : 0; }
};

// One transport's bandwidth per rank: size / time of its traffic over every operation
// (communication.json). msprof-analyze's slow-link rule: (max - min) / mean above 5 % flags the
// rank with the least (mstt: advisor/analyzer/cluster/slow_link_analyzer.py, RATIO_THRESHOLD).
struct TransportBandwidth {
  std::string transport;                // SDMA or RDMA, the two the rule looks at
  std::vector<Traffic> per_rank;        // parallel to the cluster's ranks (zero where none)
  double gap_ratio = 0;
  size_t slowest = 0;                   // index into the cluster's ranks
  bool flagged = false;
};

// The slowest link of one transport among every rank's communication_matrix.json links, by the
// same gap rule over links.
struct SlowLink {
  std::string transport;
  size_t link = 0;  // index into CommunicationView::links
  double mean_gbps = 0, gap_ratio = 0;
  bool flagged = false;
};

// A link between two of the job's ranks over one transport, over every group and kind of operation,
// and per kind of operation.
struct JobLink {
  int64_t src = 0, dst = 0;
  std::string transport;
  Traffic traffic;
  std::map<std::string, Traffic> by_collective;
};

struct CommunicationView {
  ArrivalView arrivals;
  std::vector<CollectiveKind> kinds;  // longest first
  std::vector<TransportBandwidth> transports;
  std::vector<JobLink> links;      // by source, destination, transport; LOCAL links (a rank to itself) kept
  size_t unmapped_links = 0;       // links to a rank of their group that was not among the inputs
  std::vector<SlowLink> slow_links;
  bool empty() const { return arrivals.ranks.empty() && transports.empty() && links.empty(); }
};

// `mean_step_us` is the cluster's mean step, the scale of the arrival rule (0: none).
CommunicationView communication_view(const std::vector<Summary>& ranks, double mean_step_us);

// The collectives of one trace from the events that run them (communication kernels, or a CPU
// backend's ranges), keyed by name and call number; used when the profiler wrote no
// communication.json.
std::vector<CollectiveCall> collectives_from_events(const TraceData& t, const std::vector<size_t>& events);

}  // namespace banjia::trace
