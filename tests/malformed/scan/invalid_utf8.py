import torch
x = 'ÿşÃ('
