import torch
x = torch.randn(3).cuda()
s = '''never closed
