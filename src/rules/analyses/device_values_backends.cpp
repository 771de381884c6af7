// A backend per device, torch.distributed.Backend's "cpu:gloo,cuda:nccl" form (device_values.h).
#include <algorithm>
#include <array>

#include "rules/analyses/device_values.h"

namespace banjia::rules {

std::vector<std::pair<std::string_view, std::string_view>> composite_backend_items(std::string_view value) {
  static constexpr std::array<std::string_view, 3> kDevices = {"cpu", "cuda", "npu"};
  static constexpr std::array<std::string_view, 5> kBackends = {"gloo", "nccl", "hccl", "mpi", "ucc"};
  auto listed = [](const auto& list, std::string_view x) { return std::find(list.begin(), list.end(), x) != list.end(); };
  std::vector<std::pair<std::string_view, std::string_view>> items;
  while (true) {
    const size_t comma = value.find(',');
    const std::string_view item = value.substr(0, comma);
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos || !listed(kDevices, item.substr(0, colon)) || !listed(kBackends, item.substr(colon + 1)))
      return {};
    items.emplace_back(item.substr(0, colon), item.substr(colon + 1));
    if (comma == std::string_view::npos) return items;
    value.remove_prefix(comma + 1);
  }
}

}  // namespace banjia::rules
