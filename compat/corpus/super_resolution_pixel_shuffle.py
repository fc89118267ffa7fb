# Single-image super-resolution in the manner of the examples' sub-pixel network: a stack of
# convolutions ending in upscale_factor**2 channels that nn.PixelShuffle rearranges into an image
# upscale_factor times larger. Weights start orthogonal (scaled by the ReLU gain), the data are
# seeded grey-scale images whose low-resolution inputs come from F.avg_pool2d, training is Adam
# on MSE, and each epoch reports the test PSNR (10 * log10(1 / mse)). The whole model is then
# checkpointed with torch.save and reloaded under torch.serialization.safe_globals to upscale a
# new image, clipped to 0..255 bytes with NumPy.
import os
import tempfile
from math import log10

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.init as init
import torch.optim as optim
import torch.utils.data as data
from torch.utils.data import DataLoader

torch.set_default_dtype(torch.float64)
torch.manual_seed(123)
upscale_factor = 3


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super(Net, self).__init__()
        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 16, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(16, 16, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(16, 8, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(8, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)
        self._initialize_weights()

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        x = self.pixel_shuffle(self.conv4(x))
        return x

    def _initialize_weights(self):
        init.orthogonal_(self.conv1.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv2.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv3.weight, init.calculate_gain("relu"))
        init.orthogonal_(self.conv4.weight)


def smooth_images(n, size):
    """Seeded grey-scale pictures in [0, 1]: blurred noise plus a gradient."""
    noise = torch.rand(n, 1, size + 4, size + 4)
    blurred = F.avg_pool2d(noise, kernel_size=5, stride=1)
    ramp = torch.linspace(0, 1, size).view(1, 1, 1, -1)
    return (0.6 * blurred + 0.4 * ramp).clamp(0, 1)


class PairsFromImages(data.Dataset):
    """(low-resolution input, high-resolution target) pairs made by transforms, as a folder dataset would."""

    def __init__(self, images, input_transform=None, target_transform=None):
        super(PairsFromImages, self).__init__()
        self.images = images
        self.input_transform = input_transform
        self.target_transform = target_transform

    def __getitem__(self, index):
        input = self.images[index]
        target = input.clone()
        if self.input_transform:
            input = self.input_transform(input)
        if self.target_transform:
            target = self.target_transform(target)
        return input, target

    def __len__(self):
        return len(self.images)


def calculate_valid_crop_size(crop_size, upscale_factor):
    return crop_size - (crop_size % upscale_factor)


crop_size = calculate_valid_crop_size(20, upscale_factor)


def center_crop(img):
    top = (img.shape[-2] - crop_size) // 2
    left = (img.shape[-1] - crop_size) // 2
    return img[:, top:top + crop_size, left:left + crop_size]


def input_transform(img):
    return F.avg_pool2d(center_crop(img).unsqueeze(0), upscale_factor).squeeze(0)


train_set = PairsFromImages(smooth_images(12, 22), input_transform=input_transform, target_transform=center_crop)
test_set = PairsFromImages(smooth_images(4, 22), input_transform=input_transform, target_transform=center_crop)
sample_in, sample_target = train_set[0]
print(len(train_set), sample_in.shape, sample_target.shape, crop_size)
print(f"{sample_in.mean().item():.8f} {sample_target.mean().item():.8f}")
training_data_loader = DataLoader(dataset=train_set, batch_size=4, shuffle=True)
testing_data_loader = DataLoader(dataset=test_set, batch_size=2, shuffle=False)

print("===> Building model")
model = Net(upscale_factor=upscale_factor)
print(model)
w = model.conv2.weight.view(16, -1)
print(f"{init.calculate_gain('relu'):.8f}", torch.allclose(w @ w.t(), 2 * torch.eye(16)),
      f"{w.norm().item():.8f}", f"{model.conv4.weight.abs().max().item():.8f}")
criterion = nn.MSELoss()
optimizer = optim.Adam(model.parameters(), lr=0.01)


def train(epoch):
    epoch_loss = 0
    for iteration, batch in enumerate(training_data_loader, 1):
        input, target = batch[0], batch[1]
        optimizer.zero_grad()
        loss = criterion(model(input), target)
        epoch_loss += loss.item()
        loss.backward()
        optimizer.step()
        print("===> Epoch[{}]({}/{}): Loss: {:.6f}".format(epoch, iteration, len(training_data_loader), loss.item()))
    print("===> Epoch {} Complete: Avg. Loss: {:.6f}".format(epoch, epoch_loss / len(training_data_loader)))


def test():
    avg_psnr = 0
    with torch.no_grad():
        for batch in testing_data_loader:
            input, target = batch[0], batch[1]
            prediction = model(input)
            mse = criterion(prediction, target)
            psnr = 10 * log10(1 / mse.item())
            avg_psnr += psnr
    print("===> Avg. PSNR: {:.4f} dB".format(avg_psnr / len(testing_data_loader)))
    return avg_psnr / len(testing_data_loader)


# the baseline any upscaler must beat: repeat each low-resolution pixel (nearest neighbour)
with torch.no_grad():
    baseline = [criterion(F.interpolate(i, scale_factor=upscale_factor, mode="nearest"), t).item()
                for i, t in testing_data_loader]
print("nearest-neighbour PSNR: {:.4f} dB".format(sum(10 * log10(1 / m) for m in baseline) / len(baseline)))

psnrs = []
for epoch in range(1, 4):
    train(epoch)
    psnrs.append(test())
print("PSNR improved:", psnrs[-1] > psnrs[0])

# checkpoint the whole model object, then load it back the way the upscaling script does
with tempfile.TemporaryDirectory() as folder:
    model_out_path = os.path.join(folder, "model_epoch_{}.pth".format(3))
    torch.save(model, model_out_path)
    print("Checkpoint saved to {}".format(os.path.basename(model_out_path)))
    try:
        torch.load(model_out_path)
    except Exception as err:
        print("plain load refused:", type(err).__name__)
    with open(model_out_path, "rb") as f:
        safe_globals = [
            Net,
            torch.nn.modules.activation.ReLU,
            torch.nn.modules.conv.Conv2d,
            torch.nn.modules.pixelshuffle.PixelShuffle,
        ]
        with torch.serialization.safe_globals(safe_globals):
            loaded = torch.load(f)
print(type(loaded).__name__, loaded.training, loaded.pixel_shuffle.upscale_factor)

y = smooth_images(1, 10)[0, 0]
input = y.view(1, -1, y.shape[0], y.shape[1])
out = loaded(input)
print(out.shape, out.requires_grad, type(out.grad_fn).__name__)
out_img_y = out[0].detach().numpy()
out_img_y *= 255.0
out_img_y = out_img_y.clip(0, 255)
pixels = np.uint8(out_img_y[0])
print(pixels.shape, pixels.dtype, int(pixels.min()), int(pixels.max()))
# numpy() shares the tensor's memory: the in-place *= 255 above scaled `out` itself
print(f"{out.max().item():.6f}", torch.allclose(out, model(input) * 255), torch.allclose(out / 255, loaded(input)))
