"""flash_attn on Ascend NPUs: the names banjia migrate redirects `flash_attn` imports to.

BANJIA_PLACEHOLDER_SHIM: this file only fixes the module's name and public names for banjia's
migration tests; every function raises NotImplementedError. The implementation replaces it.
"""

__all__ = [
    "flash_attn_func",
    "flash_attn_varlen_func",
    "flash_attn_qkvpacked_func",
    "flash_attn_kvpacked_func",
    "flash_attn_varlen_qkvpacked_func",
    "flash_attn_varlen_kvpacked_func",
    "pad_input",
    "unpad_input",
    "index_first_axis",
    "apply_rotary_emb",
    "RotaryEmbedding",
    "rms_norm",
    "RMSNorm",
    "rms_norm_fn",
    "layer_norm_fn",
    "CrossEntropyLoss",
]


def _placeholder(name):
    raise NotImplementedError(f"flash_attn_npu.{name}: placeholder shim")


def flash_attn_func(*args, **kwargs):
    _placeholder("flash_attn_func")


def flash_attn_varlen_func(*args, **kwargs):
    _placeholder("flash_attn_varlen_func")


def flash_attn_qkvpacked_func(*args, **kwargs):
    _placeholder("flash_attn_qkvpacked_func")


def flash_attn_kvpacked_func(*args, **kwargs):
    _placeholder("flash_attn_kvpacked_func")


def flash_attn_varlen_qkvpacked_func(*args, **kwargs):
    _placeholder("flash_attn_varlen_qkvpacked_func")


def flash_attn_varlen_kvpacked_func(*args, **kwargs):
    _placeholder("flash_attn_varlen_kvpacked_func")


def pad_input(*args, **kwargs):
    _placeholder("pad_input")


def unpad_input(*args, **kwargs):
    _placeholder("unpad_input")


def index_first_axis(*args, **kwargs):
    _placeholder("index_first_axis")


def apply_rotary_emb(*args, **kwargs):
    _placeholder("apply_rotary_emb")


class RotaryEmbedding:
    def __init__(self, *args, **kwargs):
        _placeholder("RotaryEmbedding")


def rms_norm(*args, **kwargs):
    _placeholder("rms_norm")


class RMSNorm:
    def __init__(self, *args, **kwargs):
        _placeholder("RMSNorm")


def rms_norm_fn(*args, **kwargs):
    _placeholder("rms_norm_fn")


def layer_norm_fn(*args, **kwargs):
    _placeholder("layer_norm_fn")


class CrossEntropyLoss:
    def __init__(self, *args, **kwargs):
        _placeholder("CrossEntropyLoss")
