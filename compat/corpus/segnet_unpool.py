# Semantic segmentation in the SegNet manner: the encoder's max pooling keeps its argmax indices
# (return_indices=True) and the decoder puts values back where they came from with MaxUnpool2d,
# trained on synthetic "blob" masks with a class-weighted pixel cross-entropy (ignore_index for
# unlabelled pixels) plus a soft Dice loss, scored with a confusion matrix from bincount and IoU.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
NUM_CLASSES, IGNORE = 3, 255


def make_batch(n, size=8):
    """Images with a bright square (class 1) and a dark stripe (class 2) on background 0."""
    images = 0.1 * torch.randn(n, 1, size, size)
    masks = torch.zeros(n, size, size, dtype=torch.long)
    for i in range(n):
        r, c = torch.randint(0, size - 3, (2,)).tolist()
        images[i, 0, r:r + 3, c:c + 3] += 1.0
        masks[i, r:r + 3, c:c + 3] = 1
        col = (c + 4) % size
        images[i, 0, :, col] -= 1.0
        masks[i, :, col] = 2
    masks[:, 0, 0] = IGNORE  # an unlabelled corner pixel
    return images, masks


def conv_bn_relu(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class SegNetTiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1, self.enc2 = conv_bn_relu(1, 8), conv_bn_relu(8, 16)
        self.pool = nn.MaxPool2d(2, stride=2, return_indices=True)
        self.unpool = nn.MaxUnpool2d(2, stride=2)
        self.dec2, self.dec1 = conv_bn_relu(16, 8), nn.Conv2d(8, NUM_CLASSES, 3, padding=1)

    def forward(self, x):
        x = self.enc1(x)
        size1 = x.size()
        x, idx1 = self.pool(x)
        x = self.enc2(x)
        size2 = x.size()
        x, idx2 = self.pool(x)
        x = self.unpool(x, idx2, output_size=size2)
        x = self.dec2(x)
        x = self.unpool(x, idx1, output_size=size1)
        return self.dec1(x)


def dice_loss(logits, target, eps=1.0):
    valid = (target != IGNORE).unsqueeze(1)
    probs = logits.softmax(dim=1) * valid
    onehot = F.one_hot(target.clamp(max=NUM_CLASSES - 1), NUM_CLASSES).permute(0, 3, 1, 2) * valid
    inter = (probs * onehot).sum(dim=(0, 2, 3))
    union = probs.sum(dim=(0, 2, 3)) + onehot.sum(dim=(0, 2, 3))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


def confusion(pred, target):
    keep = target != IGNORE
    flat = NUM_CLASSES * target[keep] + pred[keep]
    return torch.bincount(flat, minlength=NUM_CLASSES ** 2).reshape(NUM_CLASSES, NUM_CLASSES)


# the pooling indices and the unpooling, on a small example first
x = torch.arange(16.0).reshape(1, 1, 4, 4).flip(-1)
pooled, indices = F.max_pool2d(x, 2, return_indices=True)
print(pooled.flatten().tolist(), indices.flatten().tolist(), indices.dtype)
print(F.max_unpool2d(pooled, indices, 2))
print(F.max_unpool2d(pooled, indices, 2, output_size=[5, 5]).shape)
seq = torch.tensor([[[1.0, 3.0, 2.0, 5.0, 4.0, 0.0]]])
vals, where = nn.MaxPool1d(2, return_indices=True)(seq)
print(nn.MaxUnpool1d(2)(vals, where), nn.MaxUnpool2d(2), nn.MaxUnpool1d(3, stride=2, padding=1))

images, masks = make_batch(8)
counts = torch.bincount(masks[masks != IGNORE], minlength=NUM_CLASSES).double()
class_weight = counts.sum() / (NUM_CLASSES * counts)
print("pixels per class", counts.tolist(), "weights", class_weight)
model = SegNetTiny()
criterion = nn.CrossEntropyLoss(weight=class_weight, ignore_index=IGNORE)
optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
for epoch in range(15):
    model.train()
    logits = model(images)
    ce = criterion(logits, masks)
    dice = dice_loss(logits, masks)
    loss = ce + dice
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if epoch % 5 == 4:
        print(f"epoch {epoch} ce {ce.item():.8f} dice {dice.item():.8f}")

model.eval()
test_images, test_masks = make_batch(4)
with torch.no_grad():
    pred = model(test_images).argmax(dim=1)
cm = confusion(pred, test_masks)
print(cm)
iou = cm.diag() / (cm.sum(0) + cm.sum(1) - cm.diag()).clamp(min=1)
print("IoU", iou, "mIoU", f"{iou.mean().item():.8f}")
print("pixel accuracy", f"{(cm.diag().sum() / cm.sum()).item():.8f}")
print(F.cross_entropy(model(test_images), test_masks, ignore_index=IGNORE, reduction="none")[0, :2])
