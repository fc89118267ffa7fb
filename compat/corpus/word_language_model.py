# The word-level language model of the examples repository, scaled down: batchify with narrow/view/t,
# get_batch slices, an Embedding-LSTM-Linear model with tied sizes, hidden-state repackaging with
# detach, clip_grad_norm_, manual SGD with p.data.add_(p.grad, alpha=-lr), perplexity.
import math

import torch
import torch.nn as nn

from _fixed import init_fixed

torch.set_default_dtype(torch.float64)
corpus_text = ("the cat sat on the mat . the dog sat on the log . a cat and a dog met on the mat . " * 3).split()
vocab = sorted(set(corpus_text))
word2idx = {w: i for i, w in enumerate(vocab)}
ids = torch.tensor([word2idx[w] for w in corpus_text], dtype=torch.int64)
print(len(vocab), ids.shape)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    data = data.view(bsz, -1).t().contiguous()
    return data


train_data = batchify(ids[:60], 4)
val_data = batchify(ids[60:], 2)
print(train_data.shape, val_data.shape, train_data[:3])
bptt = 5


def get_batch(source, i):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.0):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nhid, self.nlayers = nhid, nlayers
        self.init_weights()

    def init_weights(self):
        init_fixed(self, scale=0.1, freq=0.57)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return nn.functional.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


model = RNNModel(len(vocab), 8, 12, 2)
criterion = nn.NLLLoss()
lr = 2.0


def evaluate(data_source, bsz):
    model.eval()
    total_loss = 0.0
    hidden = model.init_hidden(bsz)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


for epoch in range(1, 9):
    model.train()
    total_loss = 0.0
    hidden = model.init_hidden(4)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        model.zero_grad()
        hidden = repackage_hidden(hidden)
        output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        total_loss += loss.item()
    val_loss = evaluate(val_data, 2)
    print("| epoch {:3d} | train loss {:5.4f} | valid loss {:5.4f} | valid ppl {:8.4f}".format(
        epoch, total_loss / (batch + 1), val_loss, math.exp(val_loss)))

with torch.no_grad():
    hidden = model.init_hidden(1)
    word = torch.tensor([[word2idx["the"]]])
    words = ["the"]
    for _ in range(8):
        output, hidden = model(word, hidden)
        word_idx = output[-1].argmax().item()
        word.fill_(word_idx)
        words.append(vocab[word_idx])
    print(" ".join(words))
