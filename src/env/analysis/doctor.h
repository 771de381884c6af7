// `banjia env doctor`: checks a CANN / torch_npu installation the way torch_npu does at import time
// (ASCEND_HOME_PATH, ASCEND_OPP_PATH, runtime/ and compiler/), reads the CANN version from the
// ascend_*_install.info file, asks a Python interpreter (--python, else the one on PATH) for
// python/torch/torch_npu versions, checks their pairing against data/env/compat.toml, and checks the
// process environment.
#pragma once
#include <map>
#include <string>

#include "common/report.h"

namespace banjia::env {

struct DoctorOptions {
  double python_timeout_s = 60;
  std::string python;  // the interpreter to probe: a path, or a name looked up on PATH; "" = python3 on PATH
};

// Throws InputError("PATH", problem) when options.python names no executable file.

Report run_doctor(const DoctorOptions& options);

}  // namespace banjia::env
