# A tiny vision transformer in the manner of the ViT-from-scratch tutorials: images cut into
# patches with unfold and permute, a class token and learned positions, multi-head self-attention
# written out with view/transpose/permute, a ConvNeXt-style block that normalises channels-last
# (permute, LayerNorm, permute back), and a few AdamW steps. The activations are large enough
# (tens of thousands of elements and more) that every view is worked on by the multi-threaded
# paths a real model takes.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)
batch, channels, size, patch, dim, heads = 16, 3, 32, 4, 64, 4
images = wave(batch, channels, size, size, freq=0.013)
labels = torch.arange(batch) % 10


def patchify(x, p):
    n, c, h, w = x.shape
    cols = x.unfold(2, p, p).unfold(3, p, p)  # (n, c, h/p, w/p, p, p)
    cols = cols.permute(0, 2, 3, 1, 4, 5).contiguous()
    return cols.view(n, (h // p) * (w // p), c * p * p)


patches = patchify(images, patch)
print(patches.shape, patches.is_contiguous(), round(patches[3, 17, 5].item(), 6))


class ChannelsLastNorm(nn.Module):
    """Conv, then LayerNorm over the channels with the image seen channels-last."""

    def __init__(self, c_in, c_out):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3, padding=1)
        self.norm = nn.LayerNorm(c_out)

    def forward(self, x):
        x = self.conv(x).permute(0, 2, 3, 1)
        return F.gelu(self.norm(x)).permute(0, 3, 1, 2)


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.scale = heads, (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        n, t, d = x.shape
        qkv = self.qkv(x).view(n, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        weights = (q @ k.transpose(-2, -1) * self.scale).softmax(dim=-1)
        out = (weights @ v).transpose(1, 2).reshape(n, t, d)
        return self.proj(out)


class ViT(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = ChannelsLastNorm(channels, channels)
        tokens = (size // patch) ** 2
        self.embed = nn.Linear(channels * patch * patch, dim)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = nn.Parameter(torch.zeros(1, tokens + 1, dim))
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.head = nn.Linear(dim, 10)

    def forward(self, x):
        x = x + self.stem(x)
        x = self.embed(patchify(x, patch))
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        return self.head(x[:, 0])


model = init_fixed(ViT(), scale=0.1, freq=0.29)
print(sum(p.numel() for p in model.parameters()), [name for name, _ in model.named_parameters()][:4])
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
for step in range(3):
    optimizer.zero_grad()
    logits = model(images)
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    print(step, round(loss.item(), 8), round(grad_norm.item(), 6))

with torch.no_grad():
    attn = model.attn
    x = model.norm1(torch.cat([model.cls.expand(batch, -1, -1), model.embed(patchify(images + model.stem(images), patch))],
                              dim=1) + model.pos)
    n, t, d = x.shape
    q = attn.qkv(x)[..., :d].view(n, t, heads, d // heads).transpose(1, 2)
    print(q.shape, q.is_contiguous(), round(q.sum().item(), 6), round(math.sqrt((q * q).sum().item()), 6))
    print(model(images).argmax(dim=1).tolist())
