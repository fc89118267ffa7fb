# Word embeddings in the word2vec manner: skip-gram pairs drawn from a toy corpus with a random
# window, negatives drawn from the unigram distribution raised to 3/4 with torch.multinomial,
# two nn.Embedding tables scored by bmm and trained with F.logsigmoid, then nearest neighbours by
# cosine similarity with topk and a word analogy by vector arithmetic.
import collections

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

TEXT = """the king rules the land and the queen rules the land
the man walks to the city and the woman walks to the city
a king is a man and a queen is a woman
the prince is a young man and the princess is a young woman
the dog chases the cat and the cat chases the mouse
a dog is an animal and a cat is an animal and a mouse is an animal"""
WINDOW, NEGATIVES, DIM = 2, 5, 16

words = TEXT.split()
counts = collections.Counter(words)
vocab = sorted(counts, key=lambda w: (-counts[w], w))
stoi = {w: i for i, w in enumerate(vocab)}
ids = torch.tensor([stoi[w] for w in words])
print(len(words), len(vocab), vocab[:6], ids[:10].tolist())

freq = torch.tensor([counts[w] for w in vocab], dtype=torch.float64)
noise = freq.pow(0.75)
noise = noise / noise.sum()
print(noise[:4], noise.argmax().item())

# subsampling of frequent words, as in the paper: keep probability sqrt(t / f)
t = 1e-2
keep_prob = torch.clamp(torch.sqrt(t / (freq / freq.sum())), max=1.0)
print(keep_prob[:5])


def skipgram_pairs(token_ids):
    """(center, context) pairs with a window shrunk at random for each center, as word2vec does."""
    centers, contexts = [], []
    n = token_ids.numel()
    spans = torch.randint(1, WINDOW + 1, (n,))
    for i in range(n):
        span = spans[i].item()
        for j in range(max(0, i - span), min(n, i + span + 1)):
            if j != i:
                centers.append(token_ids[i])
                contexts.append(token_ids[j])
    return torch.stack(centers), torch.stack(contexts)


centers, contexts = skipgram_pairs(ids)
print(centers.shape, contexts.dtype, centers[:8].tolist(), contexts[:8].tolist())


class SkipGramNeg(nn.Module):
    def __init__(self, n_vocab, dim):
        super().__init__()
        self.in_embed = nn.Embedding(n_vocab, dim)
        self.out_embed = nn.Embedding(n_vocab, dim)
        bound = 0.5 / dim
        self.in_embed.weight.data.uniform_(-bound, bound)
        self.out_embed.weight.data.zero_()

    def forward(self, center, context, negatives):
        v = self.in_embed(center).unsqueeze(2)            # (B, D, 1)
        u_pos = self.out_embed(context).unsqueeze(1)      # (B, 1, D)
        u_neg = self.out_embed(negatives)                 # (B, K, D)
        pos = torch.bmm(u_pos, v).squeeze(2).squeeze(1)   # (B,)
        neg = torch.bmm(u_neg.neg(), v).squeeze(2)        # (B, K)
        return -(F.logsigmoid(pos) + F.logsigmoid(neg).sum(1)).mean()


model = SkipGramNeg(len(vocab), DIM)
optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
batch = 32
for epoch in range(30):
    order = torch.randperm(centers.numel())
    total = 0.0
    for start in range(0, order.numel(), batch):
        idx = order[start:start + batch]
        negatives = torch.multinomial(noise, idx.numel() * NEGATIVES, replacement=True)
        negatives = negatives.view(idx.numel(), NEGATIVES)
        loss = model(centers[idx], contexts[idx], negatives)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * idx.numel()
    if epoch % 10 == 9:
        print(f"epoch {epoch + 1}: loss {total / centers.numel():.6f}")

# the embedding tables after training: shapes, norms, the gradient is dense
emb = model.in_embed.weight.detach()
print(emb.shape, emb.norm(dim=1)[:4], model.in_embed.weight.grad.shape)

# nearest neighbours by cosine similarity
normed = F.normalize(emb, dim=1)
sims = normed @ normed.T
for word in ["king", "dog", "walks"]:
    scores, nearest = sims[stoi[word]].topk(4)
    print(word, [vocab[i] for i in nearest[1:].tolist()], scores[1:])
print(F.cosine_similarity(emb[stoi["king"]], emb[stoi["queen"]], dim=0))
print(F.cosine_similarity(emb[[stoi["man"], stoi["dog"]]], emb[[stoi["woman"], stoi["cat"]]]))

# king - man + woman, excluding the three query words
query = emb[stoi["king"]] - emb[stoi["man"]] + emb[stoi["woman"]]
scores = F.cosine_similarity(query.unsqueeze(0), emb, dim=1)
scores[[stoi["king"], stoi["man"], stoi["woman"]]] = -float("inf")
best = scores.argmax().item()
print(vocab[best], scores.max(), torch.isinf(scores).sum().item())

# the embeddings as a lookup: F.embedding with a padding row and max_norm
table = emb.clone()
padded = F.embedding(torch.tensor([[0, 3], [5, 0]]), table, padding_idx=0)
print(padded.shape, padded[0, 1].norm())
limited = nn.Embedding.from_pretrained(table.clone(), freeze=True, max_norm=0.5)
print(limited(torch.tensor([1, 2, 3])).norm(dim=1), limited.weight.requires_grad)
