// The verb table (cli/verbs.h): each verb's subcommand is made once, under the name and description of
// its table line, and `banjia VERB` builds only that verb.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cli/verbs.h"

namespace {

using banjia::register_verbs;
using banjia::verbs;

std::set<std::string> subcommand_names(const CLI::App& app) {
  std::set<std::string> names;
  for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; })) names.insert(s->get_name());
  return names;
}

TEST(Verbs, WithoutAVerbEveryVerbIsMadeWithItsDescription) {
  CLI::App app;
  int exit_code = 0;
  const char* argv[] = {"banjia", "--help"};
  register_verbs(app, 2, argv, exit_code);
  std::set<std::string> expected;
  for (const auto& v : verbs()) {
    expected.insert(std::string(v.name));
    const CLI::App* sub = app.get_subcommand(std::string(v.name));
    EXPECT_EQ(sub->get_description(), v.description) << v.name;
    // A verb adds what it does under its subcommand: options, or subcommands of its own.
    EXPECT_FALSE(sub->get_options().empty() && sub->get_subcommands({}).empty()) << v.name;
  }
  EXPECT_EQ(subcommand_names(app), expected);
  EXPECT_EQ(expected.size(), verbs().size()) << "two verbs share a name";
}

TEST(Verbs, ANamedVerbIsTheOnlyOneMade) {
  for (const auto& v : verbs()) {
    CLI::App app;
    int exit_code = 0;
    const std::string name(v.name);
    const char* argv[] = {"banjia", name.c_str()};
    register_verbs(app, 2, argv, exit_code);
    EXPECT_EQ(subcommand_names(app), std::set<std::string>{name});
  }
}

TEST(Verbs, AMisspeltVerbMakesThemAllSoTheMessageCanListThem) {
  CLI::App app;
  int exit_code = 0;
  const char* argv[] = {"banjia", "scna"};
  register_verbs(app, 2, argv, exit_code);
  EXPECT_EQ(subcommand_names(app).size(), verbs().size());
}

}  // namespace
