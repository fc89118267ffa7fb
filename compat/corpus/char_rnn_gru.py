# A character-level language model: nn.Embedding, a two-layer batch_first nn.GRU, gradient clipping,
# Adam, and greedy generation one character at a time.
import torch
import torch.nn as nn

from _fixed import init_fixed

torch.set_default_dtype(torch.float64)
text = "hello world, hello tensors, hello gradients. "
chars = sorted(set(text))
stoi = {ch: i for i, ch in enumerate(chars)}
itos = {i: ch for ch, i in stoi.items()}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
print(len(chars), data[:12])

seq_len = 8
inputs = torch.stack([data[i:i + seq_len] for i in range(0, len(data) - seq_len - 1, 3)])
targets = torch.stack([data[i + 1:i + seq_len + 1] for i in range(0, len(data) - seq_len - 1, 3)])
print(inputs.shape, targets.shape)


class CharModel(nn.Module):
    def __init__(self, vocab, hidden=16, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, 8)
        self.rnn = nn.GRU(8, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x, h=None):
        out, h = self.rnn(self.embed(x), h)
        return self.head(out), h


model = CharModel(len(chars))
init_fixed(model, scale=0.3, freq=0.71)
optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
criterion = nn.CrossEntropyLoss()
for step in range(40):
    logits, _ = model(inputs)
    loss = criterion(logits.view(-1, len(chars)), targets.view(-1))
    optimizer.zero_grad()
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    optimizer.step()
    if step % 10 == 9:
        print(step, f"{loss.item():.8f}", f"{float(norm):.8f}")

model.eval()
with torch.no_grad():
    x = torch.tensor([[stoi["h"]]])
    h = None
    out = "h"
    for _ in range(20):
        logits, h = model(x, h)
        nxt = logits[0, -1].argmax().item()
        out += itos[nxt]
        x = torch.tensor([[nxt]])
    print(repr(out))
    print(h.shape)
