// Renders the cluster's communication view (arrivals, transport bandwidth, links): a JSON member,
// text lines, the links CSV table and an HTML section with a rank × rank bandwidth heat map.
#pragma once
#include <string>

#include "common/json_writer.h"
#include "trace/analysis/cluster.h"

namespace banjia::trace {

void write_communication_json(JsonWriter& w, const ClusterView& c);
std::string communication_text(const ClusterView& c);
std::string links_csv(const ClusterView& c);
std::string communication_html(const ClusterView& c);

}  // namespace banjia::trace
