#include "compare/analysis/noise_assessment.h"

namespace banjia::compare {

std::string_view phase_name(Phase p) {
  switch (p) {
    case Phase::kForward: return "forward";
    case Phase::kBackward: return "backward";
    case Phase::kParamGrad: return "param_grad";
  }
  return "forward";
}

}  // namespace banjia::compare
