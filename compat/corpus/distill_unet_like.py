# Knowledge distillation and a small encoder-decoder, in the manner of the distillation and
# segmentation tutorials: a teacher's softened outputs through KLDivLoss(reduction="batchmean")
# with temperature, and a U-Net-like student that downsamples with max pooling and comes back
# with ConvTranspose2d and F.interpolate, skip connections joined with torch.cat.
import torch
import torch.nn as nn
import torch.nn.functional as F

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)
images = wave(4, 1, 8, 8, freq=0.37)
labels = torch.tensor([0, 2, 1, 2])


class Teacher(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(64, 16), nn.ReLU(), nn.Linear(16, 3))

    def forward(self, x):
        return self.net(x)


class TinyUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.down1 = nn.Conv2d(1, 4, 3, padding=1)
        self.down2 = nn.Conv2d(4, 8, 3, padding=1)
        self.up = nn.ConvTranspose2d(8, 4, kernel_size=2, stride=2)
        self.fuse = nn.Conv2d(8, 4, 3, padding=1)
        self.head = nn.Conv2d(4, 1, 1)
        self.classify = nn.Linear(4, 3)

    def forward(self, x):
        s1 = F.relu(self.down1(x))
        s2 = F.relu(self.down2(F.max_pool2d(s1, 2)))
        up = self.up(s2)
        fused = F.relu(self.fuse(torch.cat([up, s1], dim=1)))
        mask = self.head(fused)
        coarse = F.interpolate(mask, scale_factor=0.5, mode="bilinear", align_corners=False)
        logits = self.classify(F.adaptive_avg_pool2d(fused, 1).flatten(1))
        return logits, mask, coarse


teacher, student = Teacher(), TinyUNet()
init_fixed(teacher, scale=0.3, freq=0.77)
init_fixed(student, scale=0.3, freq=0.51)
print(student.up, student.up.weight.shape)
teacher.eval()
T = 2.0
kl = nn.KLDivLoss(reduction="batchmean")
optimizer = torch.optim.Adam(student.parameters(), lr=0.01)
for step in range(12):
    with torch.no_grad():
        soft_targets = F.softmax(teacher(images) / T, dim=-1)
    logits, mask, coarse = student(images)
    distill = kl(F.log_softmax(logits / T, dim=-1), soft_targets) * T * T
    hard = F.cross_entropy(logits, labels, label_smoothing=0.1)
    recon = F.mse_loss(torch.sigmoid(mask), (images > 0).double())
    loss = 0.5 * distill + 0.5 * hard + recon
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 4 == 3:
        print(f"step {step} distill {distill.item():.8f} hard {hard.item():.8f} recon {recon.item():.8f}")
print(mask.shape, coarse.shape, F.interpolate(images[:1], size=(3, 5), mode="nearest").shape)
print(F.interpolate(wave(1, 1, 2, 3), scale_factor=2, mode="bilinear", align_corners=True))
print(nn.PixelShuffle(2)(wave(1, 4, 2, 2)).shape, nn.Upsample(scale_factor=2)(wave(1, 1, 2, 2))[0, 0])
