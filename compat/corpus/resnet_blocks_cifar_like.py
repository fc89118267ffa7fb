# A small ResNet in the manner of the CIFAR-10 ResNet examples: BasicBlock with a 1x1
# convolution + BatchNorm downsample shortcut, kaiming_normal_ initialisation over
# model.modules(), AdaptiveAvgPool2d and torch.flatten(x, 1), label-smoothed cross entropy,
# SGD with Nesterov momentum and weight decay under OneCycleLR, gradient clipping, and a
# model.eval() accuracy pass. The "images" are random 32x32 tensors with a class-dependent tint.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != self.expansion * planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_planes, self.expansion * planes, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(self.expansion * planes),
            )

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        return F.relu(out)


class ResNet(nn.Module):
    def __init__(self, block, num_blocks, num_classes=4):
        super().__init__()
        self.in_planes = 8
        self.conv1 = nn.Conv2d(3, 8, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.layer1 = self._make_layer(block, 8, num_blocks[0], stride=1)
        self.layer2 = self._make_layer(block, 16, num_blocks[1], stride=2)
        self.layer3 = self._make_layer(block, 32, num_blocks[2], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(32 * block.expansion, num_classes)

        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)

    def _make_layer(self, block, planes, num_blocks, stride):
        strides = [stride] + [1] * (num_blocks - 1)
        layers = []
        for stride in strides:
            layers.append(block(self.in_planes, planes, stride))
            self.in_planes = planes * block.expansion
        return nn.Sequential(*layers)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layer1(x)
        x = self.layer2(x)
        x = self.layer3(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.fc(x)


model = ResNet(BasicBlock, [1, 1, 1])
n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
n_buffers = sum(b.numel() for b in model.buffers())
print("params:", n_params, "buffers:", n_buffers)
print("downsample:", [type(m).__name__ for m in model.layer2[0].shortcut], len(model.layer1[0].shortcut))
w = model.layer2[0].conv1.weight
print("kaiming std ~", round(w.std().item(), 2), "expected", round((2.0 / (16 * 9)) ** 0.5, 2))

num_classes, n_images = 4, 64
labels = torch.randint(0, num_classes, (n_images,))
images = torch.randn(n_images, 3, 32, 32) * 0.5
tint = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
images += tint[labels].view(n_images, 3, 1, 1)
mean = images.mean(dim=(0, 2, 3), keepdim=True)
std = images.std(dim=(0, 2, 3), keepdim=True)
images = (images - mean) / std

epochs, batch_size = 3, 16
steps_per_epoch = n_images // batch_size
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=epochs,
                                                steps_per_epoch=steps_per_epoch)

for epoch in range(epochs):
    model.train()
    perm = torch.randperm(n_images)
    running_loss, correct, total = 0.0, 0, 0
    for i in range(steps_per_epoch):
        idx = perm[i * batch_size:(i + 1) * batch_size]
        inputs, targets = images[idx], labels[idx]
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        grad_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=2.0)
        optimizer.step()
        scheduler.step()
        running_loss += loss.item()
        _, predicted = outputs.max(1)
        total += targets.size(0)
        correct += predicted.eq(targets).sum().item()
    print(f"epoch {epoch} loss {running_loss / steps_per_epoch:.5f} train acc {100.0 * correct / total:.2f}"
          f" lr {scheduler.get_last_lr()[0]:.6f} last grad norm {grad_norm.item():.4f}")

print("running stats:", round(model.bn1.running_mean.abs().mean().item(), 5),
      round(model.bn1.running_var.mean().item(), 5), model.bn1.num_batches_tracked.item())

model.eval()
correct = 0
with torch.no_grad():
    logits = model(images)
    correct = (logits.argmax(dim=1) == labels).sum().item()
    probs = F.softmax(logits, dim=1)
print(f"eval accuracy {100.0 * correct / n_images:.2f}%", probs.shape,
      [round(v, 4) for v in probs[0].tolist()])
