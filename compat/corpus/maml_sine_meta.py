# Meta-learning in the MAML manner on the sine-wave family of tasks: a small MLP whose
# parameters are adapted per task by a few inner gradient steps taken with
# torch.autograd.grad(create_graph=True) and run through torch.func.functional_call, so the
# outer Adam step differentiates through the adaptation (second order); then the first-order
# variant, the same inner step written with torch.func.grad, and a check that the meta-gradient
# has second-order terms.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

INNER_LR, INNER_STEPS, META_BATCH, SHOTS = 0.02, 2, 4, 10


def sample_task():
    amplitude = torch.empty(1).uniform_(0.1, 5.0)
    phase = torch.empty(1).uniform_(0.0, math.pi)
    return amplitude, phase


def sample_points(task, n):
    amplitude, phase = task
    x = torch.empty(n, 1).uniform_(-5.0, 5.0)
    return x, amplitude * torch.sin(x + phase)


model = nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))
params = dict(model.named_parameters())
print(list(params), sum(p.numel() for p in params.values()))


def adapt(params, x, y, steps=INNER_STEPS, first_order=False):
    """A few SGD steps on the support set; the graph is kept unless first_order."""
    fast = dict(params)
    for _ in range(steps):
        loss = F.mse_loss(functional_call(model, fast, (x,)), y)
        grads = torch.autograd.grad(loss, list(fast.values()), create_graph=not first_order)
        fast = {name: w - INNER_LR * g for (name, w), g in zip(fast.items(), grads)}
    return fast


meta_optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for it in range(30):
    meta_optimizer.zero_grad()
    meta_loss = 0.0
    for _ in range(META_BATCH):
        task = sample_task()
        xs, ys = sample_points(task, SHOTS)
        xq, yq = sample_points(task, SHOTS)
        fast = adapt(params, xs, ys)
        meta_loss = meta_loss + F.mse_loss(functional_call(model, fast, (xq,)), yq)
    meta_loss = meta_loss / META_BATCH
    meta_loss.backward()
    meta_optimizer.step()
    if it % 10 == 9:
        print(f"iter {it + 1}: meta loss {meta_loss.item():.6f}", meta_loss.grad_fn.name())

# second order against first order: the same task, the same data, different meta-gradients
task = (torch.tensor([2.0]), torch.tensor([0.5]))
xs, ys = sample_points(task, SHOTS)
xq, yq = sample_points(task, SHOTS)
full = torch.autograd.grad(F.mse_loss(functional_call(model, adapt(params, xs, ys), (xq,)), yq), list(params.values()))
fo_fast = adapt(params, xs, ys, first_order=True)
print(all(not g.requires_grad for g in fo_fast.values()), fo_fast["0.weight"].grad_fn.name())
first = torch.autograd.grad(F.mse_loss(functional_call(model, fo_fast, (xq,)), yq), list(params.values()))
diff = [(a - b).norm() for a, b in zip(full, first)]
print([f"{d.item():.6e}" for d in diff], max(diff) > 0)
print(full[-1], first[-1])

# the inner step with torch.func.grad: a function of the parameter dict, its gradient a dict
def support_loss(p, x, y):
    return F.mse_loss(functional_call(model, p, (x,)), y)


detached = {k: v.detach() for k, v in params.items()}
g = grad(support_loss)(detached, xs, ys)
print(sorted(g), g["4.bias"], g["0.weight"].shape)
manual = torch.autograd.grad(support_loss(params, xs, ys), list(params.values()))
print(all(torch.allclose(g[k], m) for k, m in zip(params, manual)))
loss_and_grad = grad(support_loss, has_aux=False, argnums=0)
print(torch.allclose(loss_and_grad(detached, xs, ys)["2.weight"], g["2.weight"]))

# a Hessian-vector product through the inner step: grad of (grad . v)
v = {k: torch.ones_like(p) for k, p in params.items()}
inner = torch.autograd.grad(support_loss(params, xs, ys), list(params.values()), create_graph=True)
dot = sum((gi * v[k]).sum() for gi, k in zip(inner, params))
hvp = torch.autograd.grad(dot, list(params.values()))
print(dot, hvp[-1], hvp[0].norm())

# few-shot adaptation of the meta-learned start: loss before and after more inner steps
with torch.no_grad():
    x_test = torch.linspace(-5, 5, 50).unsqueeze(1)
    y_test = task[0] * torch.sin(x_test + task[1])
for steps in (0, 1, 5, 10):
    fast = adapt(params, xs, ys, steps=steps, first_order=True)
    with torch.no_grad():
        print(steps, f"{F.mse_loss(functional_call(model, fast, (x_test,)), y_test).item():.6f}")
