from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

setup(
    name="cifar_ddp",
    version="0.1",
    install_requires=["torch>=2.1", "numpy", "flash-attn>=2.3"],
    ext_modules=[CUDAExtension("fused_bias_act", ["ops/fused_bias_act.cpp", "ops/fused_bias_act_kernel.cu"])],
    cmdclass={"build_ext": BuildExtension},
)
