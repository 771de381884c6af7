#include <torch/extension.h>

torch::Tensor fused_bias_gelu_cuda(torch::Tensor x, torch::Tensor bias);
torch::Tensor scale(torch::Tensor x, double s);

torch::Tensor forward(torch::Tensor x, torch::Tensor bias) {
  TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
  return fused_bias_gelu_cuda(x, bias);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("forward", &forward, "fused bias + GELU (CUDA)");
  m.def("scale", &scale, "scale (CUDA)");
}
