# Fast (feed-forward) style transfer in small, in the manner of the examples' TransformerNet: a
# network of reflection-padded convolutions with affine instance norms, residual blocks and
# nearest-neighbour upsampling learns to restyle images in one pass. A frozen convolutional
# "loss network" gives named feature maps; the content loss compares one of them, the style loss
# compares gram matrices (view/transpose/bmm) at every level. Images live on a 0..255 scale and
# are normalised in place (div_) before the loss network, the optimiser is Adam, the result is
# clamped to 0..255, and the trained weights go through torch.save/torch.load in a temp folder.
import os
import re
import tempfile
from collections import namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import Adam

torch.set_default_dtype(torch.float64)
torch.manual_seed(42)


class ConvLayer(nn.Module):
    """Reflection padding of half the kernel, then a plain convolution."""

    def __init__(self, in_channels, out_channels, kernel_size, stride):
        super().__init__()
        self.reflection_pad = nn.ReflectionPad2d(kernel_size // 2)
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        return self.conv2d(self.reflection_pad(x))


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in1 = nn.InstanceNorm2d(channels, affine=True)
        self.conv2 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in2 = nn.InstanceNorm2d(channels, affine=True)
        self.relu = nn.ReLU()

    def forward(self, x):
        residual = x
        out = self.relu(self.in1(self.conv1(x)))
        out = self.in2(self.conv2(out))
        return out + residual


class UpsampleConvLayer(nn.Module):
    """Nearest-neighbour upsampling followed by a convolution (no checkerboard artefacts)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, upsample=None):
        super().__init__()
        self.upsample = upsample
        self.reflection_pad = nn.ReflectionPad2d(kernel_size // 2)
        self.conv2d = nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        if self.upsample:
            x = F.interpolate(x, mode="nearest", scale_factor=self.upsample)
        return self.conv2d(self.reflection_pad(x))


class TransformerNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = ConvLayer(3, 8, kernel_size=5, stride=1)
        self.in1 = nn.InstanceNorm2d(8, affine=True)
        self.conv2 = ConvLayer(8, 16, kernel_size=3, stride=2)
        self.in2 = nn.InstanceNorm2d(16, affine=True)
        self.res1 = ResidualBlock(16)
        self.res2 = ResidualBlock(16)
        self.deconv1 = UpsampleConvLayer(16, 8, kernel_size=3, stride=1, upsample=2)
        self.in3 = nn.InstanceNorm2d(8, affine=True)
        self.deconv2 = ConvLayer(8, 3, kernel_size=5, stride=1)
        self.relu = nn.ReLU()

    def forward(self, X):
        y = self.relu(self.in1(self.conv1(X)))
        y = self.relu(self.in2(self.conv2(y)))
        y = self.res1(y)
        y = self.res2(y)
        y = self.relu(self.in3(self.deconv1(y)))
        return self.deconv2(y)


class LossNet(nn.Module):
    """A small frozen feature extractor standing in for a pretrained VGG, in named slices."""

    def __init__(self, requires_grad=False):
        super().__init__()
        features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(2, 2),
            nn.Conv2d(8, 12, 3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(2, 2),
            nn.Conv2d(12, 16, 3, padding=1), nn.ReLU(inplace=True),
        )
        self.slice1 = nn.Sequential()
        self.slice2 = nn.Sequential()
        self.slice3 = nn.Sequential()
        for x in range(4):
            self.slice1.add_module(str(x), features[x])
        for x in range(4, 7):
            self.slice2.add_module(str(x), features[x])
        for x in range(7, 10):
            self.slice3.add_module(str(x), features[x])
        if not requires_grad:
            for param in self.parameters():
                param.requires_grad_(False)

    def forward(self, X):
        h = self.slice1(X)
        h_relu1 = h
        h = self.slice2(h)
        h_relu2 = h
        h = self.slice3(h)
        h_relu3 = h
        outputs = namedtuple("LossNetOutputs", ["relu1", "relu2", "relu3"])
        return outputs(h_relu1, h_relu2, h_relu3)


def gram_matrix(y):
    (b, ch, h, w) = y.size()
    features = y.view(b, ch, w * h)
    features_t = features.transpose(1, 2)
    return features.bmm(features_t) / (ch * h * w)


def normalize_batch(batch):
    mean = batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
    std = batch.new_tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
    batch = batch.div_(255.0)
    return (batch - mean) / std


# seeded "photographs" and a striped style image, all on the 0..255 scale
size, batch_size = 16, 2
images = torch.rand(6, 3, size, size).mul(255)
rows = torch.arange(size, dtype=torch.float64).view(1, -1, 1)
cols = torch.arange(size, dtype=torch.float64).view(1, 1, -1)
phase = torch.tensor([0.0, 1.0, 2.0]).view(-1, 1, 1)
style = (127.5 + 120 * torch.sin(0.8 * cols + 0.3 * rows + phase)).unsqueeze(0)
print(images.shape, style.shape, f"{images.mean().item():.6f}", f"{style.std().item():.6f}")

transformer = TransformerNet()
print(sum(p.numel() for p in transformer.parameters()), "trainable parameters")
print([name for name, _ in transformer.named_children()])
print(transformer.res1)
optimizer = Adam(transformer.parameters(), 1e-3)
mse_loss = nn.MSELoss()

loss_net = LossNet(requires_grad=False)
print(sum(p.numel() for p in loss_net.parameters()), all(not p.requires_grad for p in loss_net.parameters()))

style = style.repeat(batch_size, 1, 1, 1)
features_style = loss_net(normalize_batch(style))
gram_style = [gram_matrix(y) for y in features_style]
print([tuple(g.shape) for g in gram_style], features_style._fields, f"{style.max().item():.6f}")

content_weight, style_weight = 1e2, 1e6
loader = [(images[i:i + batch_size], torch.zeros(batch_size)) for i in range(0, len(images), batch_size)]
for e in range(2):
    transformer.train()
    agg_content_loss = 0.0
    agg_style_loss = 0.0
    count = 0
    for batch_id, (x, _) in enumerate(loader):
        n_batch = len(x)
        count += n_batch
        optimizer.zero_grad()

        x = x.clone()
        y = transformer(x)

        y = normalize_batch(y)
        x = normalize_batch(x)

        features_y = loss_net(y)
        features_x = loss_net(x)

        content_loss = content_weight * mse_loss(features_y.relu2, features_x.relu2)

        style_loss = 0.0
        for ft_y, gm_s in zip(features_y, gram_style):
            gm_y = gram_matrix(ft_y)
            style_loss += mse_loss(gm_y, gm_s[:n_batch, :, :])
        style_loss *= style_weight

        total_loss = content_loss + style_loss
        total_loss.backward()
        optimizer.step()

        agg_content_loss += content_loss.item()
        agg_style_loss += style_loss.item()
        print("Epoch {}:\t[{}/{}]\tcontent: {:.6f}\tstyle: {:.6f}\ttotal: {:.6f}".format(
            e + 1, count, len(images),
            agg_content_loss / (batch_id + 1),
            agg_style_loss / (batch_id + 1),
            (agg_content_loss + agg_style_loss) / (batch_id + 1)))

grad_norms = [p.grad.norm().item() for p in transformer.parameters()]
print(len(grad_norms), f"{max(grad_norms):.6e}", all(p.grad is None for p in loss_net.parameters()))
print(f"{transformer.in1.weight.mean().item():.8f}", f"{transformer.res1.in1.bias.abs().sum().item():.8f}")

# stylise: one pass in eval mode without grad, clamped to valid pixel values
transformer.eval()
content_image = torch.rand(1, 3, size, size).mul(255)
with torch.no_grad():
    output = transformer(content_image)
img = output[0].clone().clamp(0, 255)
print(output.shape, img.shape, f"{output.min().item():.6f}", f"{output.max().item():.6f}")
print(f"{img.min().item():.6f}", f"{img.max().item():.6f}", f"{img.mean().item():.6f}")
as_bytes = img.numpy().transpose(1, 2, 0).astype("uint8")
print(as_bytes.shape, as_bytes.dtype, int(as_bytes.min()), int(as_bytes.max()))

# save the weights, reload them into a fresh network (dropping any stale running_* entries)
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "epoch_2_style.model")
    torch.save(transformer.state_dict(), path)
    state_dict = torch.load(path)
    for k in list(state_dict.keys()):
        if re.search(r"in\d+\.running_(mean|var)$", k):
            del state_dict[k]
    style_model = TransformerNet()
    result = style_model.load_state_dict(state_dict)
    print(result.missing_keys, result.unexpected_keys, len(state_dict), list(state_dict)[:3])
style_model.eval()
with torch.no_grad():
    again = style_model(content_image)
print(torch.equal(again, output), again.requires_grad, f"{(again - output).abs().max().item():.3e}")
