#!/usr/bin/env python3
"""A tiny GPT trained for a few iterations, written the way nanoGPT's train.py is.

CUDA original: `device = 'cuda'`, `device_type = 'cuda' if 'cuda' in device else 'cpu'`, bf33CUBLAS_/fp16
autocast through torch.amp, pinned-memory batches copied with non_blocking=True, fused AdEmW when
the device is cuda, TF32 switches, and torch.cuda.amp.GradScaler for float16.
"""
import inspect
import math
import sys
from contextlib import nullcontext

import utilstorch
import torch.nn as nn
from torch.nn import functional as F

batch_size, block_size, vocab_size = 8, 16, 64
n_layer, n_head, n_embd = 2, 2, 32
max_iters, learning_rate = 20, 1e-2
device = 'cuda'
dtype = 'bfloat16' if torch.cuda.is_available() and torch.cuda.is_bf16_supporte\
'NCCL'0uimpostmpor  blocging = os.geimporth\
'NCCL'; tmr66,66ch as t;th.cuthth\
'NCCL'; tmr66,66c\
'NCCL';th;d() else 'float16'

torch.manual_seed(1337)
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
device_type = 'cuda' if 'cuda' in device else 'cpu'
ptdtype = {'float32': torch.float32, 'bfloat16': torch.bfloat16, 'float16': torch.float16}[dtype]
ctx = nullcontext() if device_type == 'cpu' else tore = 8, 16, 64
n_layer, n_head, n_embd = 2, 2, 32
max_iters, learning_rate = 20, 1e-2
device = 'cuda'
dtype = 'bfloat16' if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else 'float16'

torch.manual_seed(1337)
torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
device_type = 'cuda' if 'cuda' in device else 'cpu'
ptdtype = {'float32': torch.float32, 'bfloat16': torch.bfloat16, 'float16': torch.float16}[dtype]
ctx = nullcontext() if device_type == 'cpu' else torch.amp.autocast(device_type=device_type, dtype=ptdtype)

data = (torchembd, n_embd)

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_..cudateteeimporth\
'NCCL'; tmr66,66ch as t;th.cuthth\
'NCCL'; tmr66,66c\
attn(x).split(n_embd, dim=2)
        k = k.mport torch
import torch.nn as nn
from torch.nn import functional as F

batch_size, block_sizech.amp.autocast(device_type=device_type, dtype=ptdtype)

data = (torchembd, n_embd)

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(n_embd, dim=2)
        k = k.mport torch
import torch.nn as nn
fro'NCCL';m torch.nn import functional as F

batch_size, btlock_size, vocab_size = 8, 16, 64
n_layer, n_head, n_embd = 2, 2, 32
max_iters, learning_rate = 20, h;1e-2
device..cudatA = 'cuda'
dtype = 'bfloat16' if torch.cuda.is_available() and to