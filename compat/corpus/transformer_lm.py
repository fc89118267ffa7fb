# A word-level language model in the manner of the transformer tutorials: a sinusoidal positional
# encoding kept as a buffer, nn.TransformerEncoder with a causal mask, batchify/get_batch
# slicing, gradient clipping, a StepLR schedule and perplexity.
import math

import torch
import torch.nn as nn

from _fixed import init_fixed

torch.set_default_dtype(torch.float64)
words = ("the cat sat on the mat and the dog sat on the log " * 6).split()
vocab = sorted(set(words))
index = {w: i for i, w in enumerate(vocab)}
stream = torch.tensor([index[w] for w in words], dtype=torch.long)
print(len(vocab), stream.numel(), stream[:10].tolist())


def batchify(data, bsz):
    seq_len = data.size(0) // bsz
    data = data[:seq_len * bsz]
    return data.view(bsz, seq_len).t().contiguous()


def get_batch(source, i, bptt=6):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


train_data = batchify(stream, 4)
print(train_data.shape, train_data[0])


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=64):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return x + self.pe[:x.size(0)]


class TransformerModel(nn.Module):
    def __init__(self, ntoken, d_model=16, nhead=2, d_hid=32, nlayers=2):
        super().__init__()
        self.pos_encoder = PositionalEncoding(d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, d_hid, dropout=0.0)
        self.transformer_encoder = nn.TransformerEncoder(layer, nlayers, enable_nested_tensor=False)
        self.embedding = nn.Embedding(ntoken, d_model)
        self.d_model = d_model
        self.linear = nn.Linear(d_model, ntoken)

    def forward(self, src, src_mask=None):
        src = self.embedding(src) * math.sqrt(self.d_model)
        src = self.pos_encoder(src)
        if src_mask is None:
            src_mask = nn.Transformer.generate_square_subsequent_mask(len(src))
        output = self.transformer_encoder(src, src_mask, is_causal=True)
        return self.linear(output)


model = TransformerModel(len(vocab))
init_fixed(model, scale=0.2, freq=0.37)
print(sum(p.numel() for p in model.parameters()), list(model.state_dict())[:4])
print(nn.Transformer.generate_square_subsequent_mask(3))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.9)

for epoch in range(3):
    model.train()
    total = 0.0
    for batch, i in enumerate(range(0, train_data.size(0) - 1, 6)):
        data, targets = get_batch(train_data, i)
        output = model(data)
        loss = criterion(output.view(-1, len(vocab)), targets)
        optimizer.zero_grad()
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        total += loss.item()
    scheduler.step()
    print(f"epoch {epoch} lr {scheduler.get_last_lr()[0]:.4f} loss {total / (batch + 1):.6f} "
          f"ppl {math.exp(total / (batch + 1)):.4f} last norm {norm.item():.6f}")

model.eval()
with torch.no_grad():
    data, _ = get_batch(train_data, 0)
    probs = torch.softmax(model(data)[-1], dim=-1)
    top = probs.topk(3, dim=-1)
    print(top.indices.tolist(), top.values.sum(dim=-1))
