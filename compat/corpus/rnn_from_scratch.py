# The name-classification RNN built from Linear layers: one-hot letters, torch.cat of input and
# hidden state, LogSoftmax, NLLLoss and a manual parameter update with p.data.add_.
import string

import torch
import torch.nn as nn

from _fixed import init_fixed

torch.set_default_dtype(torch.float64)
all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)


def letterToIndex(letter):
    return all_letters.find(letter)


def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


print(lineToTensor("Jones").size(), lineToTensor("J")[0, 0].nonzero())


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(input_size + hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        combined = torch.cat((input, hidden), 1)
        hidden = torch.tanh(self.i2h(combined))
        output = self.softmax(self.i2o(combined))
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


categories = ["English", "Italian", "Japanese"]
data = [("Smith", 0), ("Rossi", 1), ("Tanaka", 2), ("Jones", 0), ("Bianchi", 1), ("Suzuki", 2)]
rnn = RNN(n_letters, 12, len(categories))
init_fixed(rnn, scale=0.2, freq=0.37)

input = lineToTensor("Albert")
hidden = torch.zeros(1, 12)
output, next_hidden = rnn(input[0], hidden)
print(output)


def categoryFromOutput(output):
    top_n, top_i = output.topk(1)
    category_i = top_i[0].item()
    return categories[category_i], category_i


print(categoryFromOutput(output))
criterion = nn.NLLLoss()
learning_rate = 0.02


def train(category_tensor, line_tensor):
    hidden = rnn.initHidden()
    rnn.zero_grad()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    loss = criterion(output, category_tensor)
    loss.backward()
    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)
    return output, loss.item()


for epoch in range(25):
    total = 0.0
    for name, cat in data:
        output, loss = train(torch.tensor([cat], dtype=torch.long), lineToTensor(name))
        total += loss
    if epoch % 5 == 4:
        print(epoch, round(total / len(data), 10))

with torch.no_grad():
    for name, cat in data:
        hidden = rnn.initHidden()
        line = lineToTensor(name)
        for i in range(line.size(0)):
            output, hidden = rnn(line[i], hidden)
        topv, topi = output.topk(2, 1, True)
        print(name, categoryFromOutput(output)[0], [round(v, 6) for v in topv[0].tolist()], topi[0].tolist())
