#!/usr/bin/env python3
"""Devices spelled the many ways CUDA code spells them: f'cuda:{local_rank}', 'cuda:{}'.format(i),
and .to(rank) with a bare int index.
"""
import os
import sys

import torch
import torch.nn as nn


def main():
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    gpu = 0
    torch.manual_seed(0)
    model = nn.Linear(4, 4).to(f'cuda:{local_rank}')
    batch = torch.randn(8, 4).to('cuda:{}'.format(gpu))
    extra = torch.ones(8, 4).to(local_rank)  # an int index: the current accelerator
    out = model(batch) + extra
    expected = batch.cpu() @ model.weight.detach().cpu().t() + model.bias.detach().cpu() + 1
    devices = {str(t.device) for t in (out, batch, extra, model.weight)}
    print(f"devices {sorted(devices)}")
    ok = torch.allclose(out.detach().cpu(), expected, atol=1e-6) and len(devices) == 1
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
