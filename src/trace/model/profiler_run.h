// One profiler run as the readers deliver it to the analysis: the trace, torch_npu's side files
// and the rank the profiler recorded. Everything the analysis needs from disk is in here, so the
// analysis reads no file.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trace/model/rank_identity.h"
#include "trace/model/trace_model.h"

namespace banjia::trace {

struct OpRow {  // one op name: calls and host self/total time (µs)
  std::string name;
  size_t count = 0;
  double self_us = 0, total_us = 0;
};

struct NpuStepTrace {  // one row of step_trace_time.csv (µs), as the profiler wrote it
  std::string step;
  double computing = 0, comm_not_overlapped = 0, overlapped = 0, communication = 0, free = 0,
         stage = 0, bubble = 0;
  std::optional<double> preparing;
};

struct OperatorDetailRow {  // operator_details.csv rows of one op name, added up (µs)
  std::string name;
  size_t count = 0;  // rows (one per op call)
  double host_self_us = 0, host_total_us = 0, device_self_us = 0, device_total_us = 0;
};

// One collective or point-to-point operation as one rank recorded it. `key` names the same
// operation on every rank that took part: torch_npu's "step/op@group" name from communication.json,
// or, from a trace, the kernel's name and which call of it this is ("ncclDevKernel_AllReduce…#3").
struct CollectiveCall {
  std::string key;
  int64_t start_ns = 0, dur_ns = 0;  // on this rank's clock
  int64_t bytes = -1;                // its message (Kineto's "In msg nelems" x dtype), -1 unknown
};

// Bytes moved and time spent moving them, summed over operations (communication.json's
// "Communication Bandwidth Info"; communication_matrix.json's per-link entries).
struct Traffic {
  double size_mb = 0, time_ms = 0;
  double bandwidth_gbps() const { return time_ms > 0 ? size_mb / time_ms : 0; }  // MB/ms = GB/s
};

// One link of communication_matrix.json for one kind of operation: traffic from rank `src` to rank
// `dst` over one transport, summed over its steps. As the file writes them, `src` and `dst` are
// ranks within the communication `group` (the name after '@' in an operation's name); the cluster
// view maps them to the job's ranks.
struct LinkTraffic {
  std::string group;
  std::string collective;  // "allreduce", "allgather", "send", ... (from the operation's name)
  int64_t src = 0, dst = 0;
  std::string transport;   // HCCS, RDMA, PCIE, SIO, LOCAL
  Traffic traffic;
};

struct NpuExtras {
  size_t ai_cpu_tasks = 0, ai_cpu_slow_tasks = 0;  // slow: >= aicpu-fallback min_task_us
  double ai_cpu_us = 0;
  std::map<std::string, double> core_time_us;       // by Accelerator Core / Task Type
  std::vector<NpuStepTrace> step_trace;             // from step_trace_time.csv
  std::vector<OpRow> op_statistic;                  // op_statistic.csv: name=OP Type, total/count
  std::vector<OperatorDetailRow> operator_details;  // operator_details.csv, by device total time
  double communication_elapse_ms = 0;               // communication.json, sum of Elapse Time(ms)
  size_t communication_ops = 0;
  std::vector<CollectiveCall> collectives;          // communication.json, every operation
  std::map<std::string, Traffic> transport_traffic; // communication.json, by transport type (SDMA, RDMA, HCCS…)
  std::vector<LinkTraffic> links;                   // communication_matrix.json
  std::vector<std::string> sources;                 // files the extras came from
};

struct ProfilerRun {
  TraceData trace;
  std::optional<NpuExtras> npu;  // torch_npu outputs only: what ASCEND_PROFILER_OUTPUT's side files hold
  RankIdentity rank;             // job and rank the profiler recorded (decides whether inputs form a cluster)
  TraceFormat format() const { return trace.format; }
};

}  // namespace banjia::trace
