# Devices as CPU-only code meets them: choosing a device, moving tensors and models, default devices,
# the device context manager, and loading with map_location.
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device, device.type, torch.cuda.is_available(), torch.cuda.device_count())
accel = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(accel, torch.accelerator.is_available())
mps = torch.backends.mps.is_available()
print(mps)

x = torch.ones(2, 3, device=device)
print(x.device, x.is_cuda, x.to(device).device, x.cpu().device, x.to("cpu", torch.float64).dtype)
print(torch.device("cpu") == torch.device("cpu"), str(torch.device("cpu")), repr(torch.device("cpu")))
print(torch.zeros(2, device="cpu").device, torch.tensor([1, 2], device=device).device.type)

model = nn.Linear(3, 1).to(device)
print(next(model.parameters()).device, next(model.parameters()).is_cuda)
out = model(x)
print(out.shape, out.device)
torch.save(model.state_dict(), "m.pt")
state = torch.load("m.pt", map_location=device, weights_only=True)
print(sorted(state), state["weight"].device)
state = torch.load("m.pt", map_location="cpu")
print(state["bias"].shape)

torch.set_default_device("cpu")
print(torch.ones(1).device, torch.get_default_device())
with torch.device("cpu"):
    y = torch.zeros(2)
    layer = nn.Linear(2, 2)
print(y.device, layer.weight.device)
print(x.new_ones(2).device, torch.empty(1).device)
