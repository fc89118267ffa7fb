# A physics-informed neural network (PINN): a small tanh MLP u(x, t) fitted to the 1-D heat
# equation u_t = k u_xx with initial and boundary conditions, the PDE residual built from
# torch.autograd.grad(create_graph=True) first and second derivatives of the network's output;
# then the inverse problem, where the diffusivity k is an nn.Parameter learned from observations.
import math

import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
K_TRUE = 0.1


def exact(x, t, k=K_TRUE):
    """u(x, t) = exp(-k pi^2 t) sin(pi x), the solution with u(x, 0) = sin(pi x), u(0) = u(1) = 0."""
    return torch.exp(-k * math.pi ** 2 * t) * torch.sin(math.pi * x)


class MLP(nn.Module):
    def __init__(self, width=16, depth=3):
        super().__init__()
        layers = [nn.Linear(2, width), nn.Tanh()]
        for _ in range(depth - 1):
            layers += [nn.Linear(width, width), nn.Tanh()]
        layers.append(nn.Linear(width, 1))
        self.net = nn.Sequential(*layers)
        for m in self.net:
            if isinstance(m, nn.Linear):
                nn.init.xavier_normal_(m.weight)
                nn.init.zeros_(m.bias)

    def forward(self, x, t):
        return self.net(torch.cat([x, t], dim=1))


def derivative(y, x, order=1):
    """d^order y / dx^order by repeated autograd.grad, keeping the graph for the loss."""
    for _ in range(order):
        y = torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y), create_graph=True,
                                retain_graph=True)[0]
    return y


def residual(model, x, t, k):
    u = model(x, t)
    u_t = derivative(u, t)
    u_xx = derivative(u, x, order=2)
    return u_t - k * u_xx


# the derivatives on a known function first: u = x^3 t^2
x = torch.linspace(0, 1, 5).unsqueeze(1).requires_grad_(True)
t = torch.full((5, 1), 0.5, requires_grad=True)
u = x ** 3 * t ** 2
print(derivative(u, x).squeeze(1), derivative(u, x, order=2).squeeze(1))
print(derivative(u, t).squeeze(1), derivative(derivative(u, x), t).squeeze(1))
u_x, = torch.autograd.grad(u.sum(), x, create_graph=True)
print(u_x.requires_grad, u_x.grad_fn is not None, torch.autograd.grad(u_x.sum(), x)[0].squeeze(1))

# collocation points: interior (random), initial line, two boundaries
n_interior, n_edge = 64, 16
x_in = torch.rand(n_interior, 1, requires_grad=True)
t_in = torch.rand(n_interior, 1, requires_grad=True)
x_ic = torch.linspace(0, 1, n_edge).unsqueeze(1)
t_ic = torch.zeros_like(x_ic)
t_bc = torch.linspace(0, 1, n_edge).unsqueeze(1)
x_bc0, x_bc1 = torch.zeros_like(t_bc), torch.ones_like(t_bc)
print(x_in[:3].squeeze(1), t_in[:3].squeeze(1), x_ic.shape, t_bc[-1].item())

model = MLP()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
mse = nn.MSELoss()
for step in range(300):
    optimizer.zero_grad()
    loss_pde = residual(model, x_in, t_in, K_TRUE).pow(2).mean()
    loss_ic = mse(model(x_ic, t_ic), torch.sin(math.pi * x_ic))
    loss_bc = model(x_bc0, t_bc).pow(2).mean() + model(x_bc1, t_bc).pow(2).mean()
    loss = loss_pde + loss_ic + loss_bc
    loss.backward()
    optimizer.step()
    if step % 100 == 99:
        print(f"step {step + 1}: pde {loss_pde.item():.6e} ic {loss_ic.item():.6e} "
              f"bc {loss_bc.item():.6e}")

# error against the exact solution on a grid
xs, ts = torch.meshgrid(torch.linspace(0, 1, 11), torch.linspace(0, 1, 6), indexing="ij")
with torch.no_grad():
    pred = model(xs.reshape(-1, 1), ts.reshape(-1, 1)).reshape(xs.shape)
err = (pred - exact(xs, ts)).abs()
print(pred.shape, err.max(), torch.linalg.norm(pred - exact(xs, ts)) / torch.linalg.norm(exact(xs, ts)))
print(pred[5], exact(xs, ts)[5])

# finite differences on the grid (torch.gradient) against the exact derivatives
u_x_fd, u_t_fd = torch.gradient(pred, spacing=[0.1, 0.2])
u_xx_fd = torch.gradient(u_x_fd, spacing=0.1, dim=0, edge_order=2)[0]
print(u_t_fd[5], (u_t_fd - K_TRUE * u_xx_fd)[2:-2, 1:-1].abs().max())
times = torch.tensor([0.0, 0.1, 0.3, 0.6, 1.0])
decay = exact(torch.tensor(0.5), times)
print(torch.gradient(decay, spacing=(times,), edge_order=2)[0], -K_TRUE * math.pi ** 2 * decay)

# the inverse problem: k unknown, observations of u at scattered points (with noise)
x_obs, t_obs = torch.rand(48, 1), torch.rand(48, 1)
u_obs = exact(x_obs, t_obs) + 0.001 * torch.randn(48, 1)
inverse = MLP(width=12, depth=2)
log_k = nn.Parameter(torch.tensor(0.0))
optimizer = torch.optim.Adam([{"params": inverse.parameters()}, {"params": [log_k], "lr": 5e-2}],
                             lr=1e-2)
history = []
for step in range(250):
    optimizer.zero_grad()
    k = log_k.exp()
    loss = mse(inverse(x_obs, t_obs), u_obs) + residual(inverse, x_in, t_in, k).pow(2).mean()
    loss.backward()
    optimizer.step()
    history.append(k.item())
print(f"k after 50/150/250 steps: {history[49]:.6f} {history[149]:.6f} {history[-1]:.6f}")
print(log_k.grad, log_k.requires_grad, type(log_k).__name__)

# the learned PDE residual itself can be inspected without building the graph for parameters
x_chk = torch.tensor([[0.25], [0.5], [0.75]], requires_grad=True)
t_chk = torch.tensor([[0.5], [0.5], [0.5]], requires_grad=True)
r = residual(inverse, x_chk, t_chk, log_k.exp().detach())
print(r.detach().squeeze(1), r.requires_grad)
