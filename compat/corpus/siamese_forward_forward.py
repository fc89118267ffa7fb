# Two small programs from the examples collection, on seeded synthetic data.
# (a) A siamese network: one convolutional tower (conv, batch norm, pooling) embeds both images of a
#     pair, the two embeddings are concatenated and a small head with a sigmoid says "same class?";
#     pairs are drawn with Python's random module inside a Dataset, the loss is nn.BCELoss, the
#     optimiser Adadelta under a StepLR schedule, and accuracy counts torch.where(p > 0.5, 1, 0).
# (b) The forward-forward algorithm: no backward pass through the whole net. Each layer is an
#     nn.Linear subclass with its own Adam optimiser and is trained alone to give high "goodness"
#     (mean squared activation) to inputs carrying the right label and low goodness to inputs
#     carrying a wrong one; the label is written into the first pixels by slice assignment, and
#     each trained layer's detached outputs feed the next.
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim import Adam
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, Dataset

torch.set_default_dtype(torch.float64)

# ---------------------------------------------------------------- (a) siamese network

torch.manual_seed(1)
random.seed(1)
num_classes, image_size = 4, 10
grid = torch.arange(image_size, dtype=torch.float64)
# one stripe pattern per class: horizontal, vertical and two diagonals
directions = [(1.0, 0.0), (0.0, 1.0), (0.7, 0.7), (0.7, -0.7)]
prototypes = torch.stack([0.5 + 0.5 * torch.sin(1.6 * (a * grid.view(-1, 1) + b * grid.view(1, -1)))
                          for a, b in directions]).unsqueeze(1)


def make_images(per_class):
    labels = torch.arange(num_classes).repeat_interleave(per_class)
    noise = 0.35 * torch.randn(len(labels), 1, image_size, image_size)
    return (prototypes[labels] + noise).clamp(0, 1), labels


class PairMatcher(Dataset):
    """Even indices give two different images of one class (target 1), odd ones two classes (target 0)."""

    def __init__(self, per_class):
        super(PairMatcher, self).__init__()
        self.data, self.targets = make_images(per_class)
        self.group_examples()

    def group_examples(self):
        self.grouped_examples = {}
        for i in range(num_classes):
            self.grouped_examples[i] = torch.nonzero(self.targets == i).flatten()

    def __len__(self):
        return self.data.shape[0]

    def __getitem__(self, index):
        selected_class = random.randint(0, num_classes - 1)
        group = self.grouped_examples[selected_class]
        random_index_1 = random.randint(0, group.shape[0] - 1)
        image_1 = self.data[group[random_index_1]].clone()
        if index % 2 == 0:
            random_index_2 = random.randint(0, group.shape[0] - 1)
            while random_index_2 == random_index_1:
                random_index_2 = random.randint(0, group.shape[0] - 1)
            image_2 = self.data[group[random_index_2]].clone()
            target = torch.tensor(1, dtype=torch.get_default_dtype())
        else:
            other_selected_class = random.randint(0, num_classes - 1)
            while other_selected_class == selected_class:
                other_selected_class = random.randint(0, num_classes - 1)
            other = self.grouped_examples[other_selected_class]
            image_2 = self.data[other[random.randint(0, other.shape[0] - 1)]].clone()
            target = torch.tensor(0, dtype=torch.get_default_dtype())
        return image_1, image_2, target


class SiameseNetwork(nn.Module):
    def __init__(self):
        super(SiameseNetwork, self).__init__()
        self.tower = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(8),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(16),
            nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d((1, 1)),
        )
        self.fc_in_features = 16
        self.fc = nn.Sequential(
            nn.Linear(self.fc_in_features * 2, 32),
            nn.ReLU(inplace=True),
            nn.Linear(32, 1),
        )
        self.sigmoid = nn.Sigmoid()
        self.tower.apply(self.init_weights)
        self.fc.apply(self.init_weights)

    def init_weights(self, m):
        if isinstance(m, nn.Linear):
            torch.nn.init.xavier_uniform_(m.weight)
            m.bias.data.fill_(0.01)

    def forward_once(self, x):
        output = self.tower(x)
        return output.view(output.size()[0], -1)

    def forward(self, input1, input2):
        output1 = self.forward_once(input1)
        output2 = self.forward_once(input2)
        output = torch.cat((output1, output2), 1)
        return self.sigmoid(self.fc(output))


def train(model, train_loader, optimizer, epoch, log_interval=3):
    model.train()
    criterion = nn.BCELoss()
    for batch_idx, (images_1, images_2, targets) in enumerate(train_loader):
        optimizer.zero_grad()
        outputs = model(images_1, images_2).squeeze()
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        if batch_idx % log_interval == 0:
            print("Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}".format(
                epoch, batch_idx * len(images_1), len(train_loader.dataset),
                100.0 * batch_idx / len(train_loader), loss.item()))


def test(model, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    criterion = nn.BCELoss()
    with torch.no_grad():
        for images_1, images_2, targets in test_loader:
            outputs = model(images_1, images_2).squeeze()
            test_loss += criterion(outputs, targets).sum().item()
            pred = torch.where(outputs > 0.5, 1, 0)
            correct += pred.eq(targets.view_as(pred)).sum().item()
    test_loss /= len(test_loader.dataset)
    print("Test set: Average loss: {:.6f}, Accuracy: {}/{} ({:.0f}%)".format(
        test_loss, correct, len(test_loader.dataset), 100.0 * correct / len(test_loader.dataset)))
    return correct


train_dataset = PairMatcher(per_class=12)
test_dataset = PairMatcher(per_class=6)
first = train_dataset[0]
print(len(train_dataset), len(test_dataset), first[0].shape, first[2].dtype, first[2].item(),
      [len(g) for g in train_dataset.grouped_examples.values()])
train_loader = DataLoader(train_dataset, batch_size=8, shuffle=True)
test_loader = DataLoader(test_dataset, batch_size=12)

model = SiameseNetwork()
print(model.fc, f"{model.fc[0].weight.abs().max().item():.8f}", model.fc[2].bias.tolist())
optimizer = optim.Adadelta(model.parameters(), lr=1.0)
scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
for epoch in range(1, 6):
    train(model, train_loader, optimizer, epoch)
    test(model, test_loader)
    scheduler.step()
    print("lr", round(scheduler.get_last_lr()[0], 6), optimizer.param_groups[0]["lr"] == scheduler.get_last_lr()[0])
bn = model.tower[1]
print(bn.num_batches_tracked.item(), f"{bn.running_mean.abs().sum().item():.6f}", f"{bn.running_var.mean().item():.6f}")

# ---------------------------------------------------------------- (b) forward-forward

torch.manual_seed(2)
classes, features = 10, 40
threshold, lr, layer_epochs, log_interval = 2.0, 0.03, 60, 20
centres = torch.randn(classes, features)


def make_digits(n):
    y = torch.randint(classes, (n,))
    x = centres[y] + 0.6 * torch.randn(n, features)
    return x, y


def get_y_neg(y):
    y_neg = y.clone()
    for idx, y_samp in enumerate(y):
        allowed_indices = list(range(classes))
        allowed_indices.remove(y_samp.item())
        y_neg[idx] = torch.tensor(allowed_indices)[torch.randint(len(allowed_indices), size=(1,))].item()
    return y_neg


def overlay_y_on_x(x, y):
    """The label as a one-hot written over the first `classes` entries, at the input's max value."""
    x_ = x.clone()
    x_[:, :classes] *= 0.0
    x_[range(x.shape[0]), y] = x.max()
    return x_


class Layer(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None, softplus=False):
        super().__init__(in_features, out_features, bias, device, dtype)
        self.relu = torch.nn.ReLU()
        self.opt = Adam(self.parameters(), lr=lr)
        self.threshold = threshold
        self.num_epochs = layer_epochs
        self.softplus = softplus

    def forward(self, x):
        x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return self.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))

    def train(self, x_pos, x_neg):
        for i in range(self.num_epochs):
            g_pos = self.forward(x_pos).pow(2).mean(1)
            g_neg = self.forward(x_neg).pow(2).mean(1)
            margins = torch.cat([-g_pos + self.threshold, g_neg - self.threshold])
            if self.softplus:
                loss = F.softplus(margins).mean()
            else:
                loss = torch.log(1 + torch.exp(margins)).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            if i % log_interval == 0:
                print("Loss: {:.6f}".format(loss.item()))
        return self.forward(x_pos).detach(), self.forward(x_neg).detach()


class Net(torch.nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.layers = []
        for d in range(len(dims) - 1):
            self.layers = self.layers + [Layer(dims[d], dims[d + 1], softplus=d % 2 == 1)]

    def predict(self, x):
        goodness_per_label = []
        for label in range(classes):
            h = overlay_y_on_x(x, label)
            goodness = []
            for layer in self.layers:
                h = layer(h)
                goodness = goodness + [h.pow(2).mean(1)]
            goodness_per_label += [sum(goodness).unsqueeze(1)]
        goodness_per_label = torch.cat(goodness_per_label, 1)
        return goodness_per_label.argmax(1)

    def train(self, x_pos, x_neg):
        h_pos, h_neg = x_pos, x_neg
        for i, layer in enumerate(self.layers):
            print("training layer: ", i)
            h_pos, h_neg = layer.train(h_pos, h_neg)


x, y = make_digits(200)
x_te, y_te = make_digits(100)
net = Net([features, 32, 32])
print(len(net.layers), len(list(net.parameters())), [tuple(layer.weight.shape) for layer in net.layers])
x_pos = overlay_y_on_x(x, y)
y_neg = get_y_neg(y)
x_neg = overlay_y_on_x(x, y_neg)
print(y[:8].tolist(), y_neg[:8].tolist(), bool((y_neg != y).all()))
print(f"{x.max().item():.8f}", x_pos[:2, :4].tolist() == [[0.0 if j != y[i] else x.max().item() for j in range(4)] for i in range(2)])
net.train(x_pos, x_neg)
print("first weights moved:", [f"{layer.weight.norm().item():.6f}" for layer in net.layers])
print("train error: {:.4f}".format(1.0 - net.predict(x).eq(y).float().mean().item()))
print("test error: {:.4f}".format(1.0 - net.predict(x_te).eq(y_te).float().mean().item()))
z = torch.linspace(-3, 3, 7)
print(torch.allclose(F.softplus(z), torch.log(1 + torch.exp(z))), torch.allclose(F.softplus(z), torch.log1p(torch.exp(z))))
