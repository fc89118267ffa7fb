# Memory and speed, the way performance recipes go about it: a small convnet moved to the
# channels-last memory format and trained a few steps, activation memory traded for compute with
# saved-tensor hooks (counting what autograd keeps, then keeping it as NumPy copies), gate
# splitting in a hand-written LSTM cell and what PyTorch says to an in-place change of a split,
# and torch.utils.benchmark timing two ways of computing the same thing.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils import benchmark

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)


class SmallConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 3, padding=1)
        self.bn = nn.BatchNorm2d(6)
        self.conv2 = nn.Conv2d(6, 4, 3, stride=2)
        self.fc = nn.Linear(4 * 3 * 3, 2)

    def forward(self, x):
        x = F.relu(self.bn(self.conv1(x)))
        x = F.relu(self.conv2(x))
        return self.fc(torch.flatten(x, 1))


# ---- channels last ----
images = wave(4, 3, 8, 8, freq=0.37)
labels = torch.tensor([0, 1, 1, 0])
print("input contiguous:", images.is_contiguous(), images.stride())
cl = images.to(memory_format=torch.channels_last)
print("channels_last:", cl.is_contiguous(), cl.is_contiguous(memory_format=torch.channels_last), cl.stride())
print("same values:", torch.equal(cl, images))
print("contiguous() of it:", cl.contiguous().stride())
print("clone keeps the layout:", cl.clone(memory_format=torch.preserve_format).stride())
print("sum of two channels-last tensors:", (cl + cl).is_contiguous(memory_format=torch.channels_last))
print("empty_like:", torch.empty_like(cl, memory_format=torch.channels_last).stride())
print("a 5-D tensor:", torch.zeros(2, 3, 2, 2, 2).contiguous(memory_format=torch.channels_last_3d).stride())
try:
    torch.zeros(3, 4, 5).contiguous(memory_format=torch.channels_last)
except RuntimeError as error:
    print("rank 3:", error)

model = init_fixed(SmallConvNet()).to(memory_format=torch.channels_last)
print("conv weight channels_last:", model.conv1.weight.is_contiguous(memory_format=torch.channels_last),
      tuple(model.conv1.weight.shape), model.conv1.weight.stride())
print("bias untouched:", model.conv1.bias.stride())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for step in range(4):
    optimizer.zero_grad(set_to_none=True)
    loss = F.cross_entropy(model(cl), labels)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.6f}")
print("weight still channels_last:", model.conv1.weight.is_contiguous(memory_format=torch.channels_last))


# ---- saved tensors: count them, then keep them outside the graph ----
def count_saved(fn, x):
    saved = []

    def pack(t):
        saved.append(tuple(t.shape))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = fn(x)
    return out, saved


x = wave(5, 3, freq=0.9, phase=0.2).requires_grad_()
w = wave(3, 3, freq=0.4).requires_grad_()
out, saved = count_saved(lambda a: (a @ w).sin().sum(), x)
print("tensors saved by matmul+sin:", saved)
out, saved = count_saved(lambda a: (a * 2 + 1).sum(), x)
print("tensors saved by scale+shift:", saved)

unpacked = []


def to_numpy(t):
    return t.detach().numpy().copy()


def from_numpy(array):
    unpacked.append(array.shape)
    return torch.from_numpy(array)


with torch.autograd.graph.saved_tensors_hooks(to_numpy, from_numpy):
    y = (x.exp() * w.sum(0)).tanh().sum()
y.backward()
print("unpacked:", unpacked)
print("x.grad:", x.grad)
reference = x.detach().clone().requires_grad_()
(reference.exp() * w.detach().sum(0)).tanh().sum().backward()
print("same gradient without hooks:", torch.allclose(reference.grad, x.grad))

seen = []
handle = torch.autograd.graph.register_multi_grad_hook(
    (x, w), lambda grads: seen.append([g is not None for g in grads]))
(x * w[0]).sum().backward()
(x * 3).sum().backward(inputs=[x])
handle.remove()
print("multi grad hook saw:", seen)
print("grad_fn is a Node:", isinstance(y.grad_fn, torch.autograd.graph.Node))


# ---- splitting the gates of an LSTM cell ----
class LSTMCellByHand(nn.Module):
    def __init__(self, inputs, hidden):
        super().__init__()
        self.gates = nn.Linear(inputs + hidden, 4 * hidden)

    def forward(self, x, state):
        h, c = state
        i, f, g, o = self.gates(torch.cat([x, h], 1)).chunk(4, 1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(c), c


cell = init_fixed(LSTMCellByHand(3, 4))
h = c = torch.zeros(2, 4)
sequence = wave(5, 2, 3, freq=0.55)
for step_input in sequence:  # iterating a tensor unbinds it
    h, c = cell(step_input, (h, c))
h.sum().backward()
print("h:", h)
print("gate grad norm:", cell.gates.weight.grad.norm().item())
print("grad_fn of a row:", next(iter(sequence.requires_grad_() * 1)).grad_fn.name())

gates = cell.gates(torch.cat([sequence[0].detach(), torch.zeros(2, 4)], 1))
pieces = gates.split([4, 4, 8], dim=1)
print("split:", [tuple(p.shape) for p in pieces], pieces[2].grad_fn.name(), pieces[2].output_nr)
try:
    pieces[0].sigmoid_()
except RuntimeError as error:
    print("in-place on a split:", error)
with torch.no_grad():
    a, b = gates.chunk(2, 1)
    a.mul_(0)  # fine: nothing is recorded
print("zeroed half:", gates[:, :8].abs().sum().item())


# ---- timing ----
a = wave(64, 64, freq=0.3)
b = wave(64, 64, freq=0.8)
timers = [
    benchmark.Timer(stmt="a @ b", globals={"a": a, "b": b}, label="matmul 64", sub_label="operator",
                    description="float64"),
    benchmark.Timer(stmt="torch.mm(a, b)", globals={"a": a, "b": b}, label="matmul 64", sub_label="torch.mm",
                    description="float64", num_threads=1),
]
results = [t.timeit(20) for t in timers]
for m in results:
    print(m.task_spec.label, "|", m.task_spec.sub_label, "|", m.task_spec.num_threads, "thread(s) |",
          m.number_per_run, "runs per measurement,", len(m.times), "measurement(s)")
print("times positive:", all(m.mean > 0 and m.median > 0 for m in results))
table = str(benchmark.Compare(results))
print("table rows:", [line.split("|")[0].strip() for line in table.splitlines() if "|" in line][1:])
print("agree:", np.allclose((a @ b).numpy(), torch.mm(a, b).numpy()))
