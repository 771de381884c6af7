"""banjia runtime: capture per-layer tensors, record benchmarks and profiles on cpu, cuda or npu.

Importable without torch_npu; torch_npu is used when it is installed.
"""
__version__ = "0.1.0"
