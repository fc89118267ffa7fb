# CIFAR-style classifier on synthetic 3x16x16 images: conv/pool/linear net, CrossEntropyLoss, SGD with
# momentum, running-loss printing, accuracy with torch.max, per-class accuracy, save and reload.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)
classes = ("plane", "car", "bird")
n = 60
labels = torch.tensor([i % 3 for i in range(n)])
images = torch.stack([wave(3, 16, 16, freq=0.05 * (int(k) + 1), phase=0.01 * i) for i, k in enumerate(labels)])
trainloader = DataLoader(TensorDataset(images[:45], labels[:45]), batch_size=5, shuffle=False)
testloader = DataLoader(TensorDataset(images[45:], labels[45:]), batch_size=5, shuffle=False)

dataiter = iter(trainloader)
batch_images, batch_labels = next(dataiter)
print(batch_images.shape, " ".join(f"{classes[batch_labels[j]]:5s}" for j in range(4)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 3)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 8, 3)
        self.fc1 = nn.Linear(8 * 2 * 2, 24)
        self.fc2 = nn.Linear(24, 16)
        self.fc3 = nn.Linear(16, 3)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


net = Net()
init_fixed(net, scale=0.3, freq=0.77)
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.01, momentum=0.9)

for epoch in range(3):
    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        inputs, labels = data
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 3 == 2:
            print(f"[{epoch + 1}, {i + 1:5d}] loss: {running_loss / 3:.6f}")
            running_loss = 0.0
print("Finished Training")

PATH = "./cifar_net.pth"
torch.save(net.state_dict(), PATH)
net = Net()
net.load_state_dict(torch.load(PATH, weights_only=True))

correct = 0
total = 0
with torch.no_grad():
    for data in testloader:
        images, labels = data
        outputs = net(images)
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()
print(f"Accuracy of the network on the {total} test images: {100 * correct // total} %")

correct_pred = {classname: 0 for classname in classes}
total_pred = {classname: 0 for classname in classes}
with torch.no_grad():
    for data in testloader:
        images, labels = data
        outputs = net(images)
        _, predictions = torch.max(outputs, 1)
        for label, prediction in zip(labels, predictions):
            if label == prediction:
                correct_pred[classes[label]] += 1
            total_pred[classes[label]] += 1
for classname, correct_count in correct_pred.items():
    accuracy = 100 * float(correct_count) / total_pred[classname]
    print(f"Accuracy for class: {classname:5s} is {accuracy:.1f} %")
