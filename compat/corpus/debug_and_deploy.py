# From a training script to a deployed model, the way debugging and deployment guides go about it:
# a small AlexNet-style net (LocalResponseNorm after the first convolutions, a ShuffleNet channel
# shuffle), a 1-D convolution stack with weight normalization as vocoders use (removed for
# inference), anomaly detection to find where a NaN gradient comes from, unit-test style checks
# with torch.testing.assert_close, and Conv+BatchNorm folding before export.
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import remove_weight_norm, weight_norm
from torch.nn.utils.fusion import fuse_conv_bn_eval
from torch.testing import assert_close

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)
warnings.simplefilter("ignore", FutureWarning)  # weight_norm's deprecation notice


class TinyAlexNet(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 4, kernel_size=3, padding=1),
            nn.ReLU(inplace=True),
            nn.LocalResponseNorm(size=3, alpha=1e-2, beta=0.75, k=2.0),
            nn.MaxPool2d(kernel_size=2),
            nn.Conv2d(4, 8, kernel_size=3, padding=1, groups=2),
            nn.ChannelShuffle(2),
            nn.BatchNorm2d(8),
            nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d((2, 2)),
        )
        self.classifier = nn.Linear(8 * 2 * 2, num_classes)

    def forward(self, x):
        x = self.features(x)
        return self.classifier(torch.flatten(x, 1))


model = init_fixed(TinyAlexNet(), scale=0.4, freq=0.83)
images = wave(6, 1, 8, 8, freq=0.37)
labels = torch.tensor([0, 1, 2, 0, 1, 2])
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
model.train()
for epoch in range(4):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch}: loss {loss.item():.6f}")
print(model.features[2])
print(model.features[5])


# ---- weight normalization on a 1-D convolution stack, removed for inference ----
class ResidualStack(nn.Module):
    def __init__(self, channels=4, dilations=(1, 2, 4)):
        super().__init__()
        self.convs = nn.ModuleList(
            weight_norm(nn.Conv1d(channels, channels, 3, dilation=d, padding=d)) for d in dilations
        )

    def forward(self, x):
        for conv in self.convs:
            x = x + conv(F.leaky_relu(x, 0.1))
        return x

    def remove_weight_norm(self):
        for conv in self.convs:
            remove_weight_norm(conv)


stack = init_fixed(ResidualStack(), scale=0.3, freq=0.61)
print([name for name, _ in stack.named_parameters()][:3])
print(stack.convs[0].weight_g.shape, stack.convs[0].weight_v.shape)
signal = wave(2, 4, 16, freq=0.29)
stack_optimizer = torch.optim.Adam(stack.parameters(), lr=0.01)
for step in range(3):
    stack_optimizer.zero_grad()
    loss = stack(signal).pow(2).mean()
    loss.backward()
    stack_optimizer.step()
    print(f"stack step {step}: loss {loss.item():.6f}")
with torch.no_grad():
    before = stack(signal)
    stack.remove_weight_norm()
    after = stack(signal)
assert_close(after, before)
print(sorted(name for name, _ in stack.named_parameters())[:2], "max change", (after - before).abs().max().item() < 1e-12)


# ---- anomaly detection finds the op whose backward made a NaN ----
x = torch.tensor([4.0, 0.0, 1.0], requires_grad=True)
with torch.autograd.detect_anomaly():
    y = torch.sqrt(x)  # its gradient is infinite at 0, and 0 * inf is NaN
    z = (y * torch.tensor([1.0, 0.0, 1.0])).sum()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            z.backward()
    except RuntimeError as error:
        print("RuntimeError:", error)
    print([str(w.message).split(".")[0] for w in caught if "Error detected" in str(w.message)])
print(torch.is_anomaly_enabled())
x.grad = None
torch.sqrt(x.clamp(min=1e-6)).sum().backward()
print(x.grad)


# ---- unit-test style checks ----
def check(name, actual, expected, **kwargs):
    try:
        assert_close(actual, expected, **kwargs)
        print(name, "ok")
    except AssertionError as error:
        print(name, "failed:", str(error).splitlines()[0], "|", str(error).splitlines()[2])


check("exact", torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0]))
check("within tolerance", torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-9]))
check("outside tolerance", torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.5, 3.0]))
check("loose tolerance", torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.01]), rtol=0.01, atol=0.0)
check("nan", torch.tensor([float("nan")]), torch.tensor([float("nan")]), equal_nan=True)
check("nested", {"w": [torch.ones(2), torch.zeros(1)]}, {"w": [torch.ones(2), torch.zeros(1)]})
try:
    assert_close(torch.ones(2), torch.ones(3))
except AssertionError as error:
    print("shape:", error)


# ---- fold BatchNorm into the convolution before export ----
model.eval()
conv, bn = model.features[4], model.features[6]
fused = fuse_conv_bn_eval(conv, bn)
features = model.features[:4](images)
reference = bn(conv(features))
check("fused conv+bn", fused(features), reference)
print(fused)
print(fused.bias.detach())
with torch.no_grad():
    print(model(images).argmax(dim=1))
