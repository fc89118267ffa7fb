# Activation checkpointing as torch.utils.checkpoint's documentation and the memory-saving
# tutorials use it: blocks of an MLP wrapped in checkpoint() in both flavours, a Sequential cut
# into segments with checkpoint_sequential, counters showing which layers run again in backward,
# the gradients against a run without checkpointing, dropout masks replayed (preserve_rng_state),
# batch norm's statistics updated by the recomputation too, and the reentrant flavour's limits.
import warnings
from collections import Counter

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)
calls = Counter()


def count_calls(model):
    """A forward pre-hook on every leaf module: how often each one starts a forward."""
    for name, module in model.named_modules():
        if not list(module.children()):
            module.register_forward_pre_hook(lambda mod, args, name=name: calls.update([name]))
    return model


def same_grads(model, reference):
    return all(torch.allclose(p.grad, q.grad, rtol=0, atol=1e-12)
               for p, q in zip(model.parameters(), reference.parameters()))


def grad_norm(model):
    return round(torch.cat([p.grad.flatten() for p in model.parameters()]).norm().item(), 8)


# ---- checkpoint() around each residual block ----
class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc1 = nn.Linear(width, 2 * width)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(2 * width, width)

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(x)))


class Net(nn.Module):
    def __init__(self, width=6, depth=3, mode=None):
        super().__init__()
        self.mode = mode  # None: no checkpointing; else the use_reentrant flag
        self.stem = nn.Linear(4, width)
        self.blocks = nn.ModuleList(Block(width) for _ in range(depth))
        self.head = nn.Linear(width, 2)

    def forward(self, x):
        x = torch.tanh(self.stem(x))
        for block in self.blocks:
            x = block(x) if self.mode is None else checkpoint(block, x, use_reentrant=self.mode)
        return self.head(x)


inputs = wave(5, 4, freq=0.43)
targets = wave(5, 2, freq=1.3, phase=0.4)
nets = {mode: count_calls(init_fixed(Net(mode=mode), scale=0.35, freq=0.57)) for mode in (None, False, True)}
for mode, net in nets.items():
    calls.clear()
    loss = F.mse_loss(net(inputs), targets)
    after_forward = calls["blocks.0.fc1"]
    loss.backward()
    print(f"use_reentrant={mode}: loss {loss.item():.10f} grad norm {grad_norm(net)}")
    print("  fc1 forwards after forward", after_forward, "after backward", calls["blocks.0.fc1"],
          "| stem", calls["stem"], "head", calls["head"])
    print("  grad_fn", type(loss.grad_fn).__name__, "same grads as without:", same_grads(net, nets[None]))

# the non-reentrant flavour takes keyword arguments and works with autograd.grad
net = nets[False]
x = torch.tanh(net.stem(inputs))
scaled = checkpoint(lambda t, scale=1.0: net.blocks[0](t) * scale, x, scale=0.5, use_reentrant=False)
(grad_x,) = torch.autograd.grad(scaled.sum(), x)
(expected,) = torch.autograd.grad((net.blocks[0](x) * 0.5).sum(), x)
print("keyword argument and autograd.grad:", torch.allclose(grad_x, expected), tuple(grad_x.shape))
try:
    checkpoint(net.blocks[0], x, scale=0.5, use_reentrant=True)
except ValueError as error:
    print("ValueError:", error)
try:
    torch.autograd.grad(checkpoint(net.blocks[0], x, use_reentrant=True).sum(), x)
except RuntimeError as error:
    print("RuntimeError:", error)

# an input that does not require grad: the reentrant flavour warns and the block's weights get nothing
block = init_fixed(Block(4), scale=0.3)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = checkpoint(block, inputs, use_reentrant=True)
print("warned:", [str(w.message) for w in caught], "output requires grad:", out.requires_grad)
out = checkpoint(block, inputs, use_reentrant=False)
out.sum().backward()
print("non-reentrant still reaches the weights:", block.fc1.weight.grad is not None, round(block.fc1.weight.grad.sum().item(), 8))


# ---- checkpoint_sequential on a convolution stack ----
def conv_stack():
    layers = nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=1), nn.ReLU(),
        nn.Conv2d(4, 4, 3, padding=1), nn.Tanh(),
        nn.Conv2d(4, 3, 3, stride=2), nn.Sigmoid(),
    )
    return count_calls(init_fixed(layers, scale=0.25, freq=0.39))


images = wave(2, 2, 7, 7, freq=0.21, phase=0.3)
plain = conv_stack()
calls.clear()
plain(images).pow(2).mean().backward()
print("plain conv stack:", [calls[str(i)] for i in range(6)], "grad norm", grad_norm(plain))
for segments in (2, 3):
    for reentrant in (False, True):
        stack = conv_stack()
        calls.clear()
        source = images.clone().requires_grad_(reentrant)  # the reentrant flavour needs an input that requires grad
        out = checkpoint_sequential(stack, segments, source, use_reentrant=reentrant)
        out.pow(2).mean().backward()
        print(f"segments={segments} use_reentrant={reentrant}: forwards {[calls[str(i)] for i in range(6)]} "
              f"same grads {same_grads(stack, plain)} output {tuple(out.shape)}")
try:
    checkpoint_sequential(conv_stack(), 8, images, use_reentrant=False)
except Exception as error:  # more segments than layers: a chunk of size zero
    print(type(error).__name__)


# forward hooks that run after each layer, with the recomputation asked to run to the end
finished = Counter()
stack = conv_stack()
for i, layer in enumerate(stack):
    layer.register_forward_hook(lambda mod, args, out, i=i: finished.update([i]))
checkpoint(stack, images, use_reentrant=False, early_stop=False).pow(2).mean().backward()
print("layers finished (early_stop=False):", [finished[i] for i in range(6)])

# ---- dropout: the recomputation replays the forward's random state ----
class DropoutMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Dropout(0.5), nn.Linear(32, 32), nn.ReLU(),
                                  nn.Dropout(0.5))
        self.head = nn.Linear(32, 1)

    def forward(self, x, mode=None, preserve=True):
        if mode is None:
            return self.head(self.body(x))
        return self.head(checkpoint(self.body, x, use_reentrant=mode, preserve_rng_state=preserve))


def dropout_grads(mode, preserve=True):
    model = init_fixed(DropoutMLP(), scale=0.3, freq=0.77)
    torch.manual_seed(7)  # only booleans below depend on the masks this draws
    model(inputs.clone().requires_grad_(), mode, preserve).sum().backward()
    return [p.grad for p in model.parameters()], torch.get_rng_state()


reference, state_after = dropout_grads(None)
for mode in (False, True):
    grads, state = dropout_grads(mode)
    print(f"use_reentrant={mode}: dropout masks replayed, same grads:",
          all(torch.allclose(a, b, rtol=0, atol=1e-12) for a, b in zip(grads, reference)),
          "| generator left as without checkpoint:", torch.equal(state, state_after))
    grads, _ = dropout_grads(mode, preserve=False)
    print(f"use_reentrant={mode}: preserve_rng_state=False, same grads:",
          all(torch.allclose(a, b, rtol=0, atol=1e-12) for a, b in zip(grads, reference)))


# ---- batch norm inside a checkpoint sees the batch twice ----
norm_block = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3))
init_fixed(norm_block, scale=0.5)
checkpoint(norm_block, inputs.clone().requires_grad_(), use_reentrant=False).sum().backward()
print("batches tracked:", norm_block[1].num_batches_tracked.item(), "running mean",
      [round(v, 8) for v in norm_block[1].running_mean.tolist()])
with torch.no_grad():
    norm_block(inputs)
print("one more batch under no_grad, nothing recomputed:", norm_block[1].num_batches_tracked.item())
