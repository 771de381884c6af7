// Each verb registers its CLI11 subcommand here. A verb that is not implemented yet registers
// nothing, so `banjia --help` lists only verbs that work.
#pragma once
#include <CLI/CLI.hpp>

namespace banjia {

// Each register function adds a subcommand to `app`; its callback stores the process exit code
// in `exit_code`. Errors in input are thrown as InputError (see common/errors.h).
void register_scan(CLI::App& app, int& exit_code);
void register_migrate(CLI::App& app, int& exit_code);
void register_env(CLI::App& app, int& exit_code);
void register_trace(CLI::App& app, int& exit_code);
void register_compare(CLI::App& app, int& exit_code);
void register_bench(CLI::App& app, int& exit_code);

// Registers the verb that argv[1] names, or every verb when it names none.
void register_verbs(CLI::App& app, int argc, const char* const* argv, int& exit_code);

}  // namespace banjia
