# The empirical neural tangent kernel with torch.func, in the manner of its tutorial: a small CNN
# made functional with functional_call, per-sample Jacobians with vmap(jacrev) contracted by
# einsum (the full kernel, its trace and its diagonal), the same kernel from NTK-vector products
# (vjp then jvp, vmapped over a basis and both batches; or linearize once per sample and push
# each pulled-back basis vector forward), and a plain loop of autograd.grad calls
# as a third way; then the kernel of an MLP, its symmetry and positive semi-definiteness, and
# kernel regression with it.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, jacrev, jvp, linearize, vjp, vmap

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)


def close(a, b, tol=1e-9):
    return (a - b).abs().max().item() < tol * max(1.0, b.abs().max().item())


def rounded(t, digits=6):
    return [round(v, digits) for v in t.flatten().tolist()]


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 3, 3)
        self.conv2 = nn.Conv2d(3, 4, 3, stride=2)
        self.fc = nn.Linear(16, 3)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = torch.tanh(self.conv2(x))
        return self.fc(x.flatten(1))


net = init_fixed(CNN(), scale=0.4, freq=0.61).eval()
params = {name: p.detach() for name, p in net.named_parameters()}
print({name: tuple(p.shape) for name, p in params.items()})


def single_output(params, x):
    # one sample in, one output vector out: vmap adds the batch dimension
    return functional_call(net, params, (x.unsqueeze(0),)).squeeze(0)


x_train = wave(5, 1, 7, 7, freq=0.23) + 0.5 * wave(5, 1, 7, 7, freq=1.9, phase=0.3)
x_test = wave(3, 1, 7, 7, freq=0.31, phase=1.1)
print("outputs", tuple(vmap(single_output, in_dims=(None, 0))(params, x_train).shape))


# ---- way 1: contract the Jacobians ----
EINSUM = {"full": "Naf,Mbf->NMab", "trace": "Naf,Maf->NM", "diagonal": "Naf,Maf->NMa"}


def kernel_from_jacobians(func, params, x1, x2, compute="full"):
    jac1 = vmap(jacrev(func), (None, 0))(params, x1)  # a dict: per parameter (N, outputs, *shape)
    jac1 = [j.flatten(2) for j in jac1.values()]
    jac2 = vmap(jacrev(func), (None, 0))(params, x2)
    jac2 = [j.flatten(2) for j in jac2.values()]
    # the kernel sums over every parameter: one einsum per parameter tensor, then add them up
    return torch.stack([torch.einsum(EINSUM[compute], j1, j2) for j1, j2 in zip(jac1, jac2)]).sum(0)


jacobians = vmap(jacrev(single_output), (None, 0))(params, x_test)
print("per-sample Jacobians:", {name: tuple(j.shape) for name, j in jacobians.items()})
ntk_full = kernel_from_jacobians(single_output, params, x_train, x_test)
print("full kernel", tuple(ntk_full.shape))
ntk_trace = kernel_from_jacobians(single_output, params, x_train, x_test, "trace")
ntk_diag = kernel_from_jacobians(single_output, params, x_train, x_test, "diagonal")
print("trace is the trace:", close(ntk_trace, ntk_full.diagonal(dim1=-2, dim2=-1).sum(-1)))
print("diagonal is the diagonal:", close(ntk_diag, ntk_full.diagonal(dim1=-2, dim2=-1)))
print("trace kernel", rounded(ntk_trace))


# ---- way 2: NTK-vector products, never forming a Jacobian ----
def kernel_from_products(func, params, x1, x2, compute="full"):
    def kernel_block(x1, x2):
        def at_x1(params):
            return func(params, x1)

        def at_x2(params):
            return func(params, x2)

        output, vjp_fn = vjp(at_x1, params)

        def pushed_through_x2(vec):
            # J(x1)^T vec, a dict like params, pushed forward through J(x2)
            (vjps,) = vjp_fn(vec)
            _, jvps = jvp(at_x2, (params,), (vjps,))
            return jvps

        basis = torch.eye(output.numel(), dtype=output.dtype, device=output.device).view(output.numel(), -1)
        return vmap(pushed_through_x2)(basis)

    result = vmap(vmap(kernel_block, (None, 0)), (0, None))(x1, x2)
    if compute == "trace":
        return torch.einsum("NMKK->NM", result)
    if compute == "diagonal":
        return torch.einsum("NMKK->NMK", result)
    return result


ntk_vps = kernel_from_products(single_output, params, x_train, x_test)
print("vector products", tuple(ntk_vps.shape), "agree with contraction:", close(ntk_vps, ntk_full))
print("trace and diagonal agree:",
      close(kernel_from_products(single_output, params, x_train, x_test, "trace"), ntk_trace),
      close(kernel_from_products(single_output, params, x_train, x_test, "diagonal"), ntk_diag))


# the same products with the linear map of the second sample recorded once (linearize)
def kernel_from_linearize(func, params, x1, x2):
    blocks = []
    for a in x1:
        output, vjp_fn = vjp(lambda p: func(p, a), params)
        pulled = [vjp_fn(e)[0] for e in torch.eye(output.numel())]  # J(a)^T e_k, dicts like params
        row = []
        for b in x2:
            _, jvp_fn = linearize(lambda p: func(p, b), params)
            row.append(torch.stack([jvp_fn(v) for v in pulled]))  # (J(b) J(a)^T)^T
        blocks.append(torch.stack(row))
    return torch.stack(blocks)


print("linearize agrees:", close(kernel_from_linearize(single_output, params, x_train[:2], x_test), ntk_vps[:2]))

# ---- way 3: a loop of backward passes, one row of the Jacobian at a time ----
def jacobian_rows(model, x):
    rows = []
    for sample in x:
        out = model(sample.unsqueeze(0)).squeeze(0)
        for k in range(out.numel()):
            grads = torch.autograd.grad(out[k], list(model.parameters()), retain_graph=True)
            rows.append(torch.cat([g.flatten() for g in grads]))
    return torch.stack(rows).view(len(x), -1, sum(p.numel() for p in model.parameters()))


j_train, j_test = jacobian_rows(net, x_train), jacobian_rows(net, x_test)
print("Jacobian of the whole parameter vector", tuple(j_train.shape))
print("loop agrees:", close(torch.einsum("naf,mbf->nmab", j_train, j_test), ntk_full))
print("kernel block of the first pair", rounded(ntk_full[0, 0], 8))


# ---- the kernel of an MLP on its training set ----
mlp = init_fixed(nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1)),
                 scale=0.5, freq=0.83)
mlp_params = dict(mlp.named_parameters())


def mlp_single(params, x):
    return functional_call(mlp, params, (x,))


points = torch.stack([torch.linspace(-1.0, 1.0, 8), torch.linspace(-1.0, 1.0, 8).pow(2)], dim=1)
values = torch.sin(3 * points[:, 0]) + points[:, 1]
kernel = kernel_from_jacobians(mlp_single, mlp_params, points, points, "trace")
print("kernel", tuple(kernel.shape), "symmetric:", close(kernel, kernel.T))
eigenvalues = torch.linalg.eigvalsh(kernel)
print("positive semi-definite:", bool((eigenvalues > -1e-9 * eigenvalues.max()).all()),
      "largest eigenvalue", round(eigenvalues.max().item(), 6))
print("vector products agree:", close(kernel_from_products(mlp_single, mlp_params, points, points, "trace"), kernel))

# kernel regression: the prediction a linearized network converges to under gradient flow
ridge = 1e-3
coefficients = torch.linalg.solve(kernel + ridge * torch.eye(len(points)), values)
queries = torch.tensor([[-0.5, 0.25], [0.3, 0.09], [0.9, 0.81]])
cross = kernel_from_jacobians(mlp_single, mlp_params, queries, points, "trace")
fit = kernel @ coefficients
print("training fit error", f"{(fit - values).abs().max().item():.3e}")
print("predictions", rounded(cross @ coefficients, 5), "targets", rounded(torch.sin(3 * queries[:, 0]) + queries[:, 1], 5))
