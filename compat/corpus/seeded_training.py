# Training the way a first tutorial does, with nothing fixed by hand: one manual_seed, data from
# randn, layers with their default initialisation, dropout, a shuffling DataLoader. Every
# number printed depends on the seeded stream being consumed in the same order throughout.
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

# ---- a small MLP classifier on Gaussian blobs, Adam, dropout
n_samples, n_features, n_classes = 96, 6, 3
centres = torch.randn(n_classes, n_features) * 2
labels = torch.randint(0, n_classes, (n_samples,))
features = centres[labels] + torch.randn(n_samples, n_features)
loader = DataLoader(TensorDataset(features, labels), batch_size=16, shuffle=True)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_features, 32),
            nn.ReLU(),
            nn.Dropout(0.2),
            nn.Linear(32, 16),
            nn.ReLU(),
            nn.Dropout(0.1),
            nn.Linear(16, n_classes),
        )

    def forward(self, x):
        return self.net(x)


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        correct = (model(x).argmax(dim=1) == y).sum().item()
    model.train()
    return correct / len(y)


def train(model, optimizer, loader, epochs=3):
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        total, batches = 0.0, 0
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.item()
            batches += 1
        print(f"epoch {epoch + 1}: loss {total / batches:.4f}")


model = MLP()
print("first weights:", [round(v, 4) for v in model.net[0].weight[0, :3].tolist()])
train(model, torch.optim.Adam(model.parameters(), lr=1e-2), loader)
print(f"Adam accuracy: {accuracy(model, features, labels):.4f}")

model = MLP()
train(model, torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9), loader)
print(f"SGD accuracy: {accuracy(model, features, labels):.4f}")

# ---- a small CNN with Dropout2d on random "images" whose class sets a bright quadrant
images = torch.randn(48, 1, 8, 8) * 0.5
image_labels = torch.randint(0, 4, (48,))
for i, c in enumerate(image_labels.tolist()):
    row, col = divmod(c, 2)
    images[i, 0, row * 4:row * 4 + 4, col * 4:col * 4 + 4] += 2.0
image_loader = DataLoader(TensorDataset(images, image_labels), batch_size=8, shuffle=True)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.conv2 = nn.Conv2d(4, 8, 3, padding=1)
        self.drop = nn.Dropout2d(0.25)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 2 * 2, 4)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv1(x)))
        x = self.pool(torch.relu(self.drop(self.conv2(x))))
        return self.fc(torch.flatten(x, 1))


cnn = SmallCNN()
train(cnn, torch.optim.SGD(cnn.parameters(), lr=0.1, momentum=0.9), image_loader)
print(f"CNN accuracy: {accuracy(cnn, images, image_labels):.4f}")
print("stream after training:", torch.rand(2))
