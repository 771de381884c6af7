// The items of data/distributed.toml, checked against the ids the distributed conversion uses.
#include <algorithm>
#include <array>
#include <map>

#include "common/embedded_data.h"
#include "common/errors.h"
#include "common/toml_document.h"
#include "migrate/distributed.h"

namespace banjia::migrate {

namespace {

constexpr std::string_view kFile = "data/distributed.toml";

// Every id distributed_script.cpp and the launch script report.
constexpr std::array<std::string_view, 20> kIds{
    "ddp-process-group", "ddp-sampler", "ddp-set-epoch", "ddp-wrap", "ddp-module-access", "ddp-rank0-output",
    "ddp-rank0-eval", "ddp-imports", "ddp-launch-script", "ddp-custom-sampler", "ddp-several-models",
    "ddp-several-train-loaders", "ddp-dataset-expression", "ddp-no-device", "ddp-no-model",
    "ddp-set-epoch-unplaced", "ddp-gradient-accumulation", "ddp-rank0-unguarded", "ddp-eval-every-rank",
    "ddp-already-distributed"};

std::map<std::string, DistributedItem, std::less<>> load() {
  const auto text = embedded_file(kFile);
  if (!text) throw InputError(std::string(kFile), "not compiled into this binary");
  const toml::table doc = parse_toml(*text, std::string(kFile));
  const auto* items = doc["item"].as_array();
  if (!items) throw InputError(std::string(kFile), "no [[item]] entries");
  std::map<std::string, DistributedItem, std::less<>> out;
  for (const auto& node : *items) {
    const auto* t = node.as_table();
    if (!t) throw InputError(std::string(kFile), "an [[item]] is not a table");
    DistributedItem item;
    item.id = (*t)["id"].value_or(std::string());
    const std::string where = std::string(kFile) + ": item '" + item.id + "'";
    item.message = (*t)["message"].value_or(std::string());
    item.source = (*t)["source"].value_or(std::string());
    const auto fix = parse_fix_kind((*t)["fix"].value_or(std::string()));
    if (!fix || item.message.empty() || item.source.empty())
      throw InputError(where, "needs fix (automatic, manual or advisory), message and source");
    item.fix = *fix;
    if (std::find(kIds.begin(), kIds.end(), item.id) == kIds.end())
      throw InputError(where, "no code reports this id (src/migrate/distributed_items.cpp)");
    if (!out.emplace(item.id, item).second) throw InputError(where, "is listed twice");
  }
  for (std::string_view id : kIds)
    if (!out.contains(id)) throw InputError(std::string(kFile), "has no item '" + std::string(id) + "', which the code reports");
  return out;
}

}  // namespace

const DistributedItem& distributed_item(std::string_view id) {
  static const auto items = load();
  const auto it = items.find(id);
  if (it == items.end()) throw InputError(std::string(kFile), "has no item '" + std::string(id) + "'");
  return it->second;
}

}  // namespace banjia::migrate
