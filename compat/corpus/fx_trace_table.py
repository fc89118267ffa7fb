"""Trace a small conv net with torch.fx and print its node table (op, name, target)."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.fx import symbolic_trace


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU())
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        y = self.features(x)
        y = F.adaptive_avg_pool2d(y, 1).flatten(1)
        scores = self.head(y) * y.shape[1] + 1
        first, second = scores.chunk(2, dim=-1)
        return torch.relu(first - second)


def target_name(target):
    return target if isinstance(target, str) else target.__name__


gm = symbolic_trace(Net())
for node in gm.graph.nodes:
    print(f"{node.op:14} {node.name:24} {target_name(node.target)}")
