# Text classification with a bag of embeddings, the way the text classification tutorial goes about
# it, with a tiny corpus written out here: a plain-Python tokenizer and vocabulary (with an unknown
# token), a DataLoader whose collate_fn concatenates the token ids of a batch and builds the
# offsets of each sentence, nn.EmbeddingBag in mean and sum modes (per_sample_weights,
# padding_idx, 2-D input, include_last_offset), SGD with StepLR and gradient clipping, accuracy
# per epoch, and prediction on new text.
import re
from collections import Counter

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, random_split

from _fixed import wave

torch.set_default_dtype(torch.float64)

TOPICS = {0: "Sports", 1: "Science", 2: "Cooking"}
TRAIN = [
    (0, "The team won the match after a late goal"),
    (1, "Researchers measured the mass of the distant star"),
    (2, "Stir the sauce and add a pinch of salt"),
    (0, "The striker scored twice in the final match"),
    (1, "The experiment confirmed the new theory of light"),
    (2, "Bake the bread until the crust is golden"),
    (0, "Fans cheered as the team lifted the cup"),
    (1, "A telescope found water on a small planet"),
    (2, "Slice the onions and fry them in butter"),
    (0, "The coach praised the defence after the win"),
    (1, "Scientists study how cells divide and grow"),
    (2, "Whisk the eggs with sugar for the cake"),
    (0, "A penalty decided the cup final"),
    (1, "The probe sent images of the planet's rings"),
    (2, "Season the soup with pepper and fresh herbs"),
    (0, "The goalkeeper saved a shot in the last minute"),
]
TEST = [
    (0, "The team scored a goal in the final"),
    (1, "The star and the planet were measured by the telescope"),
    (2, "Add salt and butter to the sauce"),
    (2, "Fry the eggs in butter"),
]


def tokenize(text):
    """Lower case, words and apostrophes only, as a basic English tokenizer does."""
    return re.findall(r"[a-z']+", text.lower())


class Vocab:
    def __init__(self, counter, specials=("<unk>", "<pad>"), min_freq=1):
        self.itos = list(specials) + sorted(w for w, c in counter.items() if c >= min_freq and w not in specials)
        self.stoi = {w: i for i, w in enumerate(self.itos)}
        self.default_index = self.stoi["<unk>"]

    def __len__(self):
        return len(self.itos)

    def __call__(self, tokens):
        return [self.stoi.get(t, self.default_index) for t in tokens]


counter = Counter(token for _, text in TRAIN for token in tokenize(text))
vocab = Vocab(counter)
PAD = vocab.stoi["<pad>"]
print("vocabulary size:", len(vocab), "most common:", counter.most_common(3))
print(tokenize("The probe sent images of the planet's rings"))
print(vocab(tokenize("the team ate a spaceship")))


def text_pipeline(text):
    return vocab(tokenize(text))


def label_pipeline(label):
    return int(label)


class TopicDataset(Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, index):
        return self.rows[index]


def collate_batch(batch):
    labels, token_ids, offsets = [], [], [0]
    for label, text in batch:
        labels.append(label_pipeline(label))
        ids = torch.tensor(text_pipeline(text), dtype=torch.int64)
        token_ids.append(ids)
        offsets.append(ids.size(0))
    labels = torch.tensor(labels, dtype=torch.int64)
    offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
    return labels, torch.cat(token_ids), offsets


train_data = TopicDataset(TRAIN)
loader = DataLoader(train_data, batch_size=4, shuffle=False, collate_fn=collate_batch)
labels, text, offsets = next(iter(loader))
print("first batch:", labels.tolist(), tuple(text.shape), offsets.tolist(), text.dtype, offsets.dtype)
print("batches per epoch:", len(loader))

# ---- the bag module by itself ----
bag = nn.EmbeddingBag(6, 3, mode="sum")
with torch.no_grad():
    bag.weight.copy_(wave(6, 3, freq=0.9))
ids = torch.tensor([1, 2, 4, 5, 4, 3, 2, 0])
bounds = torch.tensor([0, 3, 3, 6])
print(bag)
print("sum:", bag(ids, bounds).detach())
print("sum by hand:", bag.weight[[1, 2, 4]].sum(0).detach())
weights = torch.tensor([1.0, 0.5, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0])
print("weighted:", bag(ids, bounds, per_sample_weights=weights).detach())
bag.mode = "mean"
print("mean (an empty bag gives zeros):", bag(ids, bounds).detach())
print("2-D input, bags of equal length:", bag(ids.view(2, 4)).detach())
bag_max = nn.EmbeddingBag(6, 3, mode="max", _weight=wave(6, 3, freq=0.9))
print("max:", bag_max(ids, bounds).detach())
padded = nn.EmbeddingBag(6, 3, mode="mean", padding_idx=0, _weight=wave(6, 3, freq=0.9))
print("padding_idx left out of the mean:", padded(torch.tensor([[3, 0, 0], [2, 4, 0]])).detach())
last = nn.EmbeddingBag(6, 3, mode="sum", include_last_offset=True, _weight=wave(6, 3, freq=0.9))
print("include_last_offset:", last(ids, torch.tensor([0, 3, 8])).detach())
print("functional:", F.embedding_bag(ids, wave(6, 3, freq=0.9), bounds, mode="sum")[0].tolist())
try:
    bag(ids, torch.tensor([1, 3]))
except (RuntimeError, ValueError) as error:
    print(type(error).__name__ + ":", str(error).splitlines()[0])
try:
    bag(ids.view(2, 4), bounds)
except ValueError as error:
    print("ValueError:", error)
try:
    bag(ids, bounds, per_sample_weights=weights)
except NotImplementedError as error:
    print("NotImplementedError:", error)


# ---- the model ----
class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False, padding_idx=PAD)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        with torch.no_grad():
            self.embedding.weight.copy_(wave(*self.embedding.weight.shape, freq=0.61, scale=0.5))
            self.embedding.weight[PAD].zero_()
            self.fc.weight.copy_(wave(*self.fc.weight.shape, freq=1.3, scale=0.5))
            self.fc.bias.zero_()

    def forward(self, text, offsets):
        return self.fc(self.embedding(text, offsets))


model = TextClassificationModel(len(vocab), 8, len(TOPICS))
print(model)
print("parameters:", sum(p.numel() for p in model.parameters()))

criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=5.0)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 2, gamma=0.7)

generator = torch.Generator().manual_seed(42)
train_split, valid_split = random_split(train_data, [12, 4], generator=generator)
print("split sizes:", len(train_split), len(valid_split))


def train_epoch(dataloader):
    model.train()
    total_acc, total_count, norms = 0, 0, []
    for label, text, offsets in dataloader:
        optimizer.zero_grad()
        predicted = model(text, offsets)
        loss = criterion(predicted, label)
        loss.backward()
        norms.append(torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25).item())
        optimizer.step()
        total_acc += (predicted.argmax(1) == label).sum().item()
        total_count += label.size(0)
    return total_acc / total_count, norms


def evaluate(dataloader):
    model.eval()
    total_acc, total_count, total_loss = 0, 0, 0.0
    with torch.no_grad():
        for label, text, offsets in dataloader:
            predicted = model(text, offsets)
            total_loss += criterion(predicted, label).item() * label.size(0)
            total_acc += (predicted.argmax(1) == label).sum().item()
            total_count += label.size(0)
    return total_acc / total_count, total_loss / total_count


# the whole training set in a fixed order, so that every library sees the same batches
train_loader = DataLoader(train_data, batch_size=4, shuffle=False, collate_fn=collate_batch)
test_loader = DataLoader(TopicDataset(TEST), batch_size=4, collate_fn=collate_batch)
print("pad row before:", model.embedding.weight[PAD].abs().sum().item())
for epoch in range(1, 9):
    accuracy, norms = train_epoch(train_loader)
    test_accuracy, test_loss = evaluate(test_loader)
    print(f"| epoch {epoch} | lr {scheduler.get_last_lr()[0]:.4f} | train acc {accuracy:.3f} | "
          f"test acc {test_accuracy:.3f} | test loss {test_loss:.6f} | grad norms {[round(n, 6) for n in norms]}")
    scheduler.step()
print("pad row after (no gradient reaches it):", model.embedding.weight[PAD].abs().sum().item())
print("last batch's (clipped) gradient of 'goalkeeper':", model.embedding.weight.grad[vocab.stoi["goalkeeper"]])
print("and of 'telescope', not in that batch:", model.embedding.weight.grad[vocab.stoi["telescope"]].abs().sum().item())


def predict(text):
    with torch.no_grad():
        ids = torch.tensor(text_pipeline(text))
        output = model(ids, torch.tensor([0]))
        return output.argmax(1).item()


for sentence in ["The final whistle ended the match", "Boil the pasta in salted water",
                 "The telescope measured the light of the star"]:
    topic = predict(sentence)
    print(f"{sentence!r} is {TOPICS[topic]}")
probabilities = F.softmax(model(torch.tensor(text_pipeline("fry the sauce")), torch.tensor([0])), dim=1)
print("probabilities:", probabilities.detach())
