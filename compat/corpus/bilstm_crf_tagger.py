# A BiLSTM-CRF sequence tagger in the manner of the "dynamic decisions" NLP tutorial: a
# bidirectional LSTM gives per-word emission scores, a learned matrix of transition scores joins
# neighbouring tags, the partition function is the forward algorithm written as Python loops over
# a log-sum-exp, and decoding is Viterbi with argmax/max on 1-D tensors and Python backpointers.
# The loss is the negative log-likelihood: log partition minus the score of the gold path.
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(1)
torch.set_default_dtype(torch.float64)

BEGIN, END = "<begin>", "<end>"
FORBIDDEN = -10000.0


def argmax_of_row(row):
    # row has shape (1, n); the index of its largest entry as a Python int
    _, index = torch.max(row, 1)
    return index.item()


def log_sum_exp(row):
    # log(sum(exp(row))) for a (1, n) row without overflow: shift by the row's maximum first
    top = row[0, argmax_of_row(row)]
    top_wide = top.view(1, -1).expand(1, row.size()[1])
    return top + torch.log(torch.sum(torch.exp(row - top_wide)))


def encode(items, index):
    return torch.tensor([index[item] for item in items], dtype=torch.long)


class BiLSTMCRF(nn.Module):
    def __init__(self, vocab_size, tag_to_ix, embedding_dim, hidden_dim):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.tag_to_ix = tag_to_ix
        self.n_tags = len(tag_to_ix)
        self.embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_dim // 2, num_layers=1, bidirectional=True)
        self.hidden_to_tag = nn.Linear(hidden_dim, self.n_tags)
        # transitions[i, j]: the score of moving from tag j to tag i
        self.transitions = nn.Parameter(torch.randn(self.n_tags, self.n_tags))
        # nothing moves into the begin tag, nothing leaves the end tag
        self.transitions.data[tag_to_ix[BEGIN], :] = FORBIDDEN
        self.transitions.data[:, tag_to_ix[END]] = FORBIDDEN
        self.hidden = self.fresh_hidden()

    def fresh_hidden(self):
        return (torch.randn(2, 1, self.hidden_dim // 2), torch.randn(2, 1, self.hidden_dim // 2))

    def emissions(self, sentence):
        self.hidden = self.fresh_hidden()
        embeds = self.embeddings(sentence).view(len(sentence), 1, -1)
        lstm_out, self.hidden = self.lstm(embeds, self.hidden)
        lstm_out = lstm_out.view(len(sentence), self.hidden_dim)
        return self.hidden_to_tag(lstm_out)

    def log_partition(self, feats):
        start = torch.full((1, self.n_tags), FORBIDDEN)
        start[0][self.tag_to_ix[BEGIN]] = 0.0
        forward_var = start
        for feat in feats:
            scores_at_step = []
            for next_tag in range(self.n_tags):
                emit = feat[next_tag].view(1, -1).expand(1, self.n_tags)
                trans = self.transitions[next_tag].view(1, -1)
                scores_at_step.append(log_sum_exp(forward_var + trans + emit).view(1))
            forward_var = torch.cat(scores_at_step).view(1, -1)
        terminal = forward_var + self.transitions[self.tag_to_ix[END]]
        return log_sum_exp(terminal)

    def path_score(self, feats, tags):
        score = torch.zeros(1)
        tags = torch.cat([torch.tensor([self.tag_to_ix[BEGIN]], dtype=torch.long), tags])
        for i, feat in enumerate(feats):
            score = score + self.transitions[tags[i + 1], tags[i]] + feat[tags[i + 1]]
        return score + self.transitions[self.tag_to_ix[END], tags[-1]]

    def viterbi(self, feats):
        backpointers = []
        start = torch.full((self.n_tags,), FORBIDDEN)
        start[self.tag_to_ix[BEGIN]] = 0.0
        forward_var = start
        for feat in feats:
            best_prev, best_vals = [], []
            for next_tag in range(self.n_tags):
                candidates = forward_var + self.transitions[next_tag]
                prev = torch.argmax(candidates).item()
                best_prev.append(prev)
                best_vals.append(candidates[prev].view(1))
            forward_var = torch.cat(best_vals) + feat
            backpointers.append(best_prev)
        terminal = forward_var + self.transitions[self.tag_to_ix[END]]
        best_score, best_last = terminal.max(0)
        best_tag = best_last.item()
        path = [best_tag]
        for best_prev in reversed(backpointers):
            best_tag = best_prev[best_tag]
            path.append(best_tag)
        first = path.pop()
        assert first == self.tag_to_ix[BEGIN], first
        path.reverse()
        return best_score, path

    def neg_log_likelihood(self, sentence, tags):
        feats = self.emissions(sentence)
        return self.log_partition(feats) - self.path_score(feats, tags)

    def forward(self, sentence):
        return self.viterbi(self.emissions(sentence))


training_data = [
    ("ada lovelace wrote notes in london".split(), "B I O O O B".split()),
    ("alan turing worked at bletchley park".split(), "B I O O B I".split()),
    ("grace hopper visited new york".split(), "B I O B I".split()),
    ("notes from london reached alan".split(), "O O B O B".split()),
]
word_to_ix = {}
for words, _ in training_data:
    for word in words:
        word_to_ix.setdefault(word, len(word_to_ix))
tag_to_ix = {"B": 0, "I": 1, "O": 2, BEGIN: 3, END: 4}
ix_to_tag = {ix: tag for tag, ix in tag_to_ix.items()}
print(len(word_to_ix), "words", tag_to_ix)

model = BiLSTMCRF(len(word_to_ix), tag_to_ix, embedding_dim=5, hidden_dim=4)
print(model)
print([(name, tuple(p.shape)) for name, p in model.named_parameters()])
optimizer = optim.SGD(model.parameters(), lr=0.05, weight_decay=1e-4)

with torch.no_grad():
    sentence = encode(training_data[0][0], word_to_ix)
    feats = model.emissions(sentence)
    print("feats", feats.shape, [round(v, 4) for v in feats[0].tolist()])
    # the loop forward algorithm against a vectorised log-sum-exp over all paths' prefixes
    alpha = torch.full((model.n_tags,), FORBIDDEN)
    alpha[tag_to_ix[BEGIN]] = 0.0
    for feat in feats:
        alpha = torch.logsumexp(alpha.unsqueeze(0) + model.transitions, dim=1) + feat
    vectorised = torch.logsumexp(alpha + model.transitions[tag_to_ix[END]], dim=0)
    looped = model.log_partition(feats)
    print("log Z", round(looped.item(), 4), torch.allclose(looped, vectorised))
    score, path = model(sentence)
    print("before", round(score.item(), 4), [ix_to_tag[t] for t in path])

for epoch in range(24):
    total = 0.0
    for words, tags in training_data:
        model.zero_grad()
        sentence = encode(words, word_to_ix)
        targets = encode(tags, tag_to_ix)
        loss = model.neg_log_likelihood(sentence, targets)
        loss.backward()
        optimizer.step()
        total += loss.item()
    if epoch % 6 == 5:
        print(epoch, "loss", round(total, 4))

with torch.no_grad():
    for words, tags in training_data:
        score, path = model(encode(words, word_to_ix))
        decoded = [ix_to_tag[t] for t in path]
        print(round(score.item(), 4), decoded, decoded == tags)
    print("transitions", [round(v, 3) for v in model.transitions[:3, :3].reshape(-1).tolist()])
    print("begin row", model.transitions[tag_to_ix[BEGIN]].max().item() < -9000)
