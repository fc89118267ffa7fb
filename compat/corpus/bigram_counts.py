# A character bigram model two ways: a count matrix with N[ix1, ix2] += 1 and normalisation, then
# the same model as a one-hot linear layer trained by gradient descent.
# compat: rtol=1e-5
import torch
import torch.nn.functional as F

from _fixed import wave

words = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "amelia", "ella", "luna", "anna", "liam", "noah"]
chars = sorted(list(set("".join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}
V = len(stoi)

N = torch.zeros((V, V), dtype=torch.int32)
for w in words:
    chs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(chs, chs[1:]):
        ix1 = stoi[ch1]
        ix2 = stoi[ch2]
        N[ix1, ix2] += 1
print(N.sum(), N[0], N.dtype)

P = (N + 1).float()
P /= P.sum(1, keepdims=True)
print(round(P[0].sum().item(), 5), P.shape, P[stoi["a"]].argmax().item())

log_likelihood = 0.0
n = 0
for w in words:
    chs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(chs, chs[1:]):
        prob = P[stoi[ch1], stoi[ch2]]
        logprob = torch.log(prob)
        log_likelihood += logprob
        n += 1
nll = -log_likelihood
print(f"{log_likelihood=:.4f}", f"{nll=:.4f}", f"{nll/n:.6f}")

xs, ys = [], []
for w in words:
    chs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(chs, chs[1:]):
        xs.append(stoi[ch1])
        ys.append(stoi[ch2])
xs = torch.tensor(xs)
ys = torch.tensor(ys)
num = xs.nelement()
print("number of examples: ", num)

W = (wave(V, V, freq=1.0).double() * 0.1).requires_grad_()
for k in range(50):
    xenc = F.one_hot(xs, num_classes=V).double()
    logits = xenc @ W
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdims=True)
    loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W ** 2).mean()
    if k % 10 == 0:
        print(k, f"{loss.item():.10f}")
    W.grad = None
    loss.backward()
    W.data += -10 * W.grad

out = []
ix = 0
while True:
    xenc = F.one_hot(torch.tensor([ix]), num_classes=V).double()
    p = (xenc @ W).exp()
    p = p / p.sum(1, keepdims=True)
    ix = int(p.argmax())
    if ix == 0 or len(out) > 10:
        break
    out.append(itos[ix])
print("".join(out))
