# Autograd as the tutorials show it: requires_grad, grad_fn, next_functions, backward with a
# gradient argument, accumulation, detach and no_grad.
import torch

torch.set_default_dtype(torch.float64)

x = torch.ones(5)
y = torch.zeros(3)
w = torch.linspace(-1, 1, 15).reshape(5, 3).requires_grad_()
b = torch.tensor([0.1, -0.2, 0.3], requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(f"Gradient function for z = {type(z.grad_fn).__name__}")
print(f"Gradient function for loss = {type(loss.grad_fn).__name__}")
loss.backward()
print(w.grad)
print(b.grad)

z = torch.matmul(x, w) + b
print(z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad)
z_det = (torch.matmul(x, w) + b).detach()
print(z_det.requires_grad, z_det.is_leaf, w.is_leaf, b.grad_fn)

a = torch.tensor([2.0, 3.0], requires_grad=True)
c = torch.tensor([6.0, 4.0], requires_grad=True)
Q = 3 * a ** 3 - c ** 2
external_grad = torch.tensor([1.0, 1.0])
Q.backward(gradient=external_grad)
print(9 * a ** 2 == a.grad)
print(-2 * c == c.grad)

inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")

# walking the graph
s = torch.tensor([1.0, 2.0], requires_grad=True)
t = (s * 2).exp().sum()
node = t.grad_fn
print(node.name())
for depth in range(6):  # bounded, so that a cyclic graph cannot hang the script
    if node is None:
        break
    nexts = [type(f).__name__ for f, _ in node.next_functions if f is not None]
    print(type(node).__name__, "->", nexts)
    node = node.next_functions[0][0] if node.next_functions else None

m = torch.nn.Linear(3, 2)
out = torch.relu(m(torch.ones(1, 3))).mean()
print(type(out.grad_fn).__name__, [type(f).__name__ for f, _ in out.grad_fn.next_functions])
loss = torch.nn.MSELoss()(torch.zeros(2, requires_grad=True), torch.ones(2))
print(loss.grad_fn.name(), loss.grad_fn.next_functions[0][0].name())
print(torch.nn.functional.log_softmax(torch.zeros(2, 3, requires_grad=True), dim=1).grad_fn.name())
print(torch.nn.functional.nll_loss(torch.zeros(2, 3, requires_grad=True), torch.tensor([0, 2])).grad_fn.name())

v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = v.register_hook(lambda g: g * 2)
(v * v).sum().backward()
print(v.grad)
h.remove()
u = v * 3
u.retain_grad()
u.sum().backward()
print(u.grad, v.grad)
print(torch.autograd.grad((v ** 3).sum(), v))
print(torch.is_grad_enabled())
with torch.set_grad_enabled(False):
    print((v * 2).requires_grad)
