# Image captioning in the "show, attend and tell" manner on synthetic pictures: a small CNN
# encoder gives a grid of features, an LSTMCell decoder with soft attention over the grid is
# trained with teacher forcing on captions sorted by length (decode lengths shrink per step),
# padded positions left out of the loss, plus the doubly stochastic attention penalty; captions
# are then generated greedily and by beam search (topk over the flattened beam x vocab scores,
# beam and word indices recovered by floor division and remainder), and scored with unigram BLEU.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

VOCAB = ["<pad>", "<start>", "<end>", "a", "red", "blue", "square", "circle", "on", "left", "right"]
stoi = {w: i for i, w in enumerate(VOCAB)}
PAD, START, END = stoi["<pad>"], stoi["<start>"], stoi["<end>"]


def draw(color, shape, side, size=12):
    """A 3-channel picture: one shape in one colour on the left or right half, and its caption."""
    img = 0.05 * torch.randn(3, size, size)
    c = 0 if color == "red" else 2
    x0 = 1 if side == "left" else size // 2 + 1
    if shape == "square":
        img[c, 3:8, x0:x0 + 5] += 1.0
    else:
        yy, xx = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="ij")
        disk = ((yy - 5.5) ** 2 + (xx - (x0 + 2.0)) ** 2) <= 6.5
        img[c][disk] += 1.0
    words = ["a", color, shape] + (["on", side] if side == "left" else [])
    return img, torch.tensor([START] + [stoi[w] for w in words] + [END])


def make_dataset(n):
    images, captions = [], []
    for _ in range(n):
        color = ["red", "blue"][torch.randint(2, ()).item()]
        shape = ["square", "circle"][torch.randint(2, ()).item()]
        side = ["left", "right"][torch.randint(2, ()).item()]
        img, cap = draw(color, shape, side)
        images.append(img)
        captions.append(cap)
    lengths = torch.tensor([len(c) for c in captions])
    return torch.stack(images), pad_sequence(captions, batch_first=True, padding_value=PAD), lengths


class Encoder(nn.Module):
    def __init__(self, channels=16, grid=3):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, channels, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(channels, channels, 3, padding=1), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d((grid, grid))

    def forward(self, images):
        out = self.pool(self.features(images))          # (B, C, g, g)
        return out.permute(0, 2, 3, 1).flatten(1, 2)    # (B, g*g, C)


class Attention(nn.Module):
    def __init__(self, enc_dim, dec_dim, att_dim):
        super().__init__()
        self.enc_att = nn.Linear(enc_dim, att_dim)
        self.dec_att = nn.Linear(dec_dim, att_dim)
        self.full_att = nn.Linear(att_dim, 1)

    def forward(self, enc, h):
        att = self.full_att(torch.tanh(self.enc_att(enc) + self.dec_att(h).unsqueeze(1))).squeeze(2)
        alpha = F.softmax(att, dim=1)
        return (enc * alpha.unsqueeze(2)).sum(dim=1), alpha


class Decoder(nn.Module):
    def __init__(self, enc_dim=16, emb_dim=12, dec_dim=24, att_dim=12, vocab=len(VOCAB)):
        super().__init__()
        self.vocab = vocab
        self.attention = Attention(enc_dim, dec_dim, att_dim)
        self.embedding = nn.Embedding(vocab, emb_dim, padding_idx=PAD)
        self.cell = nn.LSTMCell(emb_dim + enc_dim, dec_dim)
        self.init_h, self.init_c = nn.Linear(enc_dim, dec_dim), nn.Linear(enc_dim, dec_dim)
        self.f_beta = nn.Linear(dec_dim, enc_dim)
        self.fc = nn.Linear(dec_dim, vocab)
        self.dropout = nn.Dropout(0.1)

    def init_state(self, enc):
        mean = enc.mean(dim=1)
        return self.init_h(mean), self.init_c(mean)

    def step(self, enc, words, h, c):
        context, alpha = self.attention(enc, h)
        gate = torch.sigmoid(self.f_beta(h))
        h, c = self.cell(torch.cat([self.embedding(words), gate * context], dim=1), (h, c))
        return self.fc(self.dropout(h)), h, c, alpha

    def forward(self, enc, captions, lengths):
        lengths, order = lengths.sort(dim=0, descending=True)
        enc, captions = enc[order], captions[order]
        decode_lengths = (lengths - 1).tolist()
        batch, steps = enc.size(0), max(decode_lengths)
        h, c = self.init_state(enc)
        scores = torch.zeros(batch, steps, self.vocab)
        alphas = torch.zeros(batch, steps, enc.size(1))
        for t in range(steps):
            b = sum(n > t for n in decode_lengths)
            out, h_b, c_b, alpha = self.step(enc[:b], captions[:b, t], h[:b], c[:b])
            h, c = h_b, c_b
            scores[:b, t] = out
            alphas[:b, t] = alpha
        return scores, captions[:, 1:], decode_lengths, alphas


images, captions, lengths = make_dataset(48)
print(images.shape, captions.shape, lengths.tolist()[:8], captions[0].tolist())
print(torch.bincount(lengths).tolist(), (captions == PAD).sum().item())

encoder, decoder = Encoder(), Decoder()
params = list(encoder.parameters()) + list(decoder.parameters())
optimizer = torch.optim.Adam(params, lr=5e-3)
criterion = nn.CrossEntropyLoss(ignore_index=PAD)
batch_size = 16
for epoch in range(12):
    encoder.train()
    decoder.train()
    perm = torch.randperm(images.size(0))
    total = 0.0
    for start in range(0, images.size(0), batch_size):
        idx = perm[start:start + batch_size]
        scores, targets, decode_lengths, alphas = decoder(encoder(images[idx]), captions[idx],
                                                          lengths[idx])
        loss = criterion(scores.reshape(-1, decoder.vocab), targets[:, :scores.size(1)].reshape(-1))
        loss = loss + 1.0 * ((1.0 - alphas.sum(dim=1)) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(params, max_norm=5.0)
        optimizer.step()
        total += loss.item()
    if epoch % 4 == 3:
        print(f"epoch {epoch + 1}: loss {total / 3:.6f}")


@torch.no_grad()
def greedy(image, max_len=8):
    enc = encoder(image.unsqueeze(0))
    h, c = decoder.init_state(enc)
    word = torch.tensor([START])
    out = []
    for _ in range(max_len):
        logits, h, c, _ = decoder.step(enc, word, h, c)
        word = logits.argmax(dim=1)
        if word.item() == END:
            break
        out.append(VOCAB[word.item()])
    return out


@torch.no_grad()
def beam_search(image, k=3, max_len=8):
    enc = encoder(image.unsqueeze(0)).expand(k, -1, -1)
    h, c = decoder.init_state(enc)
    words = torch.full((k,), START, dtype=torch.long)
    seqs = words.unsqueeze(1)
    top_scores = torch.zeros(k, 1)
    complete, complete_scores = [], []
    for step in range(max_len):
        logits, h, c, _ = decoder.step(enc, words, h, c)
        scores = top_scores.expand_as(logits) + F.log_softmax(logits, dim=1)
        flat = scores[0] if step == 0 else scores.view(-1)
        top_scores, top_words = flat.topk(k, dim=0, largest=True, sorted=True)
        prev = torch.div(top_words, decoder.vocab, rounding_mode="floor")
        nxt = top_words % decoder.vocab
        seqs = torch.cat([seqs[prev], nxt.unsqueeze(1)], dim=1)
        ended = nxt == END
        for i in ended.nonzero().flatten().tolist():
            complete.append(seqs[i].tolist())
            complete_scores.append(top_scores[i].item())
        k -= int(ended.sum())
        if k == 0:
            break
        alive = (~ended).nonzero().squeeze(1)
        seqs, words = seqs[alive], nxt[alive]
        h, c, enc = h[prev[alive]], c[prev[alive]], enc[prev[alive]]
        top_scores = top_scores[alive].unsqueeze(1)
    best = max(range(len(complete_scores)), key=complete_scores.__getitem__)
    return [VOCAB[w] for w in complete[best][1:-1]], complete_scores[best]


def unigram_bleu(candidate, reference):
    cand, ref = torch.tensor([stoi[w] for w in candidate]), torch.tensor([stoi[w] for w in reference])
    if cand.numel() == 0:
        return 0.0
    clipped = torch.minimum(torch.bincount(cand, minlength=len(VOCAB)),
                            torch.bincount(ref, minlength=len(VOCAB))).sum().item()
    brevity = min(1.0, torch.exp(torch.tensor(1 - len(ref) / len(cand))).item())
    return brevity * clipped / len(cand)


encoder.eval()
decoder.eval()
test_images, test_captions, test_lengths = make_dataset(6)
bleus = []
for img, cap, n in zip(test_images, test_captions, test_lengths):
    ref = [VOCAB[w] for w in cap[1:n - 1].tolist()]
    g = greedy(img)
    b, score = beam_search(img)
    bleus.append(unigram_bleu(b, ref))
    print(" ".join(ref), "|", " ".join(g), "|", " ".join(b), f"{score:.6f}")
print(f"mean unigram BLEU {sum(bleus) / len(bleus):.6f}")

# the attention maps of one caption: one distribution over the grid per word
with torch.no_grad():
    _, _, _, alphas = decoder(encoder(test_images[:1]), test_captions[:1], test_lengths[:1])
print(alphas.shape, alphas.sum(dim=2), alphas[0].argmax(dim=1).tolist())
