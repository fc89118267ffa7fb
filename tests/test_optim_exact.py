"""NAdam, RAdam, RMSprop, Adagrad, Adadelta, Adamax, ASGD and Rprop compute PyTorch's arithmetic,
op for op.

The oracle is PyTorch's own ``_single_tensor_*`` update (its default on CPU) written out below with
torch's tensor ops, in PyTorch's order, except that each tensor square root can be NumPy's.
PyTorch's float square root on CPU is not correctly rounded (a fraction of a percent of float32
elements are one ulp off), so a trajectory through it cannot be reproduced bit for bit. Hence:

* with torch's own square root the oracle equals ``torch.optim`` bit for bit (the transcription
  is faithful);
* with NumPy's square root the oracle equals ``minitorch.optim`` bit for bit, parameters and
  every state tensor, after every step, in float32 and float64;
* and ``minitorch.optim`` stays close to ``torch.optim`` (``torch.testing.assert_close``).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minitorch

torch = pytest.importorskip("torch")

#: enough elements that some of PyTorch's float32 square roots are an ulp away from IEEE's
SHAPE = (16, 33)
#: enough steps for RAdam's rectified branch with its default betas (from step 6) and ASGD's averaging
STEPS = 8
SEED = 12
DTYPES = ["float32", "float64"]
#: backends whose ``add(alpha=)``, ``lerp`` and ``addcmul`` round once, as PyTorch's CPU kernels do
#: (every cpu backend: the list is there for one that would not)
FUSED_BACKENDS = {"cpu", "simple"}

Sqrt = Callable[[Any], Any]
Update = Callable[[Any, Any, dict[str, Any], dict[str, Any], Sqrt], None]


def numpy_sqrt(values: Any) -> Any:
    """The correctly rounded square root (IEEE's, NumPy's) of a torch tensor."""
    return torch.from_numpy(np.sqrt(values.numpy()))


# The updates below are PyTorch's, transcribed op for op with the literal constants of its source
# (NAdam's 0.96, RAdam's threshold 5); ``sqrt`` stands for each tensor square root.


def _scalar(value: float) -> Any:
    """A 0-d state tensor of the default float dtype, as PyTorch keeps steps and running scalars."""
    return torch.tensor(value, dtype=torch.get_default_dtype())


def _step(state: dict[str, Any]) -> float:
    """Count the step in the state's 0-d tensor; PyTorch's step number is that tensor's value."""
    state["step"] += 1
    return state["step"].item()


def _directed_and_decayed(param: Any, grad: Any, group: dict[str, Any]) -> Any:
    """PyTorch's ``maximize`` negation, then (coupled or decoupled) weight decay."""
    grad = -grad if group["maximize"] else grad
    weight_decay = group.get("weight_decay", 0)
    if weight_decay != 0:
        if group.get("decoupled_weight_decay", False):
            param.mul_(1 - group["lr"] * weight_decay)
        else:
            grad = grad.add(param, alpha=weight_decay)
    return grad


def nadam(param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any], sqrt: Sqrt) -> None:
    """PyTorch's ``_single_tensor_nadam`` for one parameter."""
    if not state:
        state.update(step=_scalar(0.0), mu_product=_scalar(1.0), exp_avg=torch.zeros_like(param),
                     exp_avg_sq=torch.zeros_like(param))
    lr, (beta1, beta2), decay = group["lr"], group["betas"], group["momentum_decay"]
    step = _step(state)
    bias_correction2 = 1 - beta2**step
    grad = _directed_and_decayed(param, grad, group)
    mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * decay)))
    mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * decay)))
    state["mu_product"] *= mu
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    denom = sqrt(exp_avg_sq.div(bias_correction2))
    mu_product_next = state["mu_product"].item() * mu_next
    denom.add_(group["eps"])
    param.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - state["mu_product"].item())))
    param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))


def radam(param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any], sqrt: Sqrt) -> None:
    """PyTorch's ``_single_tensor_radam`` for one parameter."""
    if not state:
        state.update(step=_scalar(0.0), exp_avg=torch.zeros_like(param), exp_avg_sq=torch.zeros_like(param))
    lr, (beta1, beta2) = group["lr"], group["betas"]
    step = _step(state)
    grad = _directed_and_decayed(param, grad, group)
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    bias_correction1 = 1 - beta1**step
    bias_correction2 = 1 - beta2**step
    bias_corrected_exp_avg = exp_avg / bias_correction1
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
    if rho_t > 5.0:
        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
        adaptive_lr = (bias_correction2**0.5) / sqrt(exp_avg_sq).add_(group["eps"])
        param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
    else:
        param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)


def rmsprop(param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any], sqrt: Sqrt) -> None:
    """PyTorch's ``_single_tensor_rmsprop`` for one parameter."""
    if not state:
        state.update(step=_scalar(0.0), square_avg=torch.zeros_like(param))
        if group["momentum"] > 0:
            state["momentum_buffer"] = torch.zeros_like(param)
        if group["centered"]:
            state["grad_avg"] = torch.zeros_like(param)
    alpha = group["alpha"]
    _step(state)
    grad = _directed_and_decayed(param, grad, group)
    square_avg = state["square_avg"]
    square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
    if group["centered"]:
        state["grad_avg"].lerp_(grad, 1 - alpha)
        avg = sqrt(square_avg.addcmul(state["grad_avg"], state["grad_avg"], value=-1))
    else:
        avg = sqrt(square_avg)
    avg = avg.add_(group["eps"])
    if group["momentum"] > 0:
        state["momentum_buffer"].mul_(group["momentum"]).addcdiv_(grad, avg)
        param.add_(state["momentum_buffer"], alpha=-group["lr"])
    else:
        param.addcdiv_(grad, avg, value=-group["lr"])


def adagrad(param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any], sqrt: Sqrt) -> None:
    """PyTorch's ``_single_tensor_adagrad`` for one parameter."""
    if not state:
        state.update(step=_scalar(0.0), sum=torch.full_like(param, group["initial_accumulator_value"]))
    step = _step(state)
    grad = _directed_and_decayed(param, grad, group)
    clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
    state["sum"].addcmul_(grad, grad, value=1)
    std = sqrt(state["sum"]).add_(group["eps"])
    param.addcdiv_(grad, std, value=-clr)


def adadelta(param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any], sqrt: Sqrt) -> None:
    """PyTorch's ``_single_tensor_adadelta`` for one parameter."""
    if not state:
        state.update(step=_scalar(0.0), square_avg=torch.zeros_like(param), acc_delta=torch.zeros_like(param))
    rho, eps = group["rho"], group["eps"]
    _step(state)
    grad = _directed_and_decayed(param, grad, group)
    square_avg, acc_delta = state["square_avg"], state["acc_delta"]
    square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
    std = sqrt(square_avg.add(eps))
    delta = sqrt(acc_delta.add(eps))
    delta.div_(std).mul_(grad)
    acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
    param.add_(delta, alpha=-group["lr"])


def adamax(param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any], sqrt: Sqrt) -> None:
    """PyTorch's ``_single_tensor_adamax`` for one parameter."""
    if not state:
        state.update(step=_scalar(0.0), exp_avg=torch.zeros_like(param), exp_inf=torch.zeros_like(param))
    beta1, beta2 = group["betas"]
    step = _step(state)
    grad = _directed_and_decayed(param, grad, group)
    exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
    exp_avg.lerp_(grad, 1 - beta1)
    torch.maximum(exp_inf.mul_(beta2), grad.abs().add_(group["eps"]), out=exp_inf)
    clr = group["lr"] / (1 - beta1**step)
    param.addcdiv_(exp_avg, exp_inf, value=-clr)


def asgd(param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any], sqrt: Sqrt) -> None:
    """PyTorch's ``_single_tensor_asgd`` for one parameter."""
    if not state:
        state.update(step=_scalar(0.0), eta=_scalar(group["lr"]), mu=_scalar(1.0), ax=torch.zeros_like(param))
    lr, lambd = group["lr"], group["lambd"]
    _step(state)
    grad = _directed_and_decayed(param, grad, group)
    eta = state["eta"].item()
    param.mul_(1 - lambd * eta)
    param.add_(grad, alpha=-eta)
    if state["mu"].item() != 1:
        state["ax"].add_(param.sub(state["ax"]).mul_(state["mu"]))
    else:
        state["ax"].copy_(param)
    step = state["step"].item()
    state["eta"].copy_(torch.as_tensor(lr / ((1 + lambd * lr * step) ** group["alpha"])))
    state["mu"].copy_(torch.as_tensor(1 / max(1, step - group["t0"])))


def rprop(param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any], sqrt: Sqrt) -> None:
    """PyTorch's ``_single_tensor_rprop`` for one parameter."""
    if not state:
        state.update(step=_scalar(0.0), prev=torch.zeros_like(param),
                     step_size=torch.full_like(param, group["lr"]))
    etaminus, etaplus = group["etas"]
    grad = -grad if group["maximize"] else grad
    _step(state)
    sign = grad.mul(state["prev"]).sign()
    sign[sign.gt(0)] = etaplus
    sign[sign.lt(0)] = etaminus
    sign[sign.eq(0)] = 1
    state["step_size"].mul_(sign).clamp_(*group["step_sizes"])
    grad = grad.clone(memory_format=torch.preserve_format)
    grad[sign.eq(etaminus)] = 0
    param.addcmul_(grad.sign(), state["step_size"], value=-1)
    state["prev"].copy_(grad)


ORACLES: dict[str, Update] = {"NAdam": nadam, "RAdam": radam, "RMSprop": rmsprop, "Adagrad": adagrad,
                              "Adadelta": adadelta, "Adamax": adamax, "ASGD": asgd, "Rprop": rprop}

#: each flag and option away from its default, one at a time, and a few together
CASES: dict[str, list[dict[str, Any]]] = {
    "NAdam": [{}, {"lr": 0.05, "betas": (0.5, 0.9)}, {"weight_decay": 0.1}, {"momentum_decay": 0.1},
              {"weight_decay": 0.1, "decoupled_weight_decay": True}, {"maximize": True, "eps": 1e-3}],
    "RAdam": [{}, {"lr": 0.05, "betas": (0.5, 0.9)}, {"weight_decay": 0.1}, {"eps": 1e-2},
              {"weight_decay": 0.1, "decoupled_weight_decay": True}, {"maximize": True, "betas": (0.5, 0.9)}],
    "RMSprop": [{}, {"alpha": 0.9}, {"centered": True}, {"momentum": 0.5}, {"centered": True, "momentum": 0.5},
                {"weight_decay": 0.1}, {"maximize": True, "eps": 1e-3}],
    "Adagrad": [{}, {"lr_decay": 0.1}, {"initial_accumulator_value": 0.5}, {"weight_decay": 0.1},
                {"eps": 1e-2}, {"maximize": True, "lr_decay": 0.1, "initial_accumulator_value": 0.5}],
    "Adadelta": [{}, {"lr": 0.3, "rho": 0.5}, {"eps": 1e-2}, {"weight_decay": 0.1}, {"maximize": True}],
    "Adamax": [{}, {"lr": 0.05, "betas": (0.5, 0.9)}, {"eps": 0.1}, {"weight_decay": 0.1}, {"maximize": True}],
    "ASGD": [{}, {"t0": 3.0}, {"lambd": 0.1, "alpha": 0.5, "t0": 2.0}, {"weight_decay": 0.1},
             {"maximize": True, "t0": 4.0}],
    "Rprop": [{}, {"lr": 0.2, "etas": (0.3, 1.5)}, {"step_sizes": (1e-3, 0.05)}, {"maximize": True}],
}
PARAMS = [(name, options) for name, cases in CASES.items() for options in cases]
IDS = [f"{name}-" + ("-".join(f"{k}={v}" for k, v in options.items()) or "defaults") for name, options in PARAMS]


def _data(dtype: str) -> tuple[np.ndarray, list[np.ndarray]]:
    """A starting parameter and one random gradient per step, drawn with NumPy."""
    rng = np.random.default_rng(SEED)
    start = rng.standard_normal(SHAPE).astype(dtype)
    return start, [rng.standard_normal(SHAPE).astype(dtype) for _ in range(STEPS)]


def _snapshot(param: Any, state: dict[str, Any]) -> dict[str, np.ndarray]:
    """The parameter and every tensor of its state, as NumPy copies."""
    tensors = {"param": param.detach()} | {key: value for key, value in state.items() if hasattr(value, "numpy")}
    return {key: np.array(value.numpy(), copy=True) for key, value in tensors.items()}


def run_library(lib: Any, name: str, options: dict[str, Any], dtype: str) -> list[dict[str, np.ndarray]]:
    """``lib.optim.<name>``'s parameter and state after each step (``lib`` is minitorch or torch)."""
    start, grads = _data(dtype)
    param = lib.tensor(start, requires_grad=True)
    extra = {"foreach": False} if lib is torch else {}  # torch's single-tensor update, its CPU default
    optimizer = getattr(lib.optim, name)([param], **options, **extra)
    history = []
    for grad in grads:
        param.grad = lib.tensor(grad)
        optimizer.step()
        history.append(_snapshot(param, optimizer.state[param]))
    return history


def run_oracle(name: str, options: dict[str, Any], dtype: str, sqrt: Sqrt) -> list[dict[str, np.ndarray]]:
    """The oracle's parameter and state after each step, with PyTorch's group defaults."""
    start, grads = _data(dtype)
    param = torch.tensor(start)
    group = getattr(torch.optim, name)([torch.zeros(1, requires_grad=True)], **options).param_groups[0]
    state: dict[str, Any] = {}
    history = []
    with torch.no_grad():
        for grad in grads:
            ORACLES[name](param, torch.tensor(grad), state, group, sqrt)
            history.append(_snapshot(param, state))
    return history


def assert_bit_equal(ours: list[dict[str, np.ndarray]], theirs: list[dict[str, np.ndarray]]) -> None:
    """The same parameter and state tensors (keys in order, dtypes, every bit) after each step."""
    assert len(ours) == len(theirs) == STEPS
    for step, (mine, reference) in enumerate(zip(ours, theirs), start=1):
        assert list(mine) == list(reference), f"state keys after step {step}"
        for key, expected in reference.items():
            assert mine[key].dtype == expected.dtype, f"{key} after step {step}"
            np.testing.assert_array_equal(mine[key], expected, err_msg=f"{key} after step {step}", strict=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, options", PARAMS, ids=IDS)
def test_oracle_with_torch_sqrt_is_torch_optim(name: str, options: dict[str, Any], dtype: str) -> None:
    assert_bit_equal(run_oracle(name, options, dtype, torch.sqrt), run_library(torch, name, options, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, options", PARAMS, ids=IDS)
def test_minitorch_is_the_oracle_bit_for_bit(name: str, options: dict[str, Any], dtype: str) -> None:
    ours = run_library(minitorch, name, options, dtype)
    assert_bit_equal(ours, run_oracle(name, options, dtype, numpy_sqrt))
    assert not np.array_equal(ours[-1]["param"], _data(dtype)[0])  # the parameter really moved


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name, options", PARAMS, ids=IDS)
def test_minitorch_is_close_to_torch_optim(name: str, options: dict[str, Any], dtype: str) -> None:
    ours, theirs = run_library(minitorch, name, options, dtype), run_library(torch, name, options, dtype)
    for step, (mine, reference) in enumerate(zip(ours, theirs), start=1):
        for key, expected in reference.items():
            torch.testing.assert_close(torch.from_numpy(mine[key]), torch.from_numpy(expected),
                                       msg=lambda text, key=key, step=step: f"{key} after step {step}: {text}")


#: one case per optimizer with most of its flags on, for every backend
RICH = {"NAdam": {"weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True, "momentum_decay": 0.1},
        "RAdam": {"betas": (0.5, 0.9), "weight_decay": 0.1, "maximize": True},
        "RMSprop": {"centered": True, "momentum": 0.5, "weight_decay": 0.1, "maximize": True},
        "Adagrad": {"lr_decay": 0.1, "initial_accumulator_value": 0.5, "weight_decay": 0.1, "maximize": True},
        "Adadelta": {"rho": 0.5, "weight_decay": 0.1, "maximize": True},
        "Adamax": {"betas": (0.5, 0.9), "weight_decay": 0.1, "maximize": True},
        "ASGD": {"lambd": 0.1, "t0": 3.0, "weight_decay": 0.1, "maximize": True},
        "Rprop": {"etas": (0.3, 1.5), "step_sizes": (1e-3, 0.05), "maximize": True}}


@pytest.mark.parametrize("name", list(RICH))
def test_every_backend_follows_the_oracle(backend: str, name: str) -> None:
    ours = run_library(minitorch, name, RICH[name], "float32")
    theirs = run_oracle(name, RICH[name], "float32", numpy_sqrt)
    if backend in FUSED_BACKENDS:
        assert_bit_equal(ours, theirs)
    for mine, reference in zip(ours, theirs):
        for key, expected in reference.items():
            torch.testing.assert_close(torch.from_numpy(mine[key]), torch.from_numpy(expected))


def test_rprop_with_a_nan_gradient_is_torch_optim_bit_for_bit() -> None:
    """Rprop takes no square root, so it is PyTorch's to the bit, NaN gradients included (a NaN
    product of gradients has sign 0: that coordinate keeps its step size and does not move)."""
    def nan_run(lib: Any) -> list[dict[str, np.ndarray]]:
        param = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        optimizer = lib.optim.Rprop([param], **({"foreach": False} if lib is torch else {}))
        history = []
        for grad in ([0.5, float("nan"), -1.0], [0.25, 1.0, 1.0], [-0.5, 2.0, 1.0]):
            param.grad = lib.tensor(grad)
            optimizer.step()
            history.append(_snapshot(param, optimizer.state[param]))
        return history

    ours, theirs = nan_run(minitorch), nan_run(torch)
    assert np.isnan(theirs[0]["prev"][1])
    for step, (mine, reference) in enumerate(zip(ours, theirs), start=1):
        for key, expected in reference.items():
            np.testing.assert_array_equal(mine[key], expected, err_msg=f"{key} after step {step}", strict=True)
