export CUDA_VISIBLE_DEVICES='0,1
python train.py
