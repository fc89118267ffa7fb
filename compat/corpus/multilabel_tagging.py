# Multi-label tagging, the way image-tagging and "movie genre" tutorials go about it: every sample
# may carry several tags, the network gives one logit per tag, BCEWithLogitsLoss with a pos_weight
# from the tag frequencies fights the imbalance, and the same logits are scored with
# MultiLabelSoftMarginLoss, MultiLabelMarginLoss (targets as -1-padded tag lists), a focal loss
# written by hand, and per-tag precision/recall/F1 at a 0.5 threshold.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(7)
torch.set_default_dtype(torch.float64)
NUM_FEATURES, NUM_TAGS, NUM_SAMPLES = 10, 5, 96

# tags are noisy thresholded projections of the features; the last tags are rare
features = torch.randn(NUM_SAMPLES, NUM_FEATURES)
projection = torch.randn(NUM_FEATURES, NUM_TAGS)
offsets = torch.tensor([0.0, 0.3, 0.8, 1.5, 2.0])
tags = ((features @ projection) / NUM_FEATURES ** 0.5 - offsets + 0.3 * torch.randn(NUM_SAMPLES, NUM_TAGS) > 0).double()
positives = tags.sum(dim=0)
pos_weight = (NUM_SAMPLES - positives) / positives.clamp(min=1)
print("positives per tag", positives.tolist())
print("pos_weight", pos_weight)


def focal_loss(logits, targets, gamma=2.0, alpha=0.25):
    bce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
    p_t = torch.exp(-bce)
    alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
    return (alpha_t * (1 - p_t) ** gamma * bce).mean()


def to_margin_targets(targets):
    """Tag indices first, then -1 padding: the target layout of MultiLabelMarginLoss."""
    out = torch.full(targets.shape, -1, dtype=torch.long)
    for i, row in enumerate(targets):
        on = row.nonzero().flatten()
        out[i, :len(on)] = on
    return out


model = nn.Sequential(nn.Linear(NUM_FEATURES, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, NUM_TAGS))
criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
soft_margin = nn.MultiLabelSoftMarginLoss(weight=torch.tensor([1.0, 1.0, 2.0, 3.0, 3.0]))
margin = nn.MultiLabelMarginLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.01)
loader = DataLoader(TensorDataset(features[:64], tags[:64]), batch_size=16, shuffle=True)
for epoch in range(6):
    model.train()
    total = 0.0
    for x, y in loader:
        logits = model(x)
        loss = criterion(logits, y) + 0.5 * focal_loss(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * x.size(0)
    if epoch % 2 == 1:
        print(f"epoch {epoch} loss {total / 64:.8f}")

model.eval()
with torch.no_grad():
    logits = model(features[64:])
    y = tags[64:]
    probs = torch.sigmoid(logits)
    pred = (probs > 0.5).double()
    print("bce", f"{criterion(logits, y).item():.8f}", "focal", f"{focal_loss(logits, y).item():.8f}")
    print("soft margin", f"{soft_margin(logits, y).item():.8f}", soft_margin(logits[:3], y[:3]) .shape)
    print("soft margin per sample", F.multilabel_soft_margin_loss(logits[:4], y[:4], reduction="none"))
    margin_targets = to_margin_targets(y[:6])
    print(margin_targets)
    print("margin", f"{margin(logits[:6], margin_targets).item():.8f}")
    print("margin per sample", F.multilabel_margin_loss(logits[:6], margin_targets, reduction="none"))
    tp = (pred * y).sum(dim=0)
    precision = tp / pred.sum(dim=0).clamp(min=1)
    recall = tp / y.sum(dim=0).clamp(min=1)
    f1 = 2 * precision * recall / (precision + recall).clamp(min=1e-12)
    print("precision", precision)
    print("recall", recall)
    print("f1", f1, "macro", f"{f1.mean().item():.8f}")
    print("hamming", f"{(pred != y).float().mean().item():.8f}", "exact match", (pred == y).all(dim=1).sum().item())
    top2 = probs.topk(2, dim=1)
    print(top2.indices[:4], top2.values[:4])
print(soft_margin, margin, criterion)
