"""A simulated Ascend NPU on the CPU: `python -m banjia.npu_sim SCRIPT [ARGS...]`.

Runs a migrated training script with an `npu` device whose ops compute on the CPU, a `torch_npu`
stand-in (only when no real torch_npu is installed), and a stop at the first use of CUDA. See
docs/npu-sim.md. Importing this package imports nothing else; the simulator is set up by the
runner (banjia.npu_sim.runner) just before the script starts.
"""
