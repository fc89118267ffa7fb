# Speech-recognition-style sequence labelling with CTC, in the manner of the ASR tutorials: a
# Conv1d front end over (batch, features, frames) "spectrograms" with BatchNorm1d and GELU, a
# bidirectional GRU, log_softmax transposed to (time, batch, classes) for nn.CTCLoss, targets
# given both padded and concatenated, and greedy decoding with argmax + unique_consecutive.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(3)
torch.set_default_dtype(torch.float64)
BLANK, NUM_SYMBOLS, NUM_FEATURES = 0, 4, 6  # symbols 1..4, class 0 is the CTC blank
FRAMES_PER_SYMBOL = 3


def utterance(symbols):
    """Each symbol holds a few frames of its own feature pattern, plus noise."""
    frames = [F.one_hot(torch.tensor(s), NUM_FEATURES).double().repeat(FRAMES_PER_SYMBOL, 1) for s in symbols]
    x = torch.cat(frames) + 0.2 * torch.randn(len(symbols) * FRAMES_PER_SYMBOL, NUM_FEATURES)
    return x.t()  # (features, frames)


transcripts = [[1, 2, 3], [4, 4, 1], [2, 3], [3, 1, 4, 2], [1, 2, 2], [4, 3]]
spectrograms = [utterance(t) for t in transcripts]
input_lengths = torch.tensor([s.shape[1] for s in spectrograms])
batch = torch.zeros(len(spectrograms), NUM_FEATURES, int(input_lengths.max()))
for i, s in enumerate(spectrograms):
    batch[i, :, :s.shape[1]] = s
target_lengths = torch.tensor([len(t) for t in transcripts])
padded_targets = torch.zeros(len(transcripts), int(target_lengths.max()), dtype=torch.long)
for i, t in enumerate(transcripts):
    padded_targets[i, :len(t)] = torch.tensor(t)
flat_targets = torch.cat([torch.tensor(t) for t in transcripts])
print(batch.shape, input_lengths.tolist(), padded_targets.tolist(), flat_targets.tolist())


class SpeechModel(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.frontend = nn.Sequential(
            nn.Conv1d(NUM_FEATURES, hidden, kernel_size=3, padding=1), nn.BatchNorm1d(hidden), nn.GELU(),
            nn.Conv1d(hidden, hidden, kernel_size=3, padding=1), nn.BatchNorm1d(hidden), nn.GELU(),
        )
        self.rnn = nn.GRU(hidden, hidden, batch_first=True, bidirectional=True)
        self.classifier = nn.Linear(2 * hidden, NUM_SYMBOLS + 1)

    def forward(self, x):
        x = self.frontend(x)  # (batch, hidden, frames)
        x, _ = self.rnn(x.transpose(1, 2))  # (batch, frames, 2 * hidden)
        return self.classifier(x).log_softmax(dim=-1)


def greedy_decode(log_probs, lengths):
    best = log_probs.argmax(dim=-1)  # (batch, frames)
    out = []
    for path, n in zip(best, lengths.tolist()):
        collapsed = torch.unique_consecutive(path[:n])
        out.append(collapsed[collapsed != BLANK].tolist())
    return out


def edit_distance(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


model = SpeechModel()
ctc = nn.CTCLoss(blank=BLANK, zero_infinity=True)
optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
for step in range(30):
    model.train()
    log_probs = model(batch).transpose(0, 1)  # (frames, batch, classes)
    loss = ctc(log_probs, padded_targets, input_lengths, target_lengths)
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    optimizer.step()
    if step % 10 == 9:
        print(f"step {step} ctc {loss.item():.8f}")

model.eval()
with torch.no_grad():
    log_probs = model(batch)
    tlp = log_probs.transpose(0, 1)
    print("flat targets", f"{ctc(tlp, flat_targets, input_lengths, target_lengths).item():.8f}")
    print("sum", f"{F.ctc_loss(tlp, padded_targets, input_lengths, target_lengths, reduction='sum').item():.8f}")
    print("none", F.ctc_loss(tlp, padded_targets, input_lengths, target_lengths, reduction="none"))
    too_short = torch.tensor([2, 9, 6, 12, 9, 6])  # the first utterance cannot hold its 3 symbols
    print("infinite", F.ctc_loss(tlp, padded_targets, too_short, target_lengths, reduction="none"))
    print("zeroed", F.ctc_loss(tlp, padded_targets, too_short, target_lengths, reduction="none", zero_infinity=True))
    decoded = greedy_decode(log_probs, input_lengths)
print(decoded)
errors = sum(edit_distance(d, t) for d, t in zip(decoded, transcripts))
print("CER", f"{errors / sum(map(len, transcripts)):.8f}")
print(torch.unique_consecutive(torch.tensor([0, 0, 2, 2, 0, 3, 3, 3]), return_counts=True))
print(torch.unique_consecutive(torch.tensor([1, 1, 2, 1]), return_inverse=True))
