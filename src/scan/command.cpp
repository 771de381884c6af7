// `banjia scan`: not implemented yet; registers nothing so --help does not list it.
#include "cli/verbs.h"

namespace banjia {

void register_scan(CLI::App& /*app*/, int& /*exit_code*/) {}

}  // namespace banjia
