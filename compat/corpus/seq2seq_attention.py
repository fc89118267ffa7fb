# Sequence to sequence with additive (Bahdanau) attention, in the manner of the translation
# tutorials: an encoder GRU, a decoder GRU fed its own greedy predictions or the targets
# (teacher forcing), attention weights by bmm, NLLLoss over log_softmax, SGD.
import torch
import torch.nn as nn
import torch.nn.functional as F

from _fixed import init_fixed

torch.set_default_dtype(torch.float64)
SOS, EOS = 0, 1
pairs = [([2, 3, 4], [4, 3, 2]), ([5, 2, 6], [6, 2, 5]), ([3, 3, 5], [5, 3, 3]), ([6, 4, 2], [2, 4, 6])]
n_words = 7
max_len = 5


def to_batch(seqs):
    rows = [s + [EOS] + [EOS] * (max_len - len(s) - 1) for s in seqs]
    return torch.tensor(rows, dtype=torch.long)


src = to_batch([p[0] for p in pairs])
tgt = to_batch([p[1] for p in pairs])
print(src.shape, tgt[:, :4])


class Encoder(nn.Module):
    def __init__(self, n, hidden):
        super().__init__()
        self.embedding = nn.Embedding(n, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)

    def forward(self, x):
        return self.gru(self.embedding(x))


class BahdanauAttention(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.Wa = nn.Linear(hidden, hidden)
        self.Ua = nn.Linear(hidden, hidden)
        self.Va = nn.Linear(hidden, 1)

    def forward(self, query, keys):
        scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys)))
        scores = scores.squeeze(2).unsqueeze(1)
        weights = F.softmax(scores, dim=-1)
        context = torch.bmm(weights, keys)
        return context, weights


class AttnDecoder(nn.Module):
    def __init__(self, hidden, n):
        super().__init__()
        self.embedding = nn.Embedding(n, hidden)
        self.attention = BahdanauAttention(hidden)
        self.gru = nn.GRU(2 * hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, n)

    def forward(self, encoder_outputs, encoder_hidden, target=None):
        batch = encoder_outputs.size(0)
        decoder_input = torch.empty(batch, 1, dtype=torch.long).fill_(SOS)
        hidden = encoder_hidden
        outputs, attentions = [], []
        for i in range(max_len):
            embedded = self.embedding(decoder_input)
            query = hidden.permute(1, 0, 2)
            context, weights = self.attention(query, encoder_outputs)
            output, hidden = self.gru(torch.cat((embedded, context), dim=2), hidden)
            output = self.out(output)
            outputs.append(output)
            attentions.append(weights)
            if target is not None:
                decoder_input = target[:, i].unsqueeze(1)
            else:
                _, topi = output.topk(1)
                decoder_input = topi.squeeze(-1).detach()
        outputs = F.log_softmax(torch.cat(outputs, dim=1), dim=-1)
        return outputs, hidden, torch.cat(attentions, dim=1)


hidden_size = 12
encoder, decoder = Encoder(n_words, hidden_size), AttnDecoder(hidden_size, n_words)
init_fixed(encoder, scale=0.3, freq=0.53)
init_fixed(decoder, scale=0.3, freq=0.61)
params = list(encoder.parameters()) + list(decoder.parameters())
enc_opt = torch.optim.SGD(encoder.parameters(), lr=0.3, momentum=0.5)
dec_opt = torch.optim.SGD(decoder.parameters(), lr=0.3, momentum=0.5)
criterion = nn.NLLLoss()
for epoch in range(30):
    enc_opt.zero_grad()
    dec_opt.zero_grad()
    enc_out, enc_hidden = encoder(src)
    dec_out, _, _ = decoder(enc_out, enc_hidden, tgt if epoch % 2 == 0 else None)
    loss = criterion(dec_out.view(-1, dec_out.size(-1)), tgt.view(-1))
    loss.backward()
    enc_opt.step()
    dec_opt.step()
    if epoch % 10 == 9:
        print(f"epoch {epoch + 1} loss {loss.item():.8f}")

with torch.no_grad():
    enc_out, enc_hidden = encoder(src)
    dec_out, _, attn = decoder(enc_out, enc_hidden)
    print(dec_out.argmax(-1).tolist())
    print(attn.shape, attn[0, 0], attn.sum(-1)[0])
    print(sum(p.numel() for p in params), [n for n, _ in decoder.named_parameters()][:5])
