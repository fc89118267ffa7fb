# Looking inside modules: print(model), named_parameters, named_modules, children, parameter counts,
# model.apply with nn.init, register_buffer, ModuleList/ModuleDict, add_module, hooks on activations.
import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(width, width) for _ in range(2)])
        self.acts = nn.ModuleDict({"relu": nn.ReLU(), "tanh": nn.Tanh()})
        self.register_buffer("scale", torch.tensor(0.5))

    def forward(self, x, act="relu"):
        for layer in self.layers:
            x = self.acts[act](layer(x))
        return x * self.scale


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(3, 4)
        self.block = Block(4)
        self.head = nn.Sequential(nn.Linear(4, 2), nn.Softmax(dim=1))
        self.add_module("extra", nn.Identity())

    def forward(self, x):
        return self.head(self.extra(self.block(self.stem(x))))


model = Net()
print(model)
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | requires_grad: {param.requires_grad}")
print([name for name, _ in model.named_modules()])
print([type(m).__name__ for m in model.children()])
print(sum(p.numel() for p in model.parameters()), sum(p.numel() for p in model.parameters() if p.requires_grad))
print(list(model.state_dict().keys()))
print([name for name, _ in model.named_buffers()], model.block.scale)


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.constant_(m.weight, 0.1)
        nn.init.zeros_(m.bias)


model.apply(init_weights)
x = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]])
print(model(x))
nn.init.ones_(model.stem.weight)
nn.init.eye_(model.block.layers[0].weight)
nn.init.constant_(model.block.layers[1].bias, -0.25)
print(model.stem.weight, model.block.layers[0].weight.detach().diag(), model(x).detach())
w = torch.empty(3, 5)
nn.init.xavier_uniform_(w)
print(w.abs().max().item() <= (6 / 8) ** 0.5, nn.init.calculate_gain("relu"), nn.init.calculate_gain("tanh"))
nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
print(w.shape)

activations = {}


def get_activation(name):
    def hook(module, input, output):
        activations[name] = output.detach()
    return hook


handle = model.block.register_forward_hook(get_activation("block"))
model(x)
print(activations["block"])
handle.remove()
print(model.block.layers[1], model.block.acts["tanh"], len(model.block.layers), "relu" in model.block.acts)
model.head[0] = nn.Linear(4, 3)
print(model.head)
model.requires_grad_(False)
print(any(p.requires_grad for p in model.parameters()))
print(model.stem.weight.dtype, model.float().stem.weight.dtype, model.double().stem.weight.dtype)
