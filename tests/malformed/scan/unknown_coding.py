# -*- coding: klingon-9 -*-
import torch
