#include "cli/output_flags.h"

#include <cstdio>

#include "common/input_limits.h"

namespace banjia {

void add_output_flags(CLI::App* cmd, OutputOptions& out, const OutputFlags& flags) {
  out.fail_on = flags.default_fail_on;
  cmd->add_option("-f,--format", out.format, "Output format")->check(CLI::IsMember(flags.formats))->capture_default_str();
  cmd->add_option("-o,--output", out.output, "Write the report to FILE (atomically) instead of stdout")
      ->option_text("FILE");
  if (flags.html)
    cmd->add_option("--html", out.html, "Also write a self-contained HTML report to FILE")->option_text("FILE");
  if (flags.color)
    cmd->add_option("--color", out.color, "Colour in text output: auto (a TTY, and NO_COLOR unset), always, never")
        ->check(CLI::IsMember({"auto", "always", "never"}))->capture_default_str();
  auto deprecated = flags.deprecated_fail_on;
  cmd->add_option("--fail-on", out.fail_on, flags.fail_on_help)
      ->transform(
          [deprecated](std::string level) {
            for (const auto& [old, now] : deprecated)
              if (level == old) {
                std::fprintf(stderr, "banjia: --fail-on %s is spelt %s; the old spelling is deprecated\n", old.c_str(),
                             now.c_str());
                return now;
              }
            return level;
          },
          "", "deprecated spellings")
      ->check(CLI::IsMember({"error", "warning", "info", "none"}))
      ->capture_default_str();
}

void add_max_input_size_flag(CLI::App* cmd) {
  cmd->add_option_function<std::string>(
         "--max-input-size",
         [](const std::string& size) { set_max_inflated_bytes(*parse_byte_size(size)); },
         "Largest size a compressed input (.json.gz, an .npz member) may inflate to; more is an error, not a "
         "memory exhaustion (default 8G)")
      ->check([](const std::string& size) {
        return parse_byte_size(size) ? std::string() : "expected a size such as 8G, 512M or 1048576";
      })
      ->option_text("SIZE");
}

}  // namespace banjia
