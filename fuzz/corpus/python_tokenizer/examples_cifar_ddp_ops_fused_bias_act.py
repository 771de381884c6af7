"""Fused bias + activation, as a CUDA extension (JIT-compiled on first use)."""
import os

import torch
from torch.utils.cpp_extension import load, load_inline

_here = os.path.dirname(__file__)

fused = load(name="fused_bias_act",
             sources=[os.path.join(_here, "fused_bias_act.cpp"), os.path.join(_here, "fused_bias_act_kernel.cu")])

_scale_src = "torch::Tensor scale(torch::Tensor x, double s);"
scale_ext = load_inline(name="scale_ext", cpp_sources=_scale_src,
                        cuda_sources=open(os.path.join(_here, "fused_bias_act_kernel.cu")).read(),
                        functions=["scale"])


def fused_bias_gelu(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    assert x.is_cuda, "fused_bias_gelu needs a cuda tensor"
    return fused.forward(x, bias)
