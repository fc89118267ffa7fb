# Regularised image-classifier training as the "bag of tricks" recipes write it: mixup with a
# Beta-distributed mixing weight, CutMix pasting a random box from a shuffled batch, soft
# (probability) targets with label smoothing in cross_entropy, gradient accumulation over
# micro-batches with clip_grad_norm_, and a linear warm-up then cosine decay through LambdaLR.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Beta

torch.manual_seed(11)
torch.set_default_dtype(torch.float64)
NUM_CLASSES, ACCUM_STEPS, WARMUP, TOTAL = 3, 2, 3, 12

images = torch.randn(32, 1, 8, 8)
labels = torch.arange(32) % NUM_CLASSES
images[labels == 0, :, :4] += 1.0  # class 0: bright top half
images[labels == 1, :, :, :4] += 1.0  # class 1: bright left half
images[labels == 2] -= 0.5  # class 2: darker overall


def mixup(x, y, alpha=0.4):
    lam = Beta(torch.tensor(alpha), torch.tensor(alpha)).sample().item()
    perm = torch.randperm(x.size(0))
    return lam * x + (1 - lam) * x[perm], y, y[perm], lam


def rand_box(height, width, lam):
    cut = math.sqrt(1.0 - lam)
    h, w = int(height * cut), int(width * cut)
    cy, cx = torch.randint(height, (1,)).item(), torch.randint(width, (1,)).item()
    y1, y2 = max(cy - h // 2, 0), min(cy + h // 2, height)
    x1, x2 = max(cx - w // 2, 0), min(cx + w // 2, width)
    return y1, y2, x1, x2


def cutmix(x, y, alpha=1.0):
    lam = torch.distributions.Beta(alpha, alpha).sample().item()
    perm = torch.randperm(x.size(0))
    y1, y2, x1, x2 = rand_box(x.size(2), x.size(3), lam)
    x = x.clone()
    x[:, :, y1:y2, x1:x2] = x[perm, :, y1:y2, x1:x2]
    lam = 1 - (y2 - y1) * (x2 - x1) / (x.size(2) * x.size(3))  # the area actually pasted
    return x, y, y[perm], lam


def soft_targets(y_a, y_b, lam, smoothing=0.1):
    one_a, one_b = F.one_hot(y_a, NUM_CLASSES).double(), F.one_hot(y_b, NUM_CLASSES).double()
    mixed = lam * one_a + (1 - lam) * one_b
    return mixed * (1 - smoothing) + smoothing / NUM_CLASSES


def warmup_cosine(step):
    if step < WARMUP:
        return (step + 1) / WARMUP
    progress = (step - WARMUP) / (TOTAL - WARMUP)
    return 0.5 * (1 + math.cos(math.pi * progress))


model = nn.Sequential(
    nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, NUM_CLASSES),
)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=5e-4)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=warmup_cosine)
dist = Beta(torch.tensor([0.4, 2.0]), torch.tensor([0.4, 5.0]))
print(dist.mean, dist.variance, dist.log_prob(torch.tensor([0.3, 0.3])), dist.entropy())
for step in range(TOTAL):
    model.train()
    optimizer.zero_grad()
    for micro in range(ACCUM_STEPS):
        idx = torch.randint(0, 32, (8,))
        x, y = images[idx], labels[idx]
        if (step + micro) % 2 == 0:
            x, y_a, y_b, lam = mixup(x, y)
            loss = lam * F.cross_entropy(model(x), y_a) + (1 - lam) * F.cross_entropy(model(x), y_b)
        else:
            x, y_a, y_b, lam = cutmix(x, y)
            loss = F.cross_entropy(model(x), soft_targets(y_a, y_b, lam))
        (loss / ACCUM_STEPS).backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=2.0)
    optimizer.step()
    scheduler.step()
    print(f"step {step} lam {lam:.8f} loss {loss.item():.8f} norm {norm.item():.8f} lr {scheduler.get_last_lr()[0]:.8f}")

model.eval()
with torch.no_grad():
    logits = model(images)
    print("accuracy", (logits.argmax(1) == labels).double().mean().item())
    target = soft_targets(labels, labels.roll(1), 0.7)
    print("soft ce", f"{F.cross_entropy(logits, target).item():.8f}",
          f"{F.cross_entropy(logits, target, label_smoothing=0.2).item():.8f}")
    print(F.cross_entropy(logits[:4], target[:4], reduction="none"))
    print(F.cross_entropy(logits, labels, label_smoothing=0.1, weight=torch.tensor([1.0, 2.0, 0.5])).item())
