# A small causal self-attention block in the style of minimal GPT code: q/k/v projections,
# view/transpose into heads, a tril mask with masked_fill(-inf), softmax, dropout, LayerNorm, GELU,
# residual connections; and a padding mask over a batch.
import math

import torch
import torch.nn as nn
from torch.nn import functional as F

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        assert n_embd % n_head == 0
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.attn_dropout = nn.Dropout(0.0)
        self.n_head = n_head
        self.n_embd = n_embd
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        att = self.attn_dropout(att)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y), att


class Block(nn.Module):
    def __init__(self, n_embd, n_head, block_size):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, block_size)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd))

    def forward(self, x):
        a, att = self.attn(self.ln_1(x))
        x = x + a
        x = x + self.mlp(self.ln_2(x))
        return x, att


block = Block(8, 2, 6)
init_fixed(block, scale=0.3, freq=0.47)
with torch.no_grad():
    block.ln_1.weight += 1.0
    block.ln_2.weight += 1.0
print(block)
print([name for name, _ in block.named_buffers()], sum(p.numel() for p in block.parameters()))
x = wave(2, 5, 8, freq=0.21, phase=1.5)
out, att = block(x)
print(out[0].detach())
print(att[0, 0].detach())
print(torch.allclose(att.sum(-1), torch.ones(2, 2, 5)))
out.pow(2).mean().backward()
print(block.attn.c_attn.weight.grad.abs().sum(), block.ln_1.weight.grad)

# padding mask: the last tokens of the second sequence are padding
lengths = torch.tensor([5, 3])
pad_mask = torch.arange(5).unsqueeze(0) >= lengths.unsqueeze(1)
scores = torch.einsum("btc,bsc->bts", x, x) / math.sqrt(8)
scores = scores.masked_fill(pad_mask[:, None, :], float("-inf"))
weights = torch.softmax(scores, dim=-1)
print(pad_mask)
print(weights[1])
context = torch.bmm(weights, x)
print(context.shape, context[1, 0])

mha = nn.MultiheadAttention(8, 2, batch_first=True)
init_fixed(mha, scale=0.2, freq=0.31)
attn_out, attn_weights = mha(x, x, x, key_padding_mask=pad_mask)
print(attn_out[1, :2].detach(), attn_weights.shape)
causal = nn.Transformer.generate_square_subsequent_mask(4)
print(causal)
sdpa = F.scaled_dot_product_attention(x[:, None], x[:, None], x[:, None], is_causal=True)
print(sdpa.shape, sdpa[0, 0, 1])
