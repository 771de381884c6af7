#!/usr/bin/env bash
# Launch 4-GPU training on one node.
set -euo pipefail

export CUDA_VISIBLE_DEVICES=0,1,2,3
export NCCL_DEBUG=INFO
export NCCL_IB_DISABLE=1
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
OMP_NUM_THREADS=8 torchrun --nproc_per_node=4 train.py --backend nccl "$@"
