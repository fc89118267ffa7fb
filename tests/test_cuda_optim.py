"""The cuda backend's fused optimizer updates (``backends/cuda_optim.py``): one launch per parameter.

Oracle: the same steps by the tensor ops on the cpu backend (which the cpu's fused kernels
match bit for bit, ``test_fused_adam.py``, ``test_fused_sgd.py``). On Numba's simulator the
float64 steps match exactly; a GPU may fuse a product and a sum into one multiply-add (one
rounding instead of two), so elsewhere the results agree to a few units in the last place.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import fused_optim_runs as runs
import minitorch
from minitorch.backends import cuda as cuda_backend
from minitorch.optim import sgd as sgd_module
from minitorch.optim_dispatch import fused_update_fits
from test_fused_adam import ADAM
from test_fused_adam import VARIANTS as ADAM_VARIANTS
from test_fused_sgd import SGD
from test_fused_sgd import VARIANTS as SGD_VARIANTS

pytestmark = pytest.mark.usefixtures("small_cuda")

#: elements of the parameter: more than the 3 blocks of 8 threads small_cuda allows, so each
#: thread updates several elements (the kernels' grid-stride loop)
SHAPE = (7, 5)
DTYPES = [minitorch.float32, minitorch.float64]


def assert_close_runs(on_cuda: runs.Run, on_cpu: runs.Run, dtype: minitorch.dtype) -> None:
    exact = minitorch.cuda.is_simulator() and dtype is minitorch.float64
    tolerance = 0 if exact else (2e-6 if dtype is minitorch.float32 else 1e-14)
    np.testing.assert_allclose(on_cuda.param, on_cpu.param, rtol=tolerance, atol=tolerance)
    assert on_cuda.state.keys() == on_cpu.state.keys()
    for name in on_cuda.state:
        np.testing.assert_allclose(on_cuda.state[name], on_cpu.state[name], rtol=tolerance, atol=tolerance, err_msg=name)


CASES = [(ADAM, options) for options in ADAM_VARIANTS] + [(SGD, options) for options in SGD_VARIANTS]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("optimizer, options", CASES, ids=[f"{o.make.__name__}{options}" for o, options in CASES])
def test_steps_on_cuda_are_fused_and_match_the_tensor_ops(dtype: minitorch.dtype, optimizer: runs.Optimizer,
                                                          options: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    grads = runs.gradients(optimizer, dtype, SHAPE)
    on_cuda = runs.train(optimizer, dtype, options, True, monkeypatch, grads, device="cuda")
    on_cpu = runs.train(optimizer, dtype, options, False, monkeypatch, grads)
    assert (on_cuda.fused_steps, on_cpu.fused_steps) == (optimizer.steps, 0)
    assert_close_runs(on_cuda, on_cpu, dtype)


def test_nan_gradients_and_amsgrad_keep_nan_as_the_tensor_ops_do(monkeypatch: pytest.MonkeyPatch) -> None:
    grads = runs.gradients(ADAM, minitorch.float64, SHAPE)
    grads[2][0, :3] = np.nan
    options = {"amsgrad": True}
    on_cuda = runs.train(ADAM, minitorch.float64, options, True, monkeypatch, grads, device="cuda")
    on_cpu = runs.train(ADAM, minitorch.float64, options, False, monkeypatch, grads)
    assert np.isnan(on_cuda.param[0, :3]).all() and np.isnan(on_cuda.state["max_exp_avg_sq"][0, :3]).all()
    assert_close_runs(on_cuda, on_cpu, minitorch.float64)


def test_one_launch_per_parameter(monkeypatch: pytest.MonkeyPatch) -> None:
    launches: list[str] = []
    for name in ("adam_step", "sgd_step"):
        real = getattr(cuda_backend.cuda_optim, name)
        monkeypatch.setattr(cuda_backend.cuda_optim, name,
                            lambda *args, _real=real, _name=name: (launches.append(_name), _real(*args))[1])
    params = [minitorch.zeros(4, 3, device="cuda", requires_grad=True), minitorch.zeros(3, device="cuda", requires_grad=True)]
    for stepper, name in ((minitorch.optim.Adam(params, lr=0.1), "adam_step"), (minitorch.optim.SGD(params, lr=0.1, momentum=0.9), "sgd_step")):
        for p in params:
            p.grad = minitorch.ones(*p.shape, device="cuda")
        stepper.step()
        assert launches == [name, name]
        launches.clear()
    assert params[1].device.type == "cuda" and params[1].tolist() != [0.0, 0.0, 0.0]


def test_device_operands_that_share_memory_take_the_tensor_ops() -> None:
    storage = minitorch.zeros(10, device="cuda")
    param, grad, buffer = storage[:4], storage[4:8], minitorch.zeros(4, device="cuda")
    assert fused_update_fits(param, grad, (buffer,))  # views of one allocation, apart
    assert not fused_update_fits(param, storage[2:6], (buffer,))  # overlapping
    assert not fused_update_fits(param, grad, (storage[3:7],))
    assert not fused_update_fits(storage[::2][:4], grad, ())  # strided
    assert fused_update_fits(minitorch.zeros(0, device="cuda"), minitorch.zeros(0, device="cuda"), ())


def test_an_overlapping_step_still_updates_correctly_through_the_tensor_ops(monkeypatch: pytest.MonkeyPatch) -> None:
    fused_answers: list[bool] = []
    real = sgd_module.fused_sgd_fits

    def spy(*args: Any) -> bool:
        fused_answers.append(real(*args))
        return fused_answers[-1]

    monkeypatch.setattr(sgd_module, "fused_sgd_fits", spy)
    param = minitorch.tensor([1.0, 2.0, 3.0], device="cuda", requires_grad=True)
    param.grad = param.detach()[:]  # the gradient is the parameter's own memory
    minitorch.optim.SGD([param], lr=0.5).step()
    assert fused_answers == [False]
    assert param.tolist() == [0.5, 1.0, 1.5]


def test_amsgrad_keeps_a_nan_running_maximum() -> None:
    # the running maximum is the tensor op ``maximum``, which keeps a NaN it already holds
    from minitorch.backends.base import AdamStep
    from minitorch.optim_dispatch import adam_step_op

    param, grad = minitorch.ones(3, device="cuda"), minitorch.ones(3, device="cuda")
    exp_avg, exp_avg_sq = minitorch.zeros(3, device="cuda"), minitorch.zeros(3, device="cuda")
    running_max = minitorch.tensor([float("nan"), 0.0, 1.0], device="cuda")
    beta1, beta2, lr = 0.9, 0.999, 0.1
    step = AdamStep(beta1=beta1, beta2=beta2, eps=1e-8, lr=lr, step_size=lr / (1 - beta1),
                    bias_correction2_sqrt=(1 - beta2) ** 0.5)
    adam_step_op(param, grad, exp_avg, exp_avg_sq, running_max, step)
    top, theta = running_max.tolist(), param.tolist()
    assert np.isnan(top[0]) and np.isnan(theta[0])
    assert top[1:] == pytest.approx([1 - beta2, 1.0]) and exp_avg_sq.tolist() == pytest.approx([1 - beta2] * 3)
    assert theta[1] == pytest.approx(1 - lr, rel=1e-6) and theta[1] < theta[2] < 1  # a larger maximum, a shorter step
