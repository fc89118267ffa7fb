# A spatial transformer in the manner of the spatial-transformer-network tutorial: a small
# localisation network predicts an affine transform per image (started at the identity),
# affine_grid and grid_sample warp the input with it, and a classifier reads the warped image;
# a few SGD steps train both together. The images are deterministic waves, so both libraries
# start from the same numbers.
import torch
import torch.nn as nn
import torch.nn.functional as F

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)
images = wave(8, 1, 12, 12, freq=0.31)
labels = torch.arange(8) % 3


class SpatialTransformerNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.localization = nn.Sequential(nn.Conv2d(1, 4, kernel_size=5), nn.MaxPool2d(2), nn.ReLU())
        self.fc_loc = nn.Sequential(nn.Linear(4 * 4 * 4, 16), nn.ReLU(), nn.Linear(16, 6))
        self.classifier = nn.Sequential(nn.Conv2d(1, 6, 3), nn.ReLU(), nn.Flatten(), nn.Linear(6 * 10 * 10, 3))

    def stn(self, x):
        xs = self.localization(x).view(-1, 4 * 4 * 4)
        theta = self.fc_loc(xs).view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        return F.grid_sample(x, grid, align_corners=False), theta

    def forward(self, x):
        warped, theta = self.stn(x)
        return self.classifier(warped), theta


model = init_fixed(SpatialTransformerNet(), scale=0.1, freq=0.23)
with torch.no_grad():  # start at the identity transform, as the tutorial does
    model.fc_loc[2].weight.zero_()
    model.fc_loc[2].bias.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float64))

warped, theta = model.stn(images)
print(theta[0].tolist(), round((warped - images).abs().max().item(), 10))

optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for step in range(4):
    optimizer.zero_grad()
    logits, theta = model(images)
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 10), [round(v, 8) for v in theta[1].flatten().tolist()])

with torch.no_grad():
    shifted = F.affine_grid(torch.tensor([[[0.8, 0.1, 0.2], [-0.1, 0.9, -0.1]]]).expand(8, 2, 3), images.size(),
                            align_corners=True)
    for padding in ("zeros", "border", "reflection"):
        out = F.grid_sample(images, shifted * 1.3, padding_mode=padding, align_corners=True)
        print(padding, round(out.sum().item(), 8), round(out[2, 0, 5].norm().item(), 8))
    print(F.grid_sample(images, shifted, mode="nearest", align_corners=True)[0, 0, 0, :4].tolist())
