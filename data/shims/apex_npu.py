"""NVIDIA apex on Ascend NPUs: the names banjia migrate redirects `apex.optimizers` and
`apex.normalization` imports to.

BANJIA_PLACEHOLDER_SHIM: this file only fixes the module's name and public names for banjia's
migration tests; every function raises NotImplementedError. The implementation replaces it.
"""

__all__ = [
    "FusedAdam",
    "FusedLAMB",
    "FusedSGD",
    "FusedLayerNorm",
    "FusedRMSNorm",
    "fused_layer_norm_affine",
    "fused_rms_norm_affine",
]


def _placeholder(name):
    raise NotImplementedError(f"apex_npu.{name}: placeholder shim")


class FusedAdam:
    def __init__(self, *args, **kwargs):
        _placeholder("FusedAdam")


class FusedLAMB:
    def __init__(self, *args, **kwargs):
        _placeholder("FusedLAMB")


class FusedSGD:
    def __init__(self, *args, **kwargs):
        _placeholder("FusedSGD")


class FusedLayerNorm:
    def __init__(self, *args, **kwargs):
        _placeholder("FusedLayerNorm")


class FusedRMSNorm:
    def __init__(self, *args, **kwargs):
        _placeholder("FusedRMSNorm")


def fused_layer_norm_affine(*args, **kwargs):
    _placeholder("fused_layer_norm_affine")


def fused_rms_norm_affine(*args, **kwargs):
    _placeholder("fused_rms_norm_affine")
