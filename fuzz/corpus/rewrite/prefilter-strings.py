import os
d = torch.device("cuda:0"); e = torch.device('''cuda''')
x = x.to(f"cuda:{rank}")
dist.init_process_group(backend="nccl")
os.environ["CUDA_VISIBLE_DEVICES"] = "0"
v = os.getenv(r'NCCL_DEBUG')
k = 'cudaMemcpy'; n = 'nccl_debug'; s = "runs on cuda devices"
# x.cuda() in a comment
