#!/usr/bin/env python3
"""Mixed-precision training with torch.cuda.amp.autocast and GradScaler, evaluation under
torch.amp.autocast('cuda'): the two AMP spellings found in CUDA code.
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 7 * 7, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


def main():
    torch.manual_seed(0)
    device = torch.device('cuda')
    model = ConvNet().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = torch.cuda.amp.GradScaler()
    images = torch.randn(64, 1, 28, 28)
    labels = torch.randint(0, 10, (64,))
    losses = []
    for step in range(8):
        x, y = images.to(device), labels.to(device)
        optimizer.zero_grad()
        with torch.cuda.amp.autocast():
            logits = model(x)
            loss = F.cross_entropy(logits, y)
        if logits.dtype != torch.float16:
            print(f"autocast did not run the model in float16 (got {logits.dtype})")
            return 1
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad(), torch.amp.autocast('cuda', dtype=torch.bfloat16):
        accuracy = (model(images.to(device)).argmax(1).cpu() == labels).float().mean().item()
    print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}, train accuracy {accuracy:.2f}, scale {scaler.get_scale()}")
    return 0 if losses[-1] < losses[0] else 1


if __name__ == '__main__':
    sys.exit(main())
