// The DistributedDataParallel conversion of one training script (distributed.h): finds the pieces
// (training loader, model, optimizer, epoch loop, output statements) in the file's analysis, then
// writes every edit in one pass over the text.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "common/errors.h"
#include "migrate/distributed.h"
#include "migrate/distributed_parts.h"
#include "migrate/import_insertion.h"

namespace banjia::migrate {

namespace {

using python::kNoIndex;
using rules::PythonAnalysis;
using rules::TextEdit;

// Methods and attributes DistributedDataParallel answers itself (nn.Module's, or its own); any other
// attribute of the wrapped model is read through `.module`.
const std::set<std::string, std::less<>> kForwarded{
    "train", "eval", "parameters", "named_parameters", "buffers", "named_buffers", "children",
    "named_children", "modules", "named_modules", "zero_grad", "to", "cuda", "npu", "cpu", "float", "half",
    "bfloat16", "double", "requires_grad_", "apply", "register_forward_hook", "register_forward_pre_hook",
    "register_full_backward_hook", "forward", "no_sync", "module", "training"};

class Converter {
 public:
  Converter(const PythonAnalysis& a, FileRewrite& fr, std::string_view target)
      : a_(a), parts_(a), fr_(fr), npu_(target == "npu"), nl_(line_ending_of(a.text())),
        first_change_(fr.changes.size()), first_leftover_(fr.leftovers.size()) {}

  bool run() {
    if (parts_.uses_torch_distributed()) {
      report_line("ddp-already-distributed", parts_.first_distributed_line());
      return false;
    }
    const auto loaders = parts_.data_loaders();
    const auto optimizers = parts_.optimizers();
    if (loaders.empty() || optimizers.empty()) return false;  // not a training script
    const auto train = parts_.training_loader(loaders);
    std::set<std::string_view> models;
    for (const auto& o : optimizers)
      if (!o.model.empty()) models.insert(o.model);
    if (models.size() > 1) return leftover("ddp-several-models", optimizers.front().stmt);
    const auto opt = std::find_if(optimizers.begin(), optimizers.end(), [](const auto& o) { return !o.model.empty(); });
    if (opt == optimizers.end()) return leftover("ddp-no-model", optimizers.front().stmt);
    if (!train) return leftover("ddp-several-train-loaders", loaders.front().stmt);
    if (train->custom_sampler) return leftover("ddp-custom-sampler", train->stmt);
    if (train->dataset.empty()) return leftover("ddp-dataset-expression", train->stmt);
    const auto model_stmt = parts_.last_assignment_before(opt->model, opt->stmt);
    const uint32_t setup_at = std::min(model_stmt.value_or(opt->stmt), train->stmt);
    if (parts_.enclosing_def(setup_at) != parts_.enclosing_def(opt->stmt) ||
        parts_.depth(setup_at) != parts_.depth(opt->stmt))
      return leftover("ddp-no-device", opt->stmt);

    const std::string device = parts_.device_of(opt->model, model_stmt);
    setup(setup_at, device);
    sampler(*train);
    wrap(*opt, device);
    epoch_loop(*train, opt->stmt);
    evaluation(loaders, *train, *opt);
    rank0_output();
    flush();
    for (uint32_t s : parts_.conditional_steps(opt->name)) report("ddp-gradient-accumulation", s);
    imports();
    apply();
    return true;
  }

 private:
  // ---- reporting
  int line_of(uint32_t stmt) const { return static_cast<int>(a_.sig_token(a_.view.statements[stmt].first_sig).line); }
  void report(std::string_view id, uint32_t stmt) { report_line(id, line_of(stmt)); }
  void report_line(std::string_view id, int line) {
    const DistributedItem& item = distributed_item(id);
    Finding f;
    f.file = fr_.display;
    f.line = line;
    f.column = 1;
    f.rule = item.id;
    f.category = "distributed";
    f.severity = item.fix == FixKind::advisory ? Severity::info : Severity::warning;
    f.fix = item.fix;
    f.message = item.message;
    f.source = item.source;
    fr_.leftovers.push_back(std::move(f));
  }
  bool leftover(std::string_view id, uint32_t stmt) {
    report(id, stmt);
    return false;
  }
  void edit(std::string_view id, uint32_t begin, uint32_t end, std::string text) {
    const int line = static_cast<int>(std::count(a_.text().begin(), a_.text().begin() + begin, '\n')) + 1;
    fr_.changes.push_back({fr_.display, line, 1, std::string(id), std::string(a_.text().substr(begin, end - begin)),
                           text, FixKind::automatic, ""});
    edits_.push_back({begin, end, std::move(text)});
  }

  // ---- the edits
  std::string indent_of(uint32_t stmt) const { return parts_.indent_of(stmt); }
  uint32_t line_start(uint32_t stmt) const {
    return static_cast<uint32_t>(first_line_of_logical_line(a_, a_.sig_token(a_.view.statements[stmt].first_sig).begin));
  }
  std::string lines(const std::string& indent, std::initializer_list<std::string> body) const {
    std::string out;
    for (const auto& l : body) out += (l.empty() ? std::string() : indent + l) + nl_;
    return out;
  }

  void setup(uint32_t stmt, const std::string& device) {
    const std::string in = indent_of(stmt), unit = parts_.indent_unit();
    const std::string type = fmt::format("torch.device({}).type", device);
    std::vector<std::string> body{"local_rank = int(os.environ.get(\"LOCAL_RANK\", \"0\"))  # set by torchrun: one process per device"};
    if (!device.empty()) {
      body.push_back(fmt::format("if {} != \"cpu\":", type));
      body.push_back(unit + fmt::format("{} = torch.device({}, local_rank)", device, type));
      body.push_back(unit + (npu_ ? fmt::format("torch.npu.set_device({})", device)
                                  : "torch.accelerator.set_device_index(local_rank)"));
      body.push_back(fmt::format("dist.init_process_group(backend={{\"npu\": \"hccl\", \"cuda\": \"nccl\"}}.get({}, \"gloo\"))", type));
    } else if (npu_) {
      body.push_back("torch.npu.set_device(local_rank)");
      body.push_back("dist.init_process_group(backend=\"hccl\")");
    } else {
      body.push_back("torch.accelerator.set_device_index(local_rank)");
      body.push_back("dist.init_process_group()");
    }
    std::string text;
    for (const auto& l : body) text += in + l + nl_;
    const uint32_t at = line_start(stmt);
    edit("ddp-process-group", at, at, text);
  }

  void sampler(const DataLoaderCall& l) {
    if (l.shuffle) {
      edit("ddp-sampler", l.shuffle->first, l.shuffle->last,
           fmt::format("sampler=DistributedSampler({}, shuffle={})", l.dataset, l.shuffle_value));
    } else if (l.kwargs) {
      edit("ddp-sampler", l.kwargs->first, l.kwargs->last,
           fmt::format("sampler=DistributedSampler({0}, shuffle={1}.get(\"shuffle\", False)), "
                       "**{{k: v for k, v in {1}.items() if k != \"shuffle\"}}", l.dataset, l.kwargs_name));
    } else {
      edit("ddp-sampler", l.close, l.close, fmt::format("{}sampler=DistributedSampler({}, shuffle=False)",
                                                         l.trailing_comma ? " " : ", ", l.dataset));
    }
  }

  void wrap(const OptimizerCall& o, const std::string& device) {
    const std::string ids = device.empty() ? (npu_ ? "[local_rank]" : "None")
                                           : fmt::format("None if torch.device({}).type == \"cpu\" else [local_rank]", device);
    const uint32_t at = line_start(o.stmt);
    edit("ddp-wrap", at, at, indent_of(o.stmt) + fmt::format("{0} = DDP({0}, device_ids={1})", o.model, ids) + nl_);
    for (uint32_t si : parts_.attribute_uses(o.model, o.stmt))
      if (!kForwarded.contains(a_.sig_text(si + 2))) insert_after(si, ".module", "ddp-module-access");
  }

  // ".module" after the model's name at sig index si: a change of its own, or part of the guarded
  // statement holding it (flush() writes those left).
  void insert_after(uint32_t si, std::string text, std::string_view id) {
    const uint32_t at = a_.sig_token(si).end;
    inserts_[a_.view.stmt_of[si]].push_back({at, text});
    const int line = static_cast<int>(a_.sig_token(si).line);
    fr_.changes.push_back({fr_.display, line, static_cast<int>(a_.sig_token(si).col) + 1, std::string(id),
                           std::string(a_.sig_text(si)), std::string(a_.sig_text(si)) + text, FixKind::automatic, ""});
  }

  void epoch_loop(const DataLoaderCall& l, uint32_t after) {
    const auto loop = l.name.empty() ? std::nullopt : parts_.epoch_loop(l.name, after);
    if (!loop) return report("ddp-set-epoch-unplaced", l.stmt);
    const uint32_t at = line_start(loop->first_body);
    edit("ddp-set-epoch", at, at, indent_of(loop->first_body) + fmt::format("{}.sampler.set_epoch({})", l.name, loop->var) + nl_);
  }

  // The statement under `if <rank 0>:`, one indentation step deeper, with its pending inserts.
  std::string guarded(uint32_t stmt) {
    const uint32_t begin = line_start(stmt), end = a_.sig_token(a_.view.statements[stmt].last_sig).end;
    std::vector<std::pair<uint32_t, std::string>> ins = std::move(inserts_[stmt]);
    inserts_.erase(stmt);
    std::sort(ins.begin(), ins.end());
    std::string body;
    uint32_t at = begin;
    for (const auto& [pos, text] : ins) {
      body.append(a_.text().substr(at, pos - at)).append(text);
      at = pos;
    }
    body.append(a_.text().substr(at, end - at));
    const std::string unit = parts_.indent_unit();
    std::string out = indent_of(stmt) + "if not dist.is_initialized() or dist.get_rank() == 0:" + nl_ + unit;
    for (char c : body) {
      out += c;
      if (c == '\n') out += unit;
    }
    return out;
  }
  bool guard(std::string_view id, uint32_t stmt) {
    if (guarded_.contains(stmt)) return true;
    if (!parts_.starts_its_line(stmt) || parts_.has_multiline_string(stmt)) {
      report("ddp-rank0-unguarded", stmt);
      return false;
    }
    const uint32_t begin = line_start(stmt), end = a_.sig_token(a_.view.statements[stmt].last_sig).end;
    edit(id, begin, end, guarded(stmt));
    guarded_.insert(stmt);
    return true;
  }

  void rank0_output() {
    for (uint32_t s : parts_.output_statements()) guard("ddp-rank0-output", s);
  }

  // An evaluation call given another loader: on rank 0, with the model as model.module (DDP's forward
  // would wait for the other ranks).
  void evaluation(const std::vector<DataLoaderCall>& loaders, const DataLoaderCall& train, const OptimizerCall& o) {
    for (const auto& l : loaders) {
      if (l.stmt == train.stmt || l.name.empty()) continue;
      for (const auto& call : parts_.calls_passing(l.name, o.model, o.stmt)) {
        if (!call.bare) {
          report("ddp-eval-every-rank", call.stmt);
          continue;
        }
        for (uint32_t si : call.model_args) insert_after(si, ".module", "ddp-rank0-eval");
        guard("ddp-rank0-eval", call.stmt);
      }
    }
  }

  // The inserts of statements that were not guarded, as edits of their own.
  void flush() {
    for (auto& [stmt, ins] : inserts_)
      for (auto& [at, text] : ins) edits_.push_back({at, at, std::move(text)});
    inserts_.clear();
  }

  void imports() {
    std::string text;
    if (!parts_.binds("os")) text += "import os" + nl_;
    if (!parts_.binds("dist")) text += "import torch.distributed as dist" + nl_;
    if (!parts_.binds("DDP")) text += "from torch.nn.parallel import DistributedDataParallel as DDP" + nl_;
    if (!parts_.binds("DistributedSampler")) text += "from torch.utils.data.distributed import DistributedSampler" + nl_;
    if (text.empty()) return;
    const uint32_t at = parts_.after_imports();
    edit("ddp-imports", at, at, text);
  }

  // Applies the edits from the end of the file back. At one offset a replacement goes before the
  // insertions there, and insertions keep the order they were made in.
  void apply() {
    std::vector<size_t> order(edits_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      const TextEdit &a = edits_[x], &b = edits_[y];
      if (a.begin != b.begin) return a.begin > b.begin;
      if (a.end != b.end) return a.end > b.end;
      return x > y;
    });
    std::string text(a_.text());
    uint32_t floor = UINT32_MAX;
    std::vector<std::pair<uint32_t, int>> added;  // (end of an applied edit, lines it adds)
    for (size_t i : order) {
      const TextEdit& e = edits_[i];
      if (e.end > floor) continue;  // inside a range already replaced: never made (inserts_ hold those)
      const auto breaks = [](std::string_view t) { return static_cast<int>(std::count(t.begin(), t.end(), '\n')); };
      added.push_back({e.end, breaks(e.text) - breaks(a_.text().substr(e.begin, e.end - e.begin))});
      text.replace(e.begin, e.end - e.begin, e.text);
      floor = e.begin;
    }
    // This pass's changes and items name lines of the file as written.
    const auto moved = [&](int line) {
      const std::string_view t = a_.text();
      size_t at = 0;
      for (int l = 1; l < line && at != std::string_view::npos; ++l) at = t.find('\n', at) + 1;
      int shift = 0;
      for (const auto& [end, lines] : added)
        if (end <= at) shift += lines;
      return line + shift;
    };
    for (size_t i = first_change_; i < fr_.changes.size(); ++i) fr_.changes[i].line = moved(fr_.changes[i].line);
    for (size_t i = first_leftover_; i < fr_.leftovers.size(); ++i) fr_.leftovers[i].line = moved(fr_.leftovers[i].line);
    fr_.rewritten = (a_.source.had_bom ? std::string("\xEF\xBB\xBF") : std::string()) + text;
    std::stable_sort(fr_.changes.begin(), fr_.changes.end(),
                     [](const Change& x, const Change& y) { return std::tie(x.line, x.column) < std::tie(y.line, y.column); });
  }

  const PythonAnalysis& a_;
  ScriptParts parts_;
  FileRewrite& fr_;
  bool npu_;
  std::string nl_;
  size_t first_change_, first_leftover_;  // this pass's changes and items start here
  std::vector<TextEdit> edits_;
  std::map<uint32_t, std::vector<std::pair<uint32_t, std::string>>> inserts_;  // per statement
  std::set<uint32_t> guarded_;
};

}  // namespace

bool distribute_script(FileRewrite& fr, std::string_view target) {
  if (!fr.display.ends_with(".py")) return false;
  std::unique_ptr<PythonAnalysis> a;
  try {
    a = rules::analyse_python(fr.rewritten, fr.display);
  } catch (const InputError&) {
    return false;  // the migration reported it already
  }
  return Converter(*a, fr, target).run();
}

}  // namespace banjia::migrate
