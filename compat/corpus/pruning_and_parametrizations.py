# Sparsity and constrained weights, the way the pruning and parametrization tutorials go about it:
# a small LeNet-style net pruned layer by layer (random, L1 magnitude, structured by channel norm),
# globally across layers, and with a pruning method of our own; the `_orig` parameters, `_mask`
# buffers and forward pre-hooks that pruning leaves, made permanent with prune.remove. Then
# parametrizations: a symmetric weight, a skew-symmetric constraint with a
# right_inverse, caching, removal with and without keeping the parametrized value, and the
# built-in orthogonal parametrization kept orthogonal while training.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.parametrize as parametrize
import torch.nn.utils.prune as prune
from torch.nn.utils import parametrizations

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)


class LeNetish(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3)
        self.conv2 = nn.Conv2d(4, 6, 3)
        self.fc1 = nn.Linear(6 * 2 * 2, 10)
        self.fc2 = nn.Linear(10, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.conv2(x))
        x = torch.flatten(F.adaptive_avg_pool2d(x, 2), 1)
        return self.fc2(F.relu(self.fc1(x)))


def sparsity(tensor):
    return f"{100.0 * float((tensor == 0).sum()) / tensor.nelement():.2f}%"


model = init_fixed(LeNetish(), scale=0.4, freq=0.83)
images = wave(5, 1, 10, 10, freq=0.41)
labels = torch.tensor([0, 1, 2, 1, 0])

# ---- what a module holds before and after pruning ----
# random pruning on a spare layer: which entries go depends on the generator, how many does not
spare = init_fixed(nn.Conv2d(1, 4, 3), scale=0.4)
print("before:", [name for name, _ in spare.named_parameters()], list(spare.named_buffers()))
torch.manual_seed(0)
prune.random_unstructured(spare, name="weight", amount=0.3)
print("after:", [name for name, _ in spare.named_parameters()], [name for name, _ in spare.named_buffers()])
print("mask zeros:", int((spare.weight_mask == 0).sum()), "of", spare.weight_mask.numel())
print("weight is orig*mask:", torch.equal(spare.weight, spare.weight_orig * spare.weight_mask))
print("weight is a parameter:", isinstance(spare.weight, nn.Parameter), "orig:", isinstance(spare.weight_orig, nn.Parameter))
hooks = list(spare._forward_pre_hooks.values())
print("pre-hooks:", len(hooks), type(hooks[0]).__name__, hooks[0]._tensor_name, hooks[0].amount)

conv1 = model.conv1
prune.l1_unstructured(conv1, name="weight", amount=0.25)
print("conv1 weight mask:", conv1.weight_mask.flatten().int().tolist())

# L1 on the bias: the smallest magnitudes go
prune.l1_unstructured(conv1, name="bias", amount=2)
print("bias:", conv1.bias.detach(), "mask:", conv1.bias_mask)
print("buffers:", [name for name, _ in conv1.named_buffers()])

# pruning the same tensor again composes: a PruningContainer remembers the history
prune.ln_structured(conv1, name="weight", amount=0.5, n=2, dim=0)
hook = next(h for h in conv1._forward_pre_hooks.values() if h._tensor_name == "weight")
print("container:", type(hook).__name__, [type(m).__name__ for m in hook])
channel_norms = conv1.weight.detach().flatten(1).norm(dim=1)
print("channels kept:", (channel_norms > 0).tolist())
print("conv1 weight sparsity:", sparsity(conv1.weight))

# ---- structured pruning of a linear layer by rows, L1 norm ----
prune.ln_structured(model.fc1, name="weight", amount=0.3, n=1, dim=0)
print("fc1 rows pruned:", (model.fc1.weight.detach().abs().sum(dim=1) == 0).nonzero().flatten().tolist())

# ---- global magnitude pruning across layers ----
parameters_to_prune = ((model.conv2, "weight"), (model.fc1, "weight"), (model.fc2, "weight"))
prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.4)
for module, name in parameters_to_prune:
    print(type(module).__name__, name, sparsity(getattr(module, name)))
total_zero = sum(int((getattr(m, n) == 0).sum()) for m, n in parameters_to_prune)
total = sum(getattr(m, n).nelement() for m, n in parameters_to_prune)
print(f"global sparsity: {100.0 * total_zero / total:.2f}%")
print("pruned?", prune.is_pruned(model), prune.is_pruned(nn.Linear(2, 2)))


# ---- a pruning method of our own ----
class EveryOther(prune.BasePruningMethod):
    """Zero every other entry of the flattened tensor."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def every_other(module, name):
    EveryOther.apply(module, name)
    return module


every_other(model.fc2, "bias")
print("fc2 bias mask:", model.fc2.bias_mask)
print("fc2 bias:", model.fc2.bias.detach())

# ---- masks from elsewhere: a given mask, importance scores, and identity ----
extra = init_fixed(nn.Linear(3, 2), scale=0.5, freq=1.1)
prune.custom_from_mask(extra, name="weight", mask=torch.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]))
print("custom mask:", extra.weight.detach())
prune.l1_unstructured(extra, name="bias", amount=0.5, importance_scores=torch.tensor([5.0, 1.0]))
print("bias by importance:", extra.bias.detach(), extra.bias_mask)
prune.identity(extra, name="weight")
print("identity keeps:", int(extra.weight_mask.sum()), "of", extra.weight_mask.numel())
print("state_dict of a pruned layer:", list(extra.state_dict().keys()))
copy = init_fixed(nn.Linear(3, 2), scale=0.2)
prune.identity(copy, "weight")
prune.identity(copy, "bias")
copy.load_state_dict(extra.state_dict())
print("loaded masks:", copy.weight_mask.tolist(), "weight recomputed yet:", torch.equal(copy.weight, extra.weight))
copy(wave(1, 3))  # the forward pre-hook recomputes weight from weight_orig * weight_mask
print("after a forward:", torch.equal(copy.weight, extra.weight))
try:
    prune.l1_unstructured(nn.Linear(2, 2), name="weight", amount=5)
except ValueError as error:
    print("ValueError:", error)
try:
    prune.random_unstructured(nn.Linear(2, 2), name="weight", amount=1.5)
except ValueError as error:
    print("ValueError:", error)

# ---- fine-tune the pruned net: masks keep pruned entries at zero ----
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for step in range(4):
    optimizer.zero_grad()
    loss = F.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()
    print(f"prune step {step}: loss {loss.item():.6f}")
pruned_grads = model.fc1.weight_orig.grad[model.fc1.weight_mask == 0]
print("pruned entries get no gradient:", bool((pruned_grads == 0).all()), pruned_grads.numel())
print("fc1 sparsity after training:", sparsity(model.fc1.weight))

# ---- make it permanent ----
for module, name in [(model.conv1, "weight"), (model.conv1, "bias"), (model.fc1, "weight"),
                     (model.conv2, "weight"), (model.fc2, "weight"), (model.fc2, "bias")]:
    prune.remove(module, name)
print("after remove:", sorted(name for name, _ in model.named_parameters()))
print("buffers left:", [name for name, _ in model.named_buffers()], "hooks left:", len(model.fc1._forward_pre_hooks))
print("zeros stay:", sparsity(model.fc1.weight), sparsity(model.conv1.weight))
state = model.state_dict()
print("state_dict keys:", list(state.keys()))
try:
    prune.remove(model.fc1, "weight")
except ValueError as error:
    print("ValueError:", error)
with torch.no_grad():
    print("pruned net predicts:", model(images).argmax(dim=1).tolist())


# ---- parametrizations: a symmetric weight ----
class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


layer = init_fixed(nn.Linear(4, 4), scale=0.5, freq=0.9)
parametrize.register_parametrization(layer, "weight", Symmetric())
print(layer)
print("symmetric:", torch.equal(layer.weight, layer.weight.T))
print("parameters:", [name for name, _ in layer.named_parameters()])
print("is_parametrized:", parametrize.is_parametrized(layer), parametrize.is_parametrized(layer, "weight"),
      parametrize.is_parametrized(layer, "bias"))
print(layer.parametrizations.weight.original.detach())
print(layer.weight.detach())


# ---- a skew-symmetric constraint with a right_inverse, stacked on top of another ----
class Skew(nn.Module):
    def forward(self, X):
        A = X.triu(1)
        return A - A.transpose(-1, -2)

    def right_inverse(self, A):
        # any X whose strict upper triangle is A's
        return A.triu(1)


class ScaledBy(nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def forward(self, X):
        return self.factor * X

    def right_inverse(self, A):
        return A / self.factor


skew_layer = init_fixed(nn.Linear(3, 3, bias=False), scale=0.5, freq=1.3)
parametrize.register_parametrization(skew_layer, "weight", Skew())
print("skew:", skew_layer.weight.detach())
target = torch.tensor([[0.0, 1.0, 2.0], [-1.0, 0.0, 3.0], [-2.0, -3.0, 0.0]])
skew_layer.weight = target  # goes through right_inverse
print("assigned:", torch.equal(skew_layer.weight, target))
print("original now:", skew_layer.parametrizations.weight.original.detach())
parametrize.register_parametrization(skew_layer, "weight", ScaledBy(2.0))
print("stacked:", len(skew_layer.parametrizations.weight), skew_layer.weight.detach())
skew_layer.weight = target
print("after assigning through both:", torch.allclose(skew_layer.weight, target))

# ---- caching: inside parametrize.cached() the weight is computed once ----
calls = []


class CountingSymmetric(Symmetric):
    def forward(self, X):
        calls.append(1)
        return super().forward(X)


counted = init_fixed(nn.Linear(3, 3), scale=0.4, freq=0.5)
parametrize.register_parametrization(counted, "weight", CountingSymmetric())
calls.clear()
x = wave(2, 3, freq=0.3)
counted(x), counted(x)
print("calls without cache:", len(calls))
calls.clear()
with parametrize.cached():
    counted(x), counted(x), counted.weight
print("calls with cache:", len(calls))

# ---- training through a parametrization, then removing it ----
sym_optimizer = torch.optim.SGD(layer.parameters(), lr=0.2)
inputs = wave(6, 4, freq=0.45)
targets = wave(6, 4, freq=0.45, phase=0.5)
for step in range(3):
    sym_optimizer.zero_grad()
    loss = F.mse_loss(layer(inputs), targets)
    loss.backward()
    sym_optimizer.step()
    print(f"symmetric step {step}: loss {loss.item():.6f}")
print("still symmetric:", torch.equal(layer.weight, layer.weight.T))
print("grad on original:", layer.parametrizations.weight.original.grad)
kept = layer.weight.detach().clone()
parametrize.remove_parametrizations(layer, "weight", leave_parametrized=True)
print("after remove (kept):", [name for name, _ in layer.named_parameters()], torch.equal(layer.weight, kept))
print(type(layer).__name__, parametrize.is_parametrized(layer))

counted_original = counted.parametrizations.weight.original.detach().clone()
parametrize.remove_parametrizations(counted, "weight", leave_parametrized=False)
print("after remove (original):", torch.equal(counted.weight, counted_original))
try:
    parametrize.remove_parametrizations(counted, "weight")
except ValueError as error:
    print("ValueError:", error)

# ---- a parametrization of two tensors, and one that changes the shape (unsafe) ----
class LowRank(nn.Module):
    def forward(self, U, V):
        return U @ V.T

    def right_inverse(self, W):
        U, S, Vh = torch.linalg.svd(W, full_matrices=False)
        return U[:, :2] * S[:2], Vh[:2].T


low = nn.Linear(3, 4, bias=False)
with torch.no_grad():
    low.weight.copy_(torch.outer(wave(4, freq=0.6, phase=0.3), wave(3, freq=0.8)) + 0.5 * torch.outer(wave(4, freq=1.2), wave(3, freq=0.4, phase=1.0)))
before_low = low.weight.detach().clone()
parametrize.register_parametrization(low, "weight", LowRank())
print("two originals:", [name for name, _ in low.named_parameters()])
print("rank-2 weight reproduced:", torch.allclose(low.weight, before_low, atol=1e-12),
      tuple(low.parametrizations.weight.original0.shape), tuple(low.parametrizations.weight.original1.shape))
print("type before:", parametrize.type_before_parametrizations(low).__name__, type(low).__name__)


class Flatten2(nn.Module):
    def forward(self, X):
        return X.reshape(2, -1)


shape_layer = nn.Module()
shape_layer.register_parameter("table", nn.Parameter(wave(3, 4, freq=0.2)))
parametrize.register_parametrization(shape_layer, "table", Flatten2(), unsafe=True)
print("unsafe shape change:", tuple(shape_layer.table.shape))
try:
    parametrize.register_parametrization(nn.Linear(4, 3), "weight", Flatten2())
except ValueError as error:
    print("ValueError:", str(error).splitlines()[0])

# ---- the built-in orthogonal parametrization ----
ortho = init_fixed(nn.Linear(4, 4), scale=0.5, freq=0.77)
with torch.no_grad():
    ortho.weight.add_(torch.eye(4))  # a sampled sine wave is a rank-2 matrix: make it full rank
parametrizations.orthogonal(ortho)
print(ortho)
eye = torch.eye(4)
print("orthogonal:", torch.allclose(ortho.weight @ ortho.weight.T, eye, atol=1e-10))
ortho_optimizer = torch.optim.Adam(ortho.parameters(), lr=0.05)
for step in range(3):
    ortho_optimizer.zero_grad()
    loss = F.mse_loss(ortho(inputs), targets)
    loss.backward()
    ortho_optimizer.step()
    print(f"orthogonal step {step}: loss {loss.item():.6f}")
print("still orthogonal:", torch.allclose(ortho.weight @ ortho.weight.T, eye, atol=1e-10))
print("det magnitude:", round(abs(torch.linalg.det(ortho.weight).item()), 8))
