// The parts of a training script the DistributedDataParallel conversion edits (distributed.h), found
// syntactically in the file's analysis: its DataLoaders, optimizers, the model they train, the epoch
// loop, output statements and evaluation calls. Statements are indices of ModuleView::statements.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/analyses/python_analysis.h"

namespace banjia::migrate {

struct ByteRange {
  uint32_t first = 0, last = 0;  // [first, last) in the analysed text
};

struct DataLoaderCall {
  uint32_t stmt = 0;
  std::string name;                   // the name it is assigned to ("" when it is not `name = DataLoader(...)`)
  std::string dataset;                // its dataset argument when that is a dotted name, else ""
  std::optional<ByteRange> shuffle;   // the `shuffle=...` argument
  std::string shuffle_value;          // its value as written
  std::optional<ByteRange> kwargs;    // the one `**name` argument
  std::string kwargs_name;
  uint32_t close = 0;                 // byte offset of the call's ')'
  bool trailing_comma = false;        // the last argument is followed by ','
  bool custom_sampler = false;        // sampler= or batch_sampler= given
  bool shuffles = false;              // shuffle given and not the literal False
};

struct OptimizerCall {
  uint32_t stmt = 0;
  std::string name;   // the optimizer's variable
  std::string model;  // NAME of a first argument `NAME.parameters()`, else ""
};

struct EpochLoop {
  uint32_t first_body = 0;  // the first statement of its body
  std::string var;          // its loop variable
};

struct CallPassing {
  uint32_t stmt = 0;
  bool bare = false;                // the statement is the call alone (its result unused)
  std::vector<uint32_t> model_args;  // sig indices of arguments that are the model's name alone
};

class ScriptParts {
 public:
  explicit ScriptParts(const rules::PythonAnalysis& a) : a_(a) {}

  bool uses_torch_distributed() const;
  int first_distributed_line() const;
  std::vector<DataLoaderCall> data_loaders() const;
  std::vector<OptimizerCall> optimizers() const;
  // The loader that trains: the only one, else the only one that shuffles, else the only one
  // assigned to a name containing "train"; nullopt when none or several qualify.
  std::optional<DataLoaderCall> training_loader(const std::vector<DataLoaderCall>& loaders) const;
  std::optional<uint32_t> last_assignment_before(std::string_view name, uint32_t stmt) const;
  // The dotted name D of `.to(D)` or `device=D` in the statement (the model's device), else "".
  std::string device_of(std::string_view model, std::optional<uint32_t> stmt) const;
  // The statement of the `def` around stmt (kNoIndex at module level), and stmt's nesting depth.
  uint32_t enclosing_def(uint32_t stmt) const;
  int depth(uint32_t stmt) const { return a_.view.statements[stmt].indent_depth; }
  std::string indent_of(uint32_t stmt) const;
  std::string indent_unit() const;  // the file's first indentation step, 4 spaces when it has none
  // Sig indices of `name` in `name.attr` after `after`, in its function, up to a new `name = ...`.
  std::vector<uint32_t> attribute_uses(std::string_view name, uint32_t after) const;
  // The outermost `for VAR in ...:` after `after`, in its function, whose body uses `loader` but does
  // not iterate it itself; nullopt when there is none or its body shares its line.
  std::optional<EpochLoop> epoch_loop(std::string_view loader, uint32_t after) const;
  // Statements that are a call of print, logging.* or torch.save, alone.
  std::vector<uint32_t> output_statements() const;
  // Calls after `after`, in its function, with `loader` as an argument.
  std::vector<CallPassing> calls_passing(std::string_view loader, std::string_view model, uint32_t after) const;
  // `optimizer.step()` statements in the body of an `if`.
  std::vector<uint32_t> conditional_steps(std::string_view optimizer) const;
  bool binds(std::string_view name) const;
  uint32_t after_imports() const;  // byte offset where new module-level imports go
  bool starts_its_line(uint32_t stmt) const;
  bool has_multiline_string(uint32_t stmt) const;

 private:
  const rules::PythonAnalysis& a_;
  std::string_view header(uint32_t stmt) const;  // the first word of a statement
  uint32_t block_end(uint32_t header_stmt) const;  // the last statement of its body
  bool same_function(uint32_t stmt, uint32_t other) const { return enclosing_def(stmt) == enclosing_def(other); }
  std::string assigned_name(uint32_t stmt) const;  // NAME of `NAME = ...`, else ""
  std::string dotted_at(uint32_t first_sig, uint32_t last_sig) const;  // NAME(.NAME)* spanning exactly, else ""
};

}  // namespace banjia::migrate
