# Second-order autograd as GAN and meta-learning code uses it: a WGAN-GP gradient penalty by
# torch.autograd.grad(create_graph=True), a Hessian-vector product, the Jacobian and Hessian of
# small functions with torch.autograd.functional, and a MAML-style inner step.
import torch
import torch.nn as nn
from torch.autograd.functional import hessian, jacobian, vjp, jvp

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)
critic = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
init_fixed(critic, scale=0.4, freq=0.9)
real = wave(6, 3, freq=0.31)
fake = wave(6, 3, freq=0.77, phase=1.0)
alpha = wave(6, 1, freq=1.3).abs()

interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
scores = critic(interpolates)
gradients = torch.autograd.grad(outputs=scores, inputs=interpolates,
                                grad_outputs=torch.ones_like(scores),
                                create_graph=True, retain_graph=True, only_inputs=True)[0]
penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean()
print(gradients.shape, penalty)
loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
loss.backward()
print([round(p.grad.abs().sum().item(), 10) for p in critic.parameters()])

# Hessian-vector product by double backward
w = wave(4, freq=0.5).requires_grad_()
f = (w.sin() * w.exp()).sum() + (w ** 3).prod()
(g,) = torch.autograd.grad(f, w, create_graph=True)
v = torch.tensor([1.0, 0.0, -1.0, 0.5])
(hv,) = torch.autograd.grad(g, w, grad_outputs=v)
print(g.detach(), hv)


def func(x):
    return torch.stack([x[0] * x[1], x[1].sin() + x[2] ** 2, (x * x).sum()])


x0 = torch.tensor([0.5, -1.0, 2.0])
print(jacobian(func, x0))
print(hessian(lambda x: (x.exp() * x.roll(1)).sum(), x0))
out, vjp_value = vjp(func, x0, torch.tensor([1.0, 2.0, 3.0]))
print(out, vjp_value)
print(jvp(func, x0, torch.tensor([0.0, 1.0, 0.0]))[1])

# one MAML-style inner step: adapted weights stay in the graph
net = nn.Linear(2, 1)
init_fixed(net, scale=0.5)
xs, ys = wave(5, 2, freq=0.4), wave(5, 1, freq=0.8)
inner = ((net(xs) - ys) ** 2).mean()
grads = torch.autograd.grad(inner, net.parameters(), create_graph=True)
fast = [p - 0.1 * g for p, g in zip(net.parameters(), grads)]
outer = ((torch.nn.functional.linear(xs, fast[0], fast[1]) - ys) ** 2).mean()
outer.backward()
print(inner.item(), outer.item(), net.weight.grad, net.bias.grad)
