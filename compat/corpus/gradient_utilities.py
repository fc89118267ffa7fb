# Gradient utilities: clip_grad_norm_ (its returned total norm), clip_grad_value_,
# parameters_to_vector, requires_grad_ / detach_, zeroing grads to None, retain_graph, and a hook
# that rescales a gradient.
import torch
import torch.nn as nn

from _fixed import init_fixed

torch.set_default_dtype(torch.float64)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
init_fixed(model, scale=1.0, freq=1.3)
x = torch.tensor([[1.0, -2.0, 0.5], [0.3, 0.3, 0.3]])
loss = model(x).pow(2).sum() * 10
loss.backward()
grads_before = [p.grad.clone() for p in model.parameters()]
total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(total, type(total).__name__)
print(torch.sqrt(sum((g ** 2).sum() for g in grads_before)))
print(torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters())))
nn.utils.clip_grad_value_(model.parameters(), clip_value=0.05)
print(model[0].weight.grad)
vec = nn.utils.parameters_to_vector(model.parameters())
print(vec.shape, vec[:4].detach())
nn.utils.vector_to_parameters(vec * 2, model.parameters())
print(model[2].bias)

optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
optimizer.zero_grad()
print([p.grad for p in model.parameters()][:2])
optimizer.zero_grad(set_to_none=False)

a = torch.tensor([1.0, 2.0])
print(a.requires_grad)
a.requires_grad_(True)
b = a * a
c = b.sum()
c.backward(retain_graph=True)
c.backward()
print(a.grad)
d = b.detach()
print(d.requires_grad, b.requires_grad)
b.detach_()
print(b.requires_grad, b.grad_fn)
e = (a * a).sum()
e.backward()
try:
    e.backward()
except RuntimeError as error:
    print("RuntimeError:", str(error).split(".")[0])

w = torch.tensor([1.0, -1.0], requires_grad=True)
w.register_hook(lambda grad: grad * 0.5)
(w ** 2).sum().backward()
print(w.grad)
with torch.no_grad():
    w.mul_(3)
print(w, w.requires_grad, w.is_leaf)
try:
    w.mul_(2)
except RuntimeError as error:
    print("RuntimeError:", error)
