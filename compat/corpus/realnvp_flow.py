# A RealNVP normalizing flow on 2-D "two moons"-like data, in the manner of the flow tutorials:
# affine coupling layers with alternating binary masks, scale (tanh-bounded) and translation
# networks, an nn.ModuleList of couplings, a standard-normal base distribution, log-det
# Jacobian terms summed along the way, maximum-likelihood training, and sampling by inverting.
import math

import torch
import torch.nn as nn
from torch import distributions

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


def make_moons(n, noise=0.05):
    n_out = n // 2
    n_in = n - n_out
    theta_out = torch.linspace(0, math.pi, n_out)
    theta_in = torch.linspace(0, math.pi, n_in)
    outer = torch.stack([torch.cos(theta_out), torch.sin(theta_out)], dim=1)
    inner = torch.stack([1 - torch.cos(theta_in), 1 - torch.sin(theta_in) - 0.5], dim=1)
    x = torch.cat([outer, inner], dim=0)
    x = x + noise * torch.randn_like(x)
    return x[torch.randperm(n)]


class CouplingLayer(nn.Module):
    def __init__(self, mask, hidden=32):
        super().__init__()
        self.register_buffer("mask", mask)
        dim = mask.numel()
        self.s = nn.Sequential(nn.Linear(dim, hidden), nn.LeakyReLU(), nn.Linear(hidden, hidden),
                               nn.LeakyReLU(), nn.Linear(hidden, dim), nn.Tanh())
        self.t = nn.Sequential(nn.Linear(dim, hidden), nn.LeakyReLU(), nn.Linear(hidden, hidden),
                               nn.LeakyReLU(), nn.Linear(hidden, dim))

    def forward(self, x):
        # data -> latent
        x_masked = x * self.mask
        s = self.s(x_masked) * (1 - self.mask)
        t = self.t(x_masked) * (1 - self.mask)
        z = x_masked + (1 - self.mask) * (x - t) * torch.exp(-s)
        log_det = -s.sum(dim=1)
        return z, log_det

    def inverse(self, z):
        # latent -> data
        z_masked = z * self.mask
        s = self.s(z_masked) * (1 - self.mask)
        t = self.t(z_masked) * (1 - self.mask)
        return z_masked + (1 - self.mask) * (z * torch.exp(s) + t)


class RealNVP(nn.Module):
    def __init__(self, masks, prior):
        super().__init__()
        self.prior = prior
        self.layers = nn.ModuleList([CouplingLayer(m) for m in masks])

    def f(self, x):
        log_det_J = x.new_zeros(x.shape[0])
        z = x
        for layer in self.layers:
            z, log_det = layer(z)
            log_det_J += log_det
        return z, log_det_J

    def g(self, z):
        x = z
        for layer in reversed(self.layers):
            x = layer.inverse(x)
        return x

    def log_prob(self, x):
        z, log_det = self.f(x)
        return self.prior.log_prob(z) + log_det

    def sample(self, batch_size):
        z = self.prior.sample((batch_size,))
        return self.g(z)


masks = torch.tensor([[0, 1], [1, 0]] * 3, dtype=torch.get_default_dtype())
prior = distributions.MultivariateNormal(torch.zeros(2), torch.eye(2))
flow = RealNVP(masks, prior)
print("layers:", len(flow.layers), "params:", sum(p.numel() for p in flow.parameters()),
      "buffers:", [tuple(b.shape) for b in flow.buffers()][:2])

data = make_moons(512)
print("data:", data.shape, [round(v, 5) for v in data.mean(0).tolist()])

# the flow is invertible before any training
with torch.no_grad():
    z, _ = flow.f(data[:8])
    print("round trip:", torch.allclose(flow.g(z), data[:8], atol=1e-10))

optimizer = torch.optim.Adam([p for p in flow.parameters() if p.requires_grad], lr=1e-3)
for step in range(301):
    idx = torch.randint(0, data.shape[0], (128,))
    loss = -flow.log_prob(data[idx]).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 60 == 0:
        print(f"iter {step}: nll = {loss.item():.5f}")

with torch.no_grad():
    nll = -flow.log_prob(data).mean().item()
    z, log_det = flow.f(data)
    base = distributions.Normal(torch.zeros(2), torch.ones(2))
    same = torch.allclose(base.log_prob(z).sum(-1), prior.log_prob(z))
    print(f"full-data nll {nll:.5f}; base log_prob as Normal sum agrees: {same}")
    print("latent mean/std:", [round(v, 4) for v in z.mean(0).tolist()], [round(v, 4) for v in z.std(0).tolist()])
    print("mean log det:", round(log_det.mean().item(), 5))
    samples = flow.sample(1000)
    print("samples:", samples.shape, [round(v, 3) for v in samples.mean(0).tolist()],
          [round(v, 3) for v in samples.std(0).tolist()])
    x_back = flow.g(flow.f(samples)[0])
    print("inverse consistent:", torch.allclose(x_back, samples, atol=1e-8))
