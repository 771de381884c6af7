"""xformers on Ascend NPUs: the names banjia migrate redirects `xformers.ops` imports to.

BANJIA_PLACEHOLDER_SHIM: this file only fixes the module's name and public names for banjia's
migration tests; every function raises NotImplementedError. The implementation replaces it.
"""

import types

__all__ = [
    "memory_efficient_attention",
    "SwiGLU",
    "LowerTriangularMask",
    "LowerTriangularFromBottomRightMask",
    "BlockDiagonalMask",
    "BlockDiagonalCausalMask",
    "fmha",
]


def _placeholder(name):
    raise NotImplementedError(f"xformers_npu.{name}: placeholder shim")


def memory_efficient_attention(*args, **kwargs):
    _placeholder("memory_efficient_attention")


class SwiGLU:
    def __init__(self, *args, **kwargs):
        _placeholder("SwiGLU")


class LowerTriangularMask:
    def __init__(self, *args, **kwargs):
        _placeholder("LowerTriangularMask")


class LowerTriangularFromBottomRightMask:
    def __init__(self, *args, **kwargs):
        _placeholder("LowerTriangularFromBottomRightMask")


class BlockDiagonalMask:
    def __init__(self, *args, **kwargs):
        _placeholder("BlockDiagonalMask")


class BlockDiagonalCausalMask:
    def __init__(self, *args, **kwargs):
        _placeholder("BlockDiagonalCausalMask")


# `xformers.ops.fmha` as code reaches it through `xformers.ops`: fmha.memory_efficient_attention and
# fmha.attn_bias.<mask>.
fmha = types.SimpleNamespace(
    memory_efficient_attention=memory_efficient_attention,
    attn_bias=types.SimpleNamespace(
        LowerTriangularMask=LowerTriangularMask,
        LowerTriangularFromBottomRightMask=LowerTriangularFromBottomRightMask,
        BlockDiagonalMask=BlockDiagonalMask,
        BlockDiagonalCausalMask=BlockDiagonalCausalMask,
    ),
)
