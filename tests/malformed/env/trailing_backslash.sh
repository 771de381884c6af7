export NCCL_DEBUG=INFO
python train.py \