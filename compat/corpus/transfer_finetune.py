# Fine-tuning as in the transfer-learning tutorial, with a small convolutional "backbone": freeze its
# parameters, replace the final layer, optimise only the new head with a StepLR schedule, keep the
# best weights with copy.deepcopy, and count correct predictions with torch.sum(preds == labels.data).
import copy

import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim import lr_scheduler
from torch.utils.data import DataLoader, TensorDataset

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d((2, 2)))
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


model_conv = Backbone()
init_fixed(model_conv, scale=0.4, freq=1.1)
for param in model_conv.parameters():
    param.requires_grad = False
num_ftrs = model_conv.fc.in_features
model_conv.fc = nn.Linear(num_ftrs, 2)
with torch.no_grad():
    model_conv.fc.weight.copy_(torch.linspace(-0.2, 0.2, 32).reshape(2, 16))
    model_conv.fc.bias.zero_()
print(model_conv.fc, [n for n, p in model_conv.named_parameters() if p.requires_grad])
print(sum(p.numel() for p in model_conv.parameters() if p.requires_grad), sum(p.numel() for p in model_conv.parameters()))

n = 24
labels = torch.arange(n) % 2
images = torch.stack([wave(3, 6, 6, freq=0.1 + 0.2 * int(c), phase=1.5) + 0.05 * i for i, c in enumerate(labels)])
dataloaders = {
    "train": DataLoader(TensorDataset(images[:16], labels[:16]), batch_size=4),
    "val": DataLoader(TensorDataset(images[16:], labels[16:]), batch_size=4),
}
dataset_sizes = {"train": 16, "val": 8}
criterion = nn.CrossEntropyLoss()
optimizer_conv = optim.SGD(model_conv.fc.parameters(), lr=0.05, momentum=0.9)
exp_lr_scheduler = lr_scheduler.StepLR(optimizer_conv, step_size=3, gamma=0.1)

best_model_wts = copy.deepcopy(model_conv.state_dict())
best_acc = 0.0
for epoch in range(5):
    for phase in ["train", "val"]:
        model_conv.train() if phase == "train" else model_conv.eval()
        running_loss = 0.0
        running_corrects = 0
        for inputs, labels in dataloaders[phase]:
            optimizer_conv.zero_grad()
            with torch.set_grad_enabled(phase == "train"):
                outputs = model_conv(inputs)
                _, preds = torch.max(outputs, 1)
                loss = criterion(outputs, labels)
                if phase == "train":
                    loss.backward()
                    optimizer_conv.step()
            running_loss += loss.item() * inputs.size(0)
            running_corrects += torch.sum(preds == labels.data)
        if phase == "train":
            exp_lr_scheduler.step()
        epoch_loss = running_loss / dataset_sizes[phase]
        epoch_acc = running_corrects.double() / dataset_sizes[phase]
        print(f"{epoch} {phase} Loss: {epoch_loss:.6f} Acc: {epoch_acc:.4f}")
        if phase == "val" and epoch_acc > best_acc:
            best_acc = epoch_acc
            best_model_wts = copy.deepcopy(model_conv.state_dict())
print(f"Best val Acc: {best_acc:4f}")
model_conv.load_state_dict(best_model_wts)
print(model_conv.features[0].weight.grad, model_conv.fc.weight.requires_grad)
