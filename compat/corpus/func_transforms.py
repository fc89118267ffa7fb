# Composable function transforms (torch.func) in the manner of the per-sample-gradient,
# model-ensembling and Jacobian/Hessian tutorials: a small CNN made a function of its weights
# with functional_call, per-sample gradients by vmap(grad(...)) checked against a loop of
# .backward() calls, an ensemble of MLPs (with batch-norm buffers) run by vmap over
# stack_module_state and trained for a few steps, and Jacobians, Hessians, hvp and vhp of small
# functions by jacrev, jacfwd, hessian, jvp and vjp, compared with one another.
import copy
from functools import partial

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp, stack_module_state, vjp, vmap

from _fixed import init_fixed, wave

torch.set_default_dtype(torch.float64)


def report(name, value):
    """A tensor's shape and a few rounded statistics (stable whatever the round-off)."""
    print(f"{name} {tuple(value.shape)} norm {value.norm().item():.8f} sum {value.sum().item():.8f}")


def close(a, b, tol=1e-9):
    return (a - b).abs().max().item() < tol


# ---------------------------------------------------------------- per-sample gradients
class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3)
        self.conv2 = nn.Conv2d(4, 6, 3)
        self.fc1 = nn.Linear(24, 16)
        self.fc2 = nn.Linear(16, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        return F.log_softmax(self.fc2(x), dim=1)


model = init_fixed(SmallCNN(), scale=0.4, freq=0.61)
batch_size = 8
data = wave(batch_size, 1, 8, 8, freq=0.37) + 0.2 * wave(batch_size, 1, 8, 8, freq=1.13, phase=0.5)
targets = (torch.arange(batch_size) * 3) % 10
print(data.shape, targets.tolist())


def loss_fn(predictions, targets):
    return F.nll_loss(predictions, targets)


def compute_grad(sample, target):
    sample = sample.unsqueeze(0)
    target = target.unsqueeze(0)
    loss = loss_fn(model(sample), target)
    return torch.autograd.grad(loss, list(model.parameters()))


# the plain way: one forward and backward per sample
loop_grads = [compute_grad(data[i], targets[i]) for i in range(batch_size)]
loop_grads = [torch.stack(shards) for shards in zip(*loop_grads)]

# the same with .backward() and .grad, as training loops write it
backward_grads = {name: [] for name, _ in model.named_parameters()}
for i in range(batch_size):
    model.zero_grad()
    loss_fn(model(data[i:i + 1]), targets[i:i + 1]).backward()
    for name, p in model.named_parameters():
        backward_grads[name].append(p.grad.clone())
backward_grads = {name: torch.stack(gs) for name, gs in backward_grads.items()}

params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}
print(sorted(params), len(buffers))


def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)
    predictions = functional_call(model, (params, buffers), (batch,))
    return loss_fn(predictions, targets)


ft_compute_grad = grad(compute_loss)
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
print(type(ft_per_sample_grads).__name__, list(ft_per_sample_grads) == list(params))
for (name, per_sample), looped in zip(ft_per_sample_grads.items(), loop_grads):
    difference = (per_sample - looped).abs().max().item()
    print(name, tuple(per_sample.shape), per_sample.requires_grad, round(difference, 9),
          close(per_sample, backward_grads[name]))
print("per-sample norms", [round(g.norm().item(), 8) for g in ft_per_sample_grads["fc2.weight"]])
print("conv1 grad norms", [round(g.norm().item(), 8) for g in ft_per_sample_grads["conv1.weight"]])

# the mean of the per-sample gradients is the gradient of the batch's mean loss
model.zero_grad()
loss_fn(model(data), targets).backward()
print("mean matches batch", all(close(ft_per_sample_grads[n].mean(0), p.grad) for n, p in model.named_parameters()))

# grad_and_value with an auxiliary output, vmapped as well
def loss_and_prediction(params, buffers, sample, target):
    predictions = functional_call(model, (params, buffers), (sample.unsqueeze(0),))
    return loss_fn(predictions, target.unsqueeze(0)), predictions.argmax(1)


grads, (losses, predicted) = vmap(grad_and_value(loss_and_prediction, has_aux=True),
                                  in_dims=(None, None, 0, 0))(params, buffers, data, targets)
print("losses", [round(v, 8) for v in losses.tolist()], predicted.squeeze(1).tolist())
print("same grads", all(close(grads[n], ft_per_sample_grads[n]) for n in params))
# argnums picks the input: the gradient with respect to each sample, its saliency
input_grads = vmap(grad(compute_loss, argnums=2), in_dims=(None, None, 0, 0))(params, buffers, data, targets)
report("input grads", input_grads)

# ---------------------------------------------------------------- model ensembling
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 16)
        self.bn = nn.BatchNorm1d(16)
        self.fc2 = nn.Linear(16, 16)
        self.fc3 = nn.Linear(16, 5)

    def forward(self, x):
        x = F.relu(self.bn(self.fc1(x)))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


num_models = 4
models = []
for k in range(num_models):
    member = init_fixed(MLP(), scale=0.35, freq=0.5 + 0.13 * k)
    with torch.no_grad():
        member.bn.running_mean.copy_(wave(16, freq=0.9, phase=float(k), scale=0.1))
        member.bn.running_var.copy_(1.0 + wave(16, freq=0.4, phase=float(k), scale=0.5).abs())
    models.append(member.eval())

inputs = wave(32, 12, freq=0.23) + 0.1 * wave(32, 12, freq=2.1)
labels = torch.arange(32) % 5
minibatches = inputs.reshape(num_models, 8, 12)
minibatch_labels = labels.reshape(num_models, 8)
minibatch = minibatches[0]

predictions_diff_minibatch_loop = [m(mb) for m, mb in zip(models, minibatches)]
predictions_same_minibatch_loop = [m(minibatch) for m in models]

params, buffers = stack_module_state(models)
print({k: tuple(v.shape) for k, v in params.items()})
print({k: (tuple(v.shape), v.dtype) for k, v in buffers.items()})
print(all(v.is_leaf and v.requires_grad for v in params.values()), [v.requires_grad for v in buffers.values()])

base_model = copy.deepcopy(models[0])


def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))


predictions_same = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
predictions_diff = vmap(fmodel, in_dims=(0, 0, 0))(params, buffers, minibatches)
print(predictions_same.shape, predictions_diff.shape, predictions_same.requires_grad)
print("same minibatch", torch.allclose(predictions_same, torch.stack(predictions_same_minibatch_loop), atol=1e-3, rtol=1e-5))
print("different minibatches", close(predictions_diff, torch.stack(predictions_diff_minibatch_loop)))
report("ensemble out", predictions_diff)
print("votes", predictions_same.argmax(-1).tolist())
# the models' own weights are untouched by the functional calls
print(base_model.fc1.weight.requires_grad, close(base_model.fc1.weight, models[0].fc1.weight))

# train the whole ensemble at once: the stacked parameters are leaves an optimizer can take
optimizer = torch.optim.SGD(params.values(), lr=0.1, momentum=0.9)
for step in range(3):
    optimizer.zero_grad()
    logits = vmap(fmodel, in_dims=(0, 0, 0))(params, buffers, minibatches)
    per_model = vmap(F.cross_entropy)(logits, minibatch_labels)
    per_model.sum().backward()
    optimizer.step()
    print(step, [round(v, 8) for v in per_model.tolist()], round(params["fc3.bias"].grad.norm().item(), 8))
# the ensemble's members, unstacked, compute what the stacked parameters do
with torch.no_grad():
    for k, member in enumerate(models):
        member.load_state_dict({**{n: p[k] for n, p in params.items()}, **{n: b[k] for n, b in buffers.items()}})
    after_loop = torch.stack([m(mb) for m, mb in zip(models, minibatches)])
    after_vmap = vmap(fmodel, in_dims=(0, 0, 0))(params, buffers, minibatches)
print("trained members agree", close(after_loop, after_vmap), after_vmap.requires_grad)

# ---------------------------------------------------------------- Jacobians and Hessians
Din, Dout = 5, 7
weight = wave(Dout, Din, freq=0.71, scale=0.5)
bias = wave(Dout, freq=1.9, scale=0.3)
x = wave(Din, freq=0.45, phase=0.3)


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


# a Jacobian row by row with autograd.grad, then with vjp and vmap, then with jacrev
def compute_jac(xp):
    rows = [torch.autograd.grad(predict(weight, bias, xp), xp, vec)[0] for vec in unit_vectors]
    return torch.stack(rows)


xp = x.clone().requires_grad_()
unit_vectors = torch.eye(Dout)
jacobian = compute_jac(xp)
print(jacobian.shape)
print(jacobian[0])
out, vjp_fn = vjp(partial(predict, weight, bias), x)
(ft_jacobian,) = vmap(vjp_fn)(unit_vectors)
print(torch.allclose(ft_jacobian, jacobian), torch.allclose(vjp_fn(unit_vectors[3])[0], jacobian[3]))
_, vjp_all = vjp(predict, weight, bias, x)
print([tuple(g.shape) for g in vjp_all(unit_vectors[1])])
jacobian_rev = jacrev(predict, argnums=2)(weight, bias, x)
jacobian_fwd = jacfwd(predict, argnums=2)(weight, bias, x)
print(out.shape, jacobian_rev.shape, torch.allclose(jacobian_rev, jacobian), torch.allclose(jacobian_fwd, jacobian_rev))
# analytically: diag(1 - tanh^2) @ W
print("analytic", close(jacobian_rev, (1 - out ** 2).unsqueeze(1) * weight))
report("jacobian", jacobian_rev)

# with respect to several arguments
jw, jb = jacrev(predict, argnums=(0, 1))(weight, bias, x)
fw, fb = jacfwd(predict, argnums=(0, 1))(weight, bias, x)
print(jw.shape, jb.shape, close(jw, fw), close(jb, fb), close(jb, torch.diag(1 - out ** 2)))
report("jac weight", jw)

# batched Jacobians: vmap over a batch, or the sum trick
xs = wave(4, Din, freq=0.29, phase=1.0)
compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
batch_jacobian0 = compute_batch_jacobian(weight, bias, xs)


def predict_with_output_summed(weight, bias, x):
    return predict(weight, bias, x).sum(0)


batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(weight, bias, xs).movedim(1, 0)
print(batch_jacobian0.shape, batch_jacobian1.shape, torch.allclose(batch_jacobian0, batch_jacobian1))
report("batch jacobian", batch_jacobian0)

# Hessians of predict's outputs: the API, and compositions of the Jacobian transforms
hess_api = hessian(predict, argnums=2)(weight, bias, x)
hess_fwdfwd = jacfwd(jacfwd(predict, argnums=2), argnums=2)(weight, bias, x)
hess_revrev = jacrev(jacrev(predict, argnums=2), argnums=2)(weight, bias, x)
print(hess_api.shape, torch.allclose(hess_api, hess_fwdfwd), torch.allclose(hess_api, hess_revrev))
report("hessian", hess_api)
compute_batch_hessian = vmap(hessian(predict, argnums=2), in_dims=(None, None, 0))
batch_hess = compute_batch_hessian(weight, bias, xs)
print(batch_hess.shape, close(batch_hess[2], hessian(predict, argnums=2)(weight, bias, xs[2])))
report("batch hessian", batch_hess)


def f(x):
    return x.sin().sum() + 0.5 * (x ** 2).sum() * x[0]


H = hessian(f)(x)
print(H.shape, close(H, H.T))
print(H[:3, :3])


def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]


def hvp_revrev(f, primals, tangents):
    _, vjp_fn = vjp(grad(f), *primals)
    return vjp_fn(*tangents)


def vhp(f, primals, tangents):
    _, vjp_fn = vjp(grad(f), *primals)
    return vjp_fn(tangents[0])[0]


v = wave(Din, freq=1.3, phase=0.2)
by_jvp = hvp(f, (x,), (v,))
(by_vjp,) = hvp_revrev(f, (x,), (v,))
print(by_jvp)
print(close(by_jvp, by_vjp), close(by_jvp, H @ v), close(vhp(f, (x,), (v,)), v @ H))
_, reference = torch.autograd.functional.hvp(f, x, v)
_, reference_vhp = torch.autograd.functional.vhp(f, x, v)
print("autograd.functional agrees", close(by_jvp, reference), close(reference_vhp, v @ H))
value, tangent_out = jvp(f, (x,), (v,))
print(round(value.item(), 10), round(tangent_out.item(), 10), round((grad(f)(x) @ v).item(), 10))

# Hessians of a tiny model's output with respect to each input point (vmapped), and with respect
# to its parameters (a dict of dicts)
tiny = init_fixed(nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)), scale=0.5, freq=0.8)
tiny_params = {k: v.detach() for k, v in tiny.named_parameters()}


def tiny_out(params, point):
    return functional_call(tiny, params, (point,)).squeeze()


points = wave(4, 3, freq=0.6)
per_sample_hessians = vmap(hessian(tiny_out, argnums=1), in_dims=(None, 0))(tiny_params, points)
print(per_sample_hessians.shape, close(per_sample_hessians, per_sample_hessians.transpose(1, 2)))
report("tiny hessians", per_sample_hessians)
param_hessian = hessian(tiny_out)(tiny_params, points[0])
print(sorted(param_hessian), tuple(param_hessian["0.weight"]["0.bias"].shape))

# as the ensembling tutorial does, the base model may live on the meta device: functional_call
# supplies every tensor, so it needs no storage of its own
meta_model = copy.deepcopy(models[0]).to("meta")
print(meta_model.fc1.weight.device, meta_model.fc1.weight.shape)


def fmodel_meta(params, buffers, x):
    return functional_call(meta_model, (params, buffers), (x,))


print("meta base model", close(vmap(fmodel_meta, in_dims=(0, 0, 0))(params, buffers, minibatches), after_vmap))
