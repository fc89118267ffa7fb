# An MLP language model over characters: an embedding table indexed with a 2-D tensor of
# contexts, emb.view(-1, ...), tanh, manual batch-norm statistics with running averages under
# no_grad, F.cross_entropy, and manual updates of a parameter list.
import torch
import torch.nn.functional as F

from _fixed import wave

torch.set_default_dtype(torch.float64)
words = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia", "harper", "evelyn"]
chars = sorted(list(set("".join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
vocab_size = len(stoi)
block_size = 3


def build_dataset(words):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    X = torch.tensor(X)
    Y = torch.tensor(Y)
    print(X.shape, Y.shape)
    return X, Y


Xtr, Ytr = build_dataset(words[:8])
Xdev, Ydev = build_dataset(words[8:])

n_embd, n_hidden = 4, 32


def fixed(*shape, phase):
    return wave(*shape, freq=0.731, phase=phase)


C = fixed(vocab_size, n_embd, phase=0.0)
W1 = fixed(n_embd * block_size, n_hidden, phase=1.0) * (5 / 3) / ((n_embd * block_size) ** 0.5)
W2 = fixed(n_hidden, vocab_size, phase=2.0) * 0.1
b2 = torch.zeros(vocab_size)
bngain = torch.ones((1, n_hidden))
bnbias = torch.zeros((1, n_hidden))
bnmean_running = torch.zeros((1, n_hidden))
bnstd_running = torch.ones((1, n_hidden))
parameters = [C, W1, W2, b2, bngain, bnbias]
print(sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

batch_size = 16
for i in range(120):
    start = (i * batch_size) % (Xtr.shape[0] - batch_size)
    ix = torch.arange(start, start + batch_size)
    Xb, Yb = Xtr[ix], Ytr[ix]
    emb = C[Xb]
    embcat = emb.view(emb.shape[0], -1)
    hpreact = embcat @ W1
    bnmeani = hpreact.mean(0, keepdim=True)
    bnstdi = hpreact.std(0, keepdim=True)
    hpreact = bngain * (hpreact - bnmeani) / bnstdi + bnbias
    with torch.no_grad():
        bnmean_running = 0.999 * bnmean_running + 0.001 * bnmeani
        bnstd_running = 0.999 * bnstd_running + 0.001 * bnstdi
    h = torch.tanh(hpreact)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Yb)
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1 if i < 100 else 0.01
    for p in parameters:
        p.data += -lr * p.grad
    if i % 30 == 0:
        print(f"{i:7d}: {loss.item():.6f}")


@torch.no_grad()
def split_loss(x, y):
    emb = C[x]
    embcat = emb.view(emb.shape[0], -1)
    hpreact = embcat @ W1
    hpreact = bngain * (hpreact - bnmean_running) / bnstd_running + bnbias
    h = torch.tanh(hpreact)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, y)
    print(round(loss.item(), 8))


split_loss(Xtr, Ytr)
split_loss(Xdev, Ydev)
print(bnmean_running[0, :4], (h.abs() > 0.97).float().mean())
