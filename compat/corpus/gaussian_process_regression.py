# Exact Gaussian-process regression written by hand, in the manner of the GP tutorials: an RBF
# kernel from torch.cdist, log-hyperparameters held as nn.Parameter, the negative log marginal
# likelihood through a Cholesky factor (cholesky_solve, logdet of the factor's diagonal), Adam
# over the hyperparameters, then the predictive mean and variance with solve_triangular, a
# jitter-retrying Cholesky on cholesky_ex, cholesky_inverse, a few torch.linalg helpers
# (multi_dot, cond, matrix_rank, vecdot) and posterior draws.
import math

import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


class RBFKernel(nn.Module):
    def __init__(self, lengthscale=1.0, outputscale=1.0):
        super().__init__()
        self.log_lengthscale = nn.Parameter(torch.tensor(math.log(lengthscale)))
        self.log_outputscale = nn.Parameter(torch.tensor(math.log(outputscale)))

    def forward(self, x1, x2):
        lengthscale = self.log_lengthscale.exp()
        dist = torch.cdist(x1 / lengthscale, x2 / lengthscale, p=2)
        return self.log_outputscale.exp() * torch.exp(-0.5 * dist.pow(2))


class ExactGP(nn.Module):
    def __init__(self, train_x, train_y):
        super().__init__()
        self.train_x = train_x
        self.train_y = train_y
        self.kernel = RBFKernel()
        self.log_noise = nn.Parameter(torch.tensor(-1.0))
        self.mean = nn.Parameter(torch.zeros(()))

    def noise(self):
        return self.log_noise.exp()

    def neg_log_marginal_likelihood(self):
        n = self.train_x.shape[0]
        K = self.kernel(self.train_x, self.train_x) + self.noise() * torch.eye(n)
        L = torch.linalg.cholesky(K)
        r = (self.train_y - self.mean).unsqueeze(-1)
        alpha = torch.cholesky_solve(r, L)
        data_fit = 0.5 * (r * alpha).sum()
        complexity = torch.log(torch.diagonal(L)).sum()
        return data_fit + complexity + 0.5 * n * math.log(2 * math.pi)

    def predict(self, test_x):
        n = self.train_x.shape[0]
        K = self.kernel(self.train_x, self.train_x) + self.noise() * torch.eye(n)
        L = torch.linalg.cholesky(K)
        K_s = self.kernel(self.train_x, test_x)
        K_ss = self.kernel(test_x, test_x)
        r = (self.train_y - self.mean).unsqueeze(-1)
        alpha = torch.cholesky_solve(r, L)
        mu = self.mean + (K_s.T @ alpha).squeeze(-1)
        v = torch.linalg.solve_triangular(L, K_s, upper=False)
        cov = K_ss - v.T @ v
        var = torch.diagonal(cov).clamp_min(1e-12)
        return mu, var, cov


def psd_safe_cholesky(A, max_tries=4):
    L, info = torch.linalg.cholesky_ex(A)
    if not torch.any(info):
        return L, 0.0
    jitter = 1e-6 * torch.diagonal(A, dim1=-2, dim2=-1).mean()
    for _ in range(max_tries):
        L, info = torch.linalg.cholesky_ex(A + jitter * torch.eye(A.shape[-1]))
        if not torch.any(info):
            return L, jitter.item()
        jitter = jitter * 10
    raise RuntimeError("matrix not positive definite even with jitter")


def f(x):
    return torch.sin(3 * x) + 0.3 * x


train_x = torch.rand(20, 1) * 4 - 2
train_y = f(train_x).squeeze(-1) + 0.1 * torch.randn(20)
test_x = torch.linspace(-2.5, 2.5, 11).unsqueeze(-1)
print("data:", train_x.shape, train_y.shape, test_x.shape)

model = ExactGP(train_x, train_y)
print("parameters:", [name for name, _ in model.named_parameters()])

# the Cholesky route agrees with the direct formula
with torch.no_grad():
    n = train_x.shape[0]
    K = model.kernel(train_x, train_x) + model.noise() * torch.eye(n)
    diff = train_x - train_x.T
    K_broadcast = torch.exp(-0.5 * diff.pow(2)) + model.noise() * torch.eye(n)
    r = train_y - model.mean
    direct = 0.5 * r @ torch.linalg.solve(K, r) + 0.5 * torch.logdet(K) + 0.5 * n * math.log(2 * math.pi)
    sign, logabsdet = torch.linalg.slogdet(K)
    print("kernels agree:", torch.allclose(K, K_broadcast),
          "nll agrees:", torch.allclose(direct, model.neg_log_marginal_likelihood()),
          "slogdet:", sign.item(), round(logabsdet.item(), 6))

optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
for i in range(101):
    optimizer.zero_grad()
    loss = model.neg_log_marginal_likelihood()
    loss.backward()
    optimizer.step()
    if i % 20 == 0:
        print(f"iter {i:3d} nll {loss.item():.5f} lengthscale {model.kernel.log_lengthscale.exp().item():.4f}"
              f" outputscale {model.kernel.log_outputscale.exp().item():.4f} noise {model.noise().item():.5f}")

model.eval()
with torch.no_grad():
    mu, var, cov = model.predict(test_x)
    std = var.sqrt()
    lower, upper = mu - 2 * std, mu + 2 * std
    print("mean:", [round(v, 4) for v in mu.tolist()])
    print("std:", [round(v, 4) for v in std.tolist()])
    inside = ((f(test_x).squeeze(-1) >= lower) & (f(test_x).squeeze(-1) <= upper)).sum().item()
    print("truth inside the 2-sigma band at", inside, "of", test_x.shape[0], "points")
    print("covariance symmetric:", torch.allclose(cov, cov.T), "rmse:",
          round(torch.sqrt(((mu - f(test_x).squeeze(-1)) ** 2).mean()).item(), 5))

    # the noise-free kernel matrix is numerically singular; taking a nugget off it makes it
    # indefinite, and the safe Cholesky adds jitter until the factorisation succeeds
    K_f = model.kernel(train_x, train_x) - 1e-4 * torch.eye(train_x.shape[0])
    info = torch.linalg.cholesky_ex(K_f).info
    L_f, jitter = psd_safe_cholesky(K_f)
    print("indefinite: info > 0:", info.item() > 0, f"jitter added: {jitter:.3e}", L_f.shape)
    K = model.kernel(train_x, train_x) + model.noise() * torch.eye(n)
    K_inv = torch.cholesky_inverse(torch.linalg.cholesky(K))
    print("cholesky_inverse matches inverse:", torch.allclose(K_inv, torch.linalg.inv(K), atol=1e-8))
    r = train_y - model.mean
    quad = torch.linalg.multi_dot([r, K_inv, r])
    print("quadratic form:", round(quad.item(), 4), "cond(K):", round(torch.linalg.cond(K).item(), 1),
          "rank of the 20x3 features:", torch.linalg.matrix_rank(torch.cat([train_x, train_x ** 2, train_x ** 3], 1)).item())
    v = torch.linalg.solve_triangular(torch.linalg.cholesky(K), model.kernel(train_x, test_x), upper=False)
    var_vecdot = torch.linalg.diagonal(model.kernel(test_x, test_x)) - torch.linalg.vecdot(v, v, dim=0)
    print("vecdot variance matches:", torch.allclose(var_vecdot.clamp_min(1e-12), var))
    posterior = torch.distributions.MultivariateNormal(mu, scale_tril=torch.linalg.cholesky(cov + 1e-6 * torch.eye(11)))
    draws = posterior.sample((4,))
    print("posterior draws:", draws.shape, [round(v, 3) for v in draws[0, 3:6].tolist()])
