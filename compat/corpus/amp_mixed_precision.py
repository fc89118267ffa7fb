# Mixed-precision training as the AMP recipes write it: the forward pass under autocast, the
# loss scaled by a GradScaler, the optimizer stepped through the scaler. On the CPU with
# float16 (the products round to 11 bits, so numbers are compared loosely). One step's
# gradient is made infinite on purpose: the scaler must skip it and halve its scale.
# compat: rtol=2e-2
import torch
import torch.nn as nn
import torch.nn.functional as F

from _fixed import init_fixed, wave

x = wave(32, 6, freq=0.37)
y = (wave(32, freq=0.91) > 0).long()
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 2))
init_fixed(model, scale=0.4, freq=0.61)
optimizer = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.5)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10, growth_interval=3)

with torch.autocast(device_type="cpu", dtype=torch.float16):
    logits = model(x)
    loss = F.cross_entropy(logits, y)
print("dtypes under autocast:", logits.dtype, loss.dtype, model[0].weight.dtype)

for step in range(8):
    optimizer.zero_grad()
    with torch.autocast(device_type="cpu", dtype=torch.float16):
        loss = F.cross_entropy(model(x), y)
    scaled = scaler.scale(loss)
    if step == 4:
        scaled = scaled * float("inf")  # an overflow: this step must be skipped
    scaled.backward()
    before = model[2].bias.detach().clone()
    scaler.step(optimizer)
    scaler.update()
    skipped = torch.equal(before, model[2].bias.detach())
    print(f"step {step} loss {loss.item():.3f} scale {scaler.get_scale():g} skipped {skipped}")

print("state:", scaler.state_dict())
with torch.no_grad():
    accuracy = (model(x).argmax(1) == y).float().mean().item()
print(f"accuracy {accuracy:.2f}")
