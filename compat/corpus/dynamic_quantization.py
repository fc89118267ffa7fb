# Dynamic quantization, the way the tutorials do it: quantize a trained float model's Linear
# layers to int8, compare the printed model, the weights' integers and bytes, and the outputs.
import warnings

import torch
import torch.nn as nn

from _fixed import init_fixed, wave

warnings.filterwarnings("ignore")  # PyTorch 2.13 points quantization users to torchao


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


model = init_fixed(Net(), scale=0.4, freq=0.9)
model.eval()
x = wave(6, 16, freq=0.37, phase=0.2, scale=2.0)

quantized = torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
print(quantized)
print("original untouched:", type(model.fc1).__name__)

weight = quantized.fc1.weight()
print(weight.dtype, weight.qscheme(), weight.q_scale(), weight.q_zero_point())
print(weight.int_repr()[:2, :8])
print("dequantized:", weight.dequantize()[0, :4])


def weight_bytes(m):
    total = 0
    for module in m.modules():
        if isinstance(module, nn.Linear):
            total += module.weight.numel() * module.weight.element_size()
        elif hasattr(module, "_packed_params") and callable(getattr(module, "weight", None)):
            total += module.weight().int_repr().numel()
    return total


print("weight bytes:", weight_bytes(model), "->", weight_bytes(quantized))
for key, value in quantized.state_dict().items():
    print(key, type(value).__name__)

with torch.no_grad():
    reference = model(x)
    out = quantized(x)
print(out)
print("largest difference from float:", round((out - reference).abs().max().item(), 2))
print("same predictions:", torch.equal(out.argmax(dim=1), reference.argmax(dim=1)))

per_channel = torch.ao.quantization.quantize_dynamic(
    model, {nn.Linear: torch.ao.quantization.per_channel_dynamic_qconfig})
print(per_channel.fc2)
print(per_channel.fc2.weight().q_per_channel_scales())
print(per_channel(x)[0])

q = torch.quantize_per_tensor(torch.tensor([-1.0, 0.0, 0.5, 1.26, 3.0]), scale=0.02, zero_point=10, dtype=torch.quint8)
print(q)
print(q.int_repr(), q.dequantize())
