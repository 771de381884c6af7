// The verbs of the command line: each verb's name and one-line description are written once, in
// verbs.cpp's table, which makes the verb's subcommand and hands it to the verb's register function
// (cli/verbs_<verb>.cpp) to add its options and subcommands.
#pragma once
#include <span>
#include <string_view>

#include <CLI/CLI.hpp>

namespace banjia {

// Each register function fills in the subcommand made for its verb; its callback stores the process
// exit code in `exit_code`. Errors in input are thrown as InputError (see common/errors.h).
void register_scan(CLI::App& verb, int& exit_code);
void register_migrate(CLI::App& verb, int& exit_code);
void register_env(CLI::App& verb, int& exit_code);
void register_trace(CLI::App& verb, int& exit_code);
void register_compare(CLI::App& verb, int& exit_code);
void register_bench(CLI::App& verb, int& exit_code);

struct Verb {
  std::string_view name, description;
  void (*add)(CLI::App& verb, int& exit_code);
};
// Every verb, in the order `banjia --help` lists them.
std::span<const Verb> verbs();

// Registers the verb that argv[1] names, or every verb when it names none.
void register_verbs(CLI::App& app, int argc, const char* const* argv, int& exit_code);

}  // namespace banjia
