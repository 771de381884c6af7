"""Optional fused attention kernels (CUDA only)."""
try:
    from flash_attn import flash_attn_func as fused_attention
except ImportError:
    fused_attention = None

try:
    import xformers.ops as xops
except ImportError:
    xops = None
