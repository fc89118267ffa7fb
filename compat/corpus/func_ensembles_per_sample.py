# torch.func beyond the first tutorial steps: differentially private SGD by hand (per-sample
# gradients from vmap(grad), clipped one by one and averaged, against a loop of backward calls),
# per-sample gradients of a tiny embedding text model, an ensemble with dropout under vmap's
# randomness modes, in_dims/out_dims given as nested structures, chunk_size, has_aux on every
# transform, Newton's method with hessian, jacrev against jacfwd on wide and tall functions, and
# torch.autograd.functional for comparison.
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp, stack_module_state, vjp, vmap

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)


def close(a, b, tol=1e-10):
    return (a - b).abs().max().item() < tol


def stats(name, value):
    print(f"{name} {tuple(value.shape)} norm {value.norm().item():.8f} mean {value.mean().item():.8f}")


# ---- DP-SGD by hand: clip each sample's gradient, then average ----
class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(6, 8)
        self.out = nn.Linear(8, 3)

    def forward(self, x):
        return self.out(torch.tanh(self.hidden(x)))


model = init_fixed(Classifier(), scale=0.5, freq=0.71)
features = wave(10, 6, freq=0.33) + 0.3 * wave(10, 6, freq=1.7, phase=0.4)
classes = torch.tensor([0, 1, 2, 2, 1, 0, 1, 2, 0, 1])
max_grad_norm = 1.9


def sample_loss(params, x, y):
    logits = functional_call(model, params, (x.unsqueeze(0),))
    return F.cross_entropy(logits, y.unsqueeze(0))


per_sample_grad = vmap(grad(sample_loss), in_dims=(None, 0, 0))


def clipped_mean(grads):
    flat = torch.cat([g.flatten(1) for g in grads.values()], dim=1)
    norms = flat.norm(dim=1)
    factors = (max_grad_norm / (norms + 1e-6)).clamp(max=1.0)
    return {name: (g * factors.view(-1, *([1] * (g.dim() - 1)))).mean(0) for name, g in grads.items()}, norms


params = {name: p.detach().clone() for name, p in model.named_parameters()}
for step in range(3):
    grads = per_sample_grad(params, features, classes)
    update, norms = clipped_mean(grads)
    print(f"dp step {step}: norms {[round(n, 6) for n in norms.tolist()]}")
    params = {name: params[name] - 0.5 * update[name] for name in params}
print("clipped", sum(int(n > max_grad_norm) for n in norms.tolist()), "of", len(norms))

# the same update from a loop of backward() calls
loop_model = init_fixed(Classifier(), scale=0.5, freq=0.71)
for step in range(3):
    summed = {name: torch.zeros_like(p) for name, p in loop_model.named_parameters()}
    for i in range(len(classes)):
        loop_model.zero_grad()
        F.cross_entropy(loop_model(features[i:i + 1]), classes[i:i + 1]).backward()
        norm = torch.cat([p.grad.flatten() for p in loop_model.parameters()]).norm()
        factor = min(1.0, max_grad_norm / (norm.item() + 1e-6))
        for name, p in loop_model.named_parameters():
            summed[name] += factor * p.grad
    with torch.no_grad():
        for name, p in loop_model.named_parameters():
            p -= 0.5 * summed[name] / len(classes)
print("loop agrees:", all(close(params[n], p) for n, p in loop_model.named_parameters()))
stats("dp hidden weight", params["hidden.weight"])


# ---- per-sample gradients of an embedding model ----
class BagOfWords(nn.Module):
    def __init__(self, vocab=12, dim=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, 2)

    def forward(self, tokens):
        return self.head(self.embed(tokens).mean(dim=-2))


bow = init_fixed(BagOfWords(), scale=0.4, freq=0.9)
sentences = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 1], [8, 9, 2, 2], [10, 11, 0, 3]])
sentiment = torch.tensor([1, 0, 1, 0])
bow_params = {n: p.detach() for n, p in bow.named_parameters()}


def bow_loss(params, tokens, label):
    return F.cross_entropy(functional_call(bow, params, (tokens.unsqueeze(0),)), label.unsqueeze(0))


bow_grads = vmap(grad(bow_loss), in_dims=(None, 0, 0))(bow_params, sentences, sentiment)
touched = (bow_grads["embed.weight"].abs().sum(-1) > 0).int()
print("embedding rows touched per sample:")
print(touched)
print("repeated token counts double:", close(bow_grads["embed.weight"][2, 2], 2 * bow_grads["embed.weight"][2, 8]))
bow.zero_grad()
F.cross_entropy(bow(sentences), sentiment, reduction="sum").backward()
print("sum matches:", close(bow_grads["embed.weight"].sum(0), bow.embed.weight.grad))


# ---- an ensemble with dropout: vmap's randomness modes ----
class DropoutNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(5, 40)
        self.drop = nn.Dropout(0.5)
        self.head = nn.Linear(40, 2)

    def forward(self, x):
        return self.head(self.drop(F.relu(self.fc(x))))


members = [init_fixed(DropoutNet(), scale=0.3, freq=0.4 + 0.1 * k) for k in range(3)]
stacked, stacked_buffers = stack_module_state(members)
base = copy.deepcopy(members[0])
x_in = wave(6, 5, freq=0.5)


def member_mask(p, x):
    # which hidden units dropout keeps for this member (a sigmoid is never exactly zero)
    hidden = torch.sigmoid(F.linear(x, p["fc.weight"], p["fc.bias"]))
    return base.drop(hidden) != 0


def member_forward(p, b, x):
    return functional_call(base, (p, b), (x,))


try:
    vmap(member_mask, in_dims=(0, None))(stacked, x_in)
except RuntimeError as error:
    print("RuntimeError:", str(error).split(".")[0])
torch.manual_seed(0)
same = vmap(member_mask, in_dims=(0, None), randomness="same")(stacked, x_in)
different = vmap(member_mask, in_dims=(0, None), randomness="different")(stacked, x_in)
print("same masks:", tuple(same.shape), torch.equal(same[0], same[1]) and torch.equal(same[1], same[2]))
print("different masks:", not (torch.equal(different[0], different[1]) and torch.equal(different[1], different[2])))
train_out = vmap(member_forward, in_dims=(0, 0, None), randomness="different")(stacked, stacked_buffers, x_in)
print("train-mode ensemble:", tuple(train_out.shape), train_out.requires_grad)
print("dropout scales kept values by 2:", sorted(set(base.drop(torch.ones(50)).tolist())))
base.eval()
eval_out = vmap(lambda p, b, x: functional_call(base, (p, b), (x,)), in_dims=(0, 0, None))(stacked, stacked_buffers, x_in)
print("eval ensemble needs no randomness:", tuple(eval_out.shape))
print("ensemble loop agrees:", close(eval_out, torch.stack([m.eval()(x_in) for m in members])))
stats("ensemble mean logits", eval_out.mean(0))


# ---- in_dims and out_dims as nested structures, chunk_size ----
def affine(params, x):
    return x @ params["w"] + params["b"], x.sum()


ws = wave(3, 4, 2, freq=0.37)
b = wave(2, freq=1.1)
xs = wave(5, 4, freq=0.8)
out, sums = vmap(vmap(affine, in_dims=({"w": None, "b": None}, 0)), in_dims=({"w": 0, "b": None}, None),
                 out_dims=(1, 0))({"w": ws, "b": b}, xs)
print("nested dims:", tuple(out.shape), tuple(sums.shape))
print("matches einsum:", close(out, torch.einsum("ni,kio->nko", xs, ws) + b))
chunked = vmap(lambda w: xs @ w, chunk_size=2)(ws)
print("chunked:", tuple(chunked.shape), close(chunked, torch.stack([xs @ w for w in ws])))
print("out_dims=None for an unbatched output:", vmap(lambda x: (x * 2, torch.tensor(7.0)), out_dims=(0, None))(xs)[1])
try:
    vmap(torch.sum, in_dims=1)(torch.ones(3))
except ValueError as error:
    print("ValueError:", error)
try:
    vmap(torch.add, in_dims=(0, 0))(torch.ones(3), torch.ones(4))
except ValueError as error:
    print("ValueError:", error)


# ---- has_aux everywhere ----
def loss_with_aux(w, x):
    pred = x @ w
    return (pred ** 2).mean(), {"pred_max": pred.max().detach()}


w0 = wave(4, freq=0.6, scale=0.5)
g, aux = grad(loss_with_aux, has_aux=True)(w0, xs)
(g2, (value, aux2)) = grad_and_value(loss_with_aux, has_aux=True)(w0, xs)
print("grad has_aux:", close(g, g2), round(value.item(), 10), round(aux["pred_max"].item(), 10), sorted(aux2))
value, vjp_fn, aux3 = vjp(loss_with_aux, w0, xs, has_aux=True)
print("vjp has_aux:", close(vjp_fn(torch.tensor(1.0))[0], g), tuple(vjp_fn(torch.tensor(1.0))[1].shape))
value, tangent, aux4 = jvp(lambda w: loss_with_aux(w, xs), (w0,), (torch.ones(4),), has_aux=True)
print("jvp has_aux:", round(tangent.item(), 10), round(g.sum().item(), 10))
jac, aux5 = jacrev(lambda w: (xs @ w, (xs @ w).norm()), has_aux=True)(w0)
jac_f, aux6 = jacfwd(lambda w: (xs @ w, (xs @ w).norm()), has_aux=True)(w0)
print("jac has_aux:", close(jac, xs), close(jac_f, xs), round(aux5.item(), 10), close(aux5, aux6))
print("jacrev chunk_size:", close(jacrev(lambda w: torch.sin(xs @ w), chunk_size=1)(w0), jacrev(lambda w: torch.sin(xs @ w))(w0)))


# ---- Newton's method with hessian ----
def rosenbrock(p):
    return (1 - p[0]) ** 2 + 10 * (p[1] - p[0] ** 2) ** 2


point = torch.tensor([-0.5, 0.8])
for it in range(6):
    g = grad(rosenbrock)(point)
    H = hessian(rosenbrock)(point)
    point = point - torch.linalg.solve(H, g)
    print(f"newton {it}: {point[0].item():.10f} {point[1].item():.10f} f={rosenbrock(point).item():.3e}")


# ---- jacrev vs jacfwd: wide and tall ----
def wide(x):  # many inputs, few outputs
    return torch.stack([x.sin().sum(), (x ** 2).sum(), x.prod()])


def tall(x):  # few inputs, many outputs
    return torch.outer(torch.arange(1.0, 9.0), x).cos().flatten()


x_wide = wave(12, freq=0.3, phase=0.5)
x_tall = wave(2, freq=0.9, phase=0.2)
print("wide:", tuple(jacrev(wide)(x_wide).shape), close(jacrev(wide)(x_wide), jacfwd(wide)(x_wide)))
print("tall:", tuple(jacfwd(tall)(x_tall).shape), close(jacrev(tall)(x_tall), jacfwd(tall)(x_tall)))
stats("prod row", jacrev(wide)(x_wide)[2])

# ---- against torch.autograd.functional ----
from torch.autograd.functional import hessian as af_hessian
from torch.autograd.functional import jacobian as af_jacobian

print("jacobian:", close(af_jacobian(tall, x_tall), jacrev(tall)(x_tall)),
      close(af_jacobian(tall, x_tall, vectorize=True), jacfwd(tall)(x_tall)))
print("hessian:", close(af_hessian(rosenbrock, point), hessian(rosenbrock)(point)))
pair = af_jacobian(lambda a, c: a * c, (x_tall, x_tall.flip(0)))
print("jacobian of two inputs:", type(pair).__name__, [tuple(t.shape) for t in pair])
print(pair[1])


# ---- functional_call's options, and batch norm under vmap ----
class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(3, 3, bias=False)
        self.decoder = nn.Linear(3, 3, bias=False)
        self.decoder.weight = self.encoder.weight

    def forward(self, x, scale=1.0):
        return self.decoder(self.encoder(x)) * scale


tied = init_fixed(Tied(), scale=0.5)
replacement = {"encoder.weight": torch.eye(3) * 2}
probe = wave(2, 3, freq=0.6)
print("tied:", close(functional_call(tied, replacement, (probe,)), probe * 4),
      close(functional_call(tied, replacement, (probe,), tie_weights=False), 2 * probe @ tied.decoder.weight.detach().T))
print("kwargs:", close(functional_call(tied, replacement, (probe,), {"scale": 0.5}), probe * 2))
try:
    functional_call(nn.Linear(3, 3), {"weight": torch.eye(3)}, (probe,), strict=True)
except RuntimeError as error:
    print("RuntimeError:", str(error).splitlines()[0])
try:
    functional_call(tied, {"encoder.weight": torch.eye(3), "decoder.weight": torch.zeros(3, 3)}, (probe,))
except ValueError as error:
    print("ValueError:", error)
try:
    stack_module_state([nn.Linear(2, 2), nn.Linear(2, 3)])
except RuntimeError as error:
    print("RuntimeError:", error)

norm_net = init_fixed(nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 1)), scale=0.4)
norm_params = {n: p.detach() for n, p in norm_net.named_parameters()}
batch = wave(6, 4, freq=0.7)


def norm_loss(params, x):
    return functional_call(norm_net, params, (x,)).pow(2).mean()


groups = batch.reshape(3, 2, 4)  # batch norm needs more than one sample: gradients per group
# in training mode batch norm updates its running statistics in place: buffers the function captured
counter_before = norm_net[1].num_batches_tracked.item()
try:
    vmap(grad(norm_loss), in_dims=(None, 0))(norm_params, groups)
except RuntimeError as error:
    # (the message goes on to name the operator, which is the library's own)
    print("RuntimeError:", " ".join(str(error).split()[:8]), "mutate a captured Tensor" in str(error))
print("buffers untouched:", norm_net[1].num_batches_tracked.item() == counter_before, norm_net[1].running_mean.abs().sum().item())
torch.func.replace_all_batch_norm_modules_(norm_net)
print("buffers after replace:", [n for n, _ in norm_net.named_buffers()], norm_net[1].track_running_stats)
norm_grads = vmap(grad(norm_loss), in_dims=(None, 0))(norm_params, groups)
print("per-group grads through batch norm:", tuple(norm_grads["1.weight"].shape))
loop_norm = torch.stack([grad(norm_loss)(norm_params, g)["1.weight"] for g in groups])
print("loop agrees:", close(norm_grads["1.weight"], loop_norm))
stats("bn weight grads", norm_grads["1.weight"])
