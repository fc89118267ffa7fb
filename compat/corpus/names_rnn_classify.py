# Classifying names by origin with a character-level RNN, as in the tutorial: unicode names folded
# to ASCII, one-hot letter tensors built with torch.zeros and index assignment, an RNN cell written
# from nn.Linear on torch.cat of input and hidden, LogSoftmax + NLLLoss, plain SGD through
# p.data.add_, predictions read with topk, and a row-normalised confusion matrix.
# The vocabulary is invented: four made-up "languages" with their own letter patterns.
import math
import random
import string
import unicodedata

import numpy as np
import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)
all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)


def unicodeToAscii(s):
    return "".join(
        c for c in unicodedata.normalize("NFD", s)
        if unicodedata.category(c) != "Mn" and c in all_letters
    )


print(n_letters, unicodeToAscii("Ślusàrski"), unicodeToAscii("Zoë Ñuñez"))

category_lines = {
    "Vellish": ["Valdor", "Velmar", "Vorlan", "Valtis", "Velkor", "Varnel", "Volder", "Vestar"],
    "Okari": ["Okanu", "Tokaru", "Mikanu", "Hokari", "Sekanu", "Rokamu", "Kanuto", "Yokari"],
    "Ziwen": ["Zhiwen", "Xiaozi", "Zewei", "Qiwen", "Zhaowi", "Xiwen", "Ziqiao", "Weizhi"],
    "Brannoch": ["MacBrann", "O'Dallan", "MacCorr", "O'Brannoch", "MacLir", "O'Connach", "Brannagh", "Dallagh"],
}
category_lines["Okari"][0] = unicodeToAscii("Ókanū")
# names never seen in training, for the confusion matrix
held_out = {
    "Vellish": ["Valmor", "Vortis", "Zelmar", "Velkan"],
    "Okari": ["Tokanu", "Mokari", "Sekaru", "Vokanu"],
    "Ziwen": ["Zhiqi", "Xiaowen", "Weizi", "Qiaozhi"],
    "Brannoch": ["MacDall", "O'Lir", "Corragh", "MacVel"],
}
all_categories = list(category_lines)
n_categories = len(all_categories)
print(n_categories, all_categories, category_lines["Okari"][:3])


def letterToIndex(letter):
    return all_letters.find(letter)


def letterToTensor(letter):
    tensor = torch.zeros(1, n_letters)
    tensor[0][letterToIndex(letter)] = 1
    return tensor


def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


print(letterToTensor("J").nonzero().tolist(), lineToTensor("O'Dallan").size(), lineToTensor("Qi").sum(dim=2).view(-1))


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(RNN, self).__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        combined = torch.cat((input, hidden), 1)
        hidden = torch.tanh(self.i2h(combined))
        output = self.h2o(hidden)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


n_hidden = 32
rnn = RNN(n_letters, n_hidden, n_categories)
weights = np.random.default_rng(2024)
with torch.no_grad():
    for name, p in rnn.named_parameters():
        bound = 1 / math.sqrt(p.shape[-1]) if p.dim() > 1 else 0.05
        p.copy_(torch.from_numpy(weights.uniform(-bound, bound, size=tuple(p.shape))))
print([(name, tuple(p.shape)) for name, p in rnn.named_parameters()])

input = lineToTensor("Velmar")
hidden = torch.zeros(1, n_hidden)
output, next_hidden = rnn(input[0], hidden)
print(output)


def categoryFromOutput(output):
    top_n, top_i = output.topk(1)
    category_i = top_i[0].item()
    return all_categories[category_i], category_i


print(categoryFromOutput(output))

# training examples drawn with Python's seeded generator: the same sequence under any library
random.seed(5)


def randomChoice(l):
    return l[random.randint(0, len(l) - 1)]


def randomTrainingExample():
    category = randomChoice(all_categories)
    line = randomChoice(category_lines[category])
    category_tensor = torch.tensor([all_categories.index(category)], dtype=torch.long)
    line_tensor = lineToTensor(line)
    return category, line, category_tensor, line_tensor


for i in range(3):
    category, line, category_tensor, line_tensor = randomTrainingExample()
    print("category =", category, "/ line =", line, category_tensor, tuple(line_tensor.shape))

criterion = nn.NLLLoss()
learning_rate = 0.02


def train(category_tensor, line_tensor):
    hidden = rnn.initHidden()
    rnn.zero_grad()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    loss = criterion(output, category_tensor)
    loss.backward()
    # add parameters' gradients to their values, multiplied by learning rate
    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)
    return output, loss.item()


n_iters = 1000
print_every = 200
current_loss = 0
all_losses = []
correct_total = 0
for iter in range(1, n_iters + 1):
    category, line, category_tensor, line_tensor = randomTrainingExample()
    output, loss = train(category_tensor, line_tensor)
    current_loss += loss
    guess, guess_i = categoryFromOutput(output)
    correct_total += guess == category
    if iter % print_every == 0:
        correct = "✓" if guess == category else "✗ (%s)" % category
        print("%d %d%% %.6f %s / %s %s" % (iter, iter / n_iters * 100, loss, line, guess, correct))
        all_losses.append(current_loss / print_every)
        current_loss = 0
print(["%.6f" % l for l in all_losses], correct_total)

# confusion matrix: rows are the true category, columns the guess
confusion = torch.zeros(n_categories, n_categories)
n_confusion = 200


def evaluate(line_tensor):
    hidden = rnn.initHidden()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    return output


for i in range(n_confusion):
    category = randomChoice(all_categories)
    line_tensor = lineToTensor(randomChoice(held_out[category]))
    output = evaluate(line_tensor)
    guess, guess_i = categoryFromOutput(output)
    category_i = all_categories.index(category)
    confusion[category_i][guess_i] += 1
print(confusion, confusion.sum().item())

for i in range(n_categories):
    confusion[i] = confusion[i] / confusion[i].sum()
print(confusion)
print("accuracy %.4f" % (confusion.diag().mean().item()), confusion.sum(dim=1))


def predict(input_line, n_predictions=3):
    print("\n> %s" % input_line)
    with torch.no_grad():
        output = evaluate(lineToTensor(input_line))
        topv, topi = output.topk(n_predictions, 1, True)
        predictions = []
        for i in range(n_predictions):
            value = topv[0][i].item()
            category_index = topi[0][i].item()
            print("(%.4f) %s" % (value, all_categories[category_index]))
            predictions.append([value, all_categories[category_index]])
    return predictions


predict("Valkor")
predict("MacDall")
print(predict("Zhiqiao", 2)[0][1])

# The tutorial's newer form: a Dataset of (label tensor, line tensor, label, line) items, nn.RNN
# over the whole line, mini-batches whose summed loss is clipped and stepped with optim.SGD.
from torch.utils.data import Dataset, random_split

device = torch.device("cpu")
if torch.cuda.is_available():
    device = torch.device("cuda")
torch.set_default_device(device)
print(f"Using device = {torch.get_default_device()}")


class NamesDataset(Dataset):
    def __init__(self, lines_by_label):
        self.data = []
        self.data_tensors = []
        self.labels = []
        self.labels_tensors = []
        labels_set = set()
        for label, lines in lines_by_label.items():
            labels_set.add(label)
            for name in lines:
                self.data.append(name)
                self.data_tensors.append(lineToTensor(name))
                self.labels.append(label)
        self.labels_uniq = sorted(labels_set)
        for idx in range(len(self.labels)):
            temp_tensor = torch.tensor([self.labels_uniq.index(self.labels[idx])], dtype=torch.long)
            self.labels_tensors.append(temp_tensor)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):
        return self.labels_tensors[idx], self.data_tensors[idx], self.labels[idx], self.data[idx]


alldata = NamesDataset(category_lines)
print(f"loaded {len(alldata)} items of data", alldata.labels_uniq, alldata[9][2:], alldata[9][0])
# only the sizes are printed: which names land where depends on torch's generator
train_split, test_split = random_split(alldata, [0.85, 0.15], generator=torch.Generator(device=device).manual_seed(2024))
print(f"train examples = {len(train_split)}, validation examples = {len(test_split)}")
training_data, testing_data = alldata, NamesDataset(held_out)


class CharRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(CharRNN, self).__init__()
        self.rnn = nn.RNN(input_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, line_tensor):
        rnn_out, hidden = self.rnn(line_tensor)
        output = self.h2o(hidden[0])
        output = self.softmax(output)
        return output


n_hidden = 24
rnn = CharRNN(n_letters, n_hidden, len(alldata.labels_uniq))
with torch.no_grad():
    for name, p in rnn.named_parameters():
        p.copy_(torch.from_numpy(weights.uniform(-0.2, 0.2, size=tuple(p.shape))))
print(rnn)


def label_from_output(output, output_labels):
    top_n, top_i = output.topk(1)
    label_i = top_i[0].item()
    return output_labels[label_i], label_i


input = lineToTensor("Okanu")
output = rnn(input)
print(output, label_from_output(output, alldata.labels_uniq))


def train_batches(rnn, training_data, n_epoch=10, n_batch_size=64, report_every=50, learning_rate=0.2,
                  criterion=nn.NLLLoss()):
    current_loss = 0
    all_losses = []
    rnn.train()
    optimizer = torch.optim.SGD(rnn.parameters(), lr=learning_rate)
    for iter in range(1, n_epoch + 1):
        rnn.zero_grad()
        batches = list(range(len(training_data)))
        random.shuffle(batches)
        batches = np.array_split(batches, len(batches) // n_batch_size)
        for idx, batch in enumerate(batches):
            batch_loss = 0
            for i in batch:
                (label_tensor, text_tensor, label, text) = training_data[i]
                output = rnn.forward(text_tensor)
                loss = criterion(output, label_tensor)
                batch_loss += loss
            batch_loss.backward()
            nn.utils.clip_grad_norm_(rnn.parameters(), 3)
            optimizer.step()
            optimizer.zero_grad()
            current_loss += batch_loss.item() / len(batch)
        all_losses.append(current_loss / len(batches))
        if iter % report_every == 0:
            print(f"{iter} ({iter / n_epoch:.0%}): \t average batch loss = {all_losses[-1]:.8f}")
        current_loss = 0
    return all_losses


all_losses = train_batches(rnn, training_data, n_epoch=24, n_batch_size=8, report_every=6, learning_rate=0.1)
print(len(all_losses), f"{min(all_losses):.8f}")


def evaluate_rnn(rnn, testing_data, classes):
    confusion = torch.zeros(len(classes), len(classes))
    rnn.eval()
    with torch.no_grad():
        for i in range(len(testing_data)):
            (label_tensor, text_tensor, label, text) = testing_data[i]
            output = rnn(text_tensor)
            guess, guess_i = label_from_output(output, classes)
            label_i = classes.index(label)
            confusion[label_i][guess_i] += 1
    for i in range(len(classes)):
        denom = confusion[i].sum()
        if denom > 0:
            confusion[i] = confusion[i] / denom
    return confusion


confusion = evaluate_rnn(rnn, testing_data, classes=alldata.labels_uniq)
print(confusion, confusion.cpu().numpy().trace())
