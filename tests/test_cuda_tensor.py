"""Tensors on device 'cuda' (on Numba's simulator in CI): transfers, creation, device errors,
host-copy discipline, autograd, random numbers, and the ``minitorch.cuda`` module.

Values are checked against PyTorch on the CPU (the ``torch_ref`` oracle) or NumPy; tests
parametrised by the ``device`` fixture run the very same code on 'cpu' and 'cuda'.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from minitorch import Tensor

pytestmark = pytest.mark.usefixtures("small_cuda")

F64 = minitorch.float64
elementwise = pytest.mark.task("3.4")
reduction = pytest.mark.task("3.5")
matmul = pytest.mark.task("3.7")


def host(t: Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


# ---- minitorch.cuda ----


@elementwise
def test_cuda_module_reports_the_simulator() -> None:
    assert minitorch.cuda.is_available()
    assert minitorch.cuda.device_count() == 1
    assert minitorch.cuda.current_device() == 0
    if minitorch.cuda.is_simulator():
        assert minitorch.cuda.get_device_name() == "SIMULATOR"
    x = minitorch.ones(3, device="cuda") * 2
    minitorch.cuda.synchronize()
    assert x.tolist() == [2.0, 2.0, 2.0]


@elementwise
def test_no_gpu_means_unavailable_and_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from numba import cuda

    from minitorch.backends.cuda import CudaBackend

    monkeypatch.setattr(cuda, "is_available", lambda: False)
    assert not minitorch.cuda.is_available()
    assert minitorch.cuda.device_count() == 0
    assert minitorch.cuda.get_rng_state_all() == []
    with pytest.raises(RuntimeError, match="NUMBA_ENABLE_CUDASIM=1"):
        CudaBackend()


@elementwise
def test_import_and_cpu_path_never_load_numba_cuda() -> None:
    code = (
        "import sys, minitorch; x = minitorch.ones(3, 4); (x @ x.T).sum().item(); "
        "assert 'numba.cuda' not in sys.modules, 'numba.cuda was imported'"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


# ---- moving between devices ----


@elementwise
@pytest.mark.parametrize("dtype", [minitorch.float32, minitorch.float64, minitorch.float16, minitorch.int64, minitorch.int32, minitorch.bool, minitorch.uint8])
def test_round_trip_keeps_values_and_dtype(dtype: minitorch.dtype) -> None:
    values = (np.arange(12).reshape(3, 4) % 5).astype(dtype.numpy)
    x = minitorch.tensor(values)
    on_gpu = x.to("cuda")
    assert on_gpu.device == minitorch.device("cuda", 0) and on_gpu.is_cuda and on_gpu.dtype is dtype
    assert str(on_gpu.device) == "cuda:0"
    back = on_gpu.cpu()
    assert back.device == minitorch.device("cpu") and back.dtype is dtype
    np.testing.assert_array_equal(back.numpy(), values)
    assert on_gpu.to("cuda") is on_gpu and on_gpu.cuda() is on_gpu  # already there: no copy


@elementwise
def test_non_contiguous_views_move_and_print() -> None:
    x = minitorch.arange(24.0).view(2, 3, 4)
    view = x.permute(2, 0, 1)[1:, :, ::2]
    np.testing.assert_array_equal(host(view.cuda()), view.numpy())
    on_gpu = x.cuda().permute(2, 0, 1)[1:, :, ::2]
    assert not on_gpu.is_contiguous()
    np.testing.assert_array_equal(host(on_gpu), view.numpy())
    assert on_gpu.tolist() == view.tolist()
    assert on_gpu[1, 0, 1].item() == view[1, 0, 1].item()
    assert repr(minitorch.tensor([1.5, 2.0], device="cuda")) == "tensor([1.5000, 2.0000], device='cuda:0')"


@elementwise
def test_to_with_dtype_and_device_at_once() -> None:
    x = minitorch.tensor([1.7, -2.2])
    y = x.to("cuda", minitorch.int64)
    assert y.device.type == "cuda" and y.dtype is minitorch.int64 and y.tolist() == [1, -2]
    z = y.to(minitorch.tensor([0.0], dtype=F64))  # to(other): its device and dtype
    assert z.device.type == "cpu" and z.dtype is F64


@elementwise
def test_numpy_of_a_cuda_tensor_is_a_type_error() -> None:
    x = minitorch.ones(2, device="cuda")
    with pytest.raises(TypeError, match=r"can't convert cuda:0 device type tensor to numpy\. Use Tensor\.cpu\(\)"):
        x.numpy()
    np.testing.assert_array_equal(np.asarray(x), [1.0, 1.0])  # __array__ copies to the host


@elementwise
def test_device_index_past_the_last_gpu() -> None:
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        minitorch.zeros(2, device="cuda:1")
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        minitorch.ones(2).to("cuda:1")


@elementwise
def test_every_creation_function_takes_device() -> None:
    cuda = minitorch.device("cuda:0")
    like = minitorch.ones(2, 3, device="cuda")
    made = {
        "tensor": minitorch.tensor([[1, 2]], device="cuda"),
        "as_tensor": minitorch.as_tensor(np.ones(3), device="cuda"),
        "zeros": minitorch.zeros(2, device=cuda),
        "ones": minitorch.ones(2, device="cuda"),
        "full": minitorch.full((2,), 7, device="cuda"),
        "empty": minitorch.empty(2, device="cuda"),
        "rand": minitorch.rand(2, device="cuda"),
        "randn": minitorch.randn(2, device="cuda"),
        "randint": minitorch.randint(0, 5, (3,), device="cuda"),
        "arange": minitorch.arange(4, device="cuda"),
        "linspace": minitorch.linspace(0, 1, 5, device="cuda"),
        "eye": minitorch.eye(3, device="cuda"),
        "zeros_like": minitorch.zeros_like(like),
        "ones_like": minitorch.ones_like(like),
        "full_like": minitorch.full_like(like, 2.5),
        "empty_like": minitorch.empty_like(like),
        "rand_like": minitorch.rand_like(like),
        "randn_like": minitorch.randn_like(like),
        "new_zeros": like.new_zeros(2),
        "new_tensor": like.new_tensor([1.0]),
        "Tensor.to": minitorch.ones(1).to(device="cuda"),
    }
    for name, t in made.items():
        assert t.device == cuda, name
    assert made["full"].tolist() == [7, 7] and made["full"].dtype is minitorch.int64
    assert made["eye"].tolist() == np.eye(3).tolist()
    assert made["linspace"].tolist() == pytest.approx([0, 0.25, 0.5, 0.75, 1])
    assert minitorch.zeros_like(like, device="cpu").device.type == "cpu"
    z = minitorch.zeros(3, device="cuda", requires_grad=True)
    assert z.requires_grad and z.is_leaf


# ---- mixing devices ----


MIXED: dict[str, Callable[[Tensor, Tensor], Any]] = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "matmul": lambda a, b: a @ b,
    "lt": lambda a, b: a < b,
    "cat": lambda a, b: minitorch.cat([a, b]),
    "stack": lambda a, b: minitorch.stack([a, b]),
    "where": lambda a, b: minitorch.where(a > 0, a, b),
    "add_": lambda a, b: a.add_(b),
}


@elementwise
@pytest.mark.parametrize("name", list(MIXED))
def test_mixing_devices_is_pytorchs_error(name: str) -> None:
    cpu, gpu = minitorch.ones(2, 2), minitorch.ones(2, 2, device="cuda")
    message = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    for a, b in ((gpu, cpu), (cpu, gpu)):
        with pytest.raises(RuntimeError) as error:
            MIXED[name](a, b)
        assert str(error.value) == message


@elementwise
def test_copy_between_devices_is_allowed() -> None:
    """``copy_`` and item assignment move the source, as in PyTorch."""
    gpu = minitorch.zeros(2, 3, device="cuda")
    gpu.copy_(minitorch.tensor([1.0, 2.0, 3.0]))  # broadcast from the host
    gpu[0] = minitorch.tensor([4.0, 5.0, 6.0])
    assert gpu.tolist() == [[4, 5, 6], [1, 2, 3]]
    cpu = minitorch.zeros(3)
    cpu.copy_(gpu[1])
    assert cpu.tolist() == [1, 2, 3]


# ---- ops never copy values through the host ----


@elementwise
def test_ops_keep_values_on_the_device(monkeypatch: pytest.MonkeyPatch) -> None:
    """A forward and backward pass downloads nothing; only Python numbers go up (one element each)."""
    from minitorch.backends.cuda import CudaBackend

    a = minitorch.randn(3, 4, device="cuda", requires_grad=True)
    w = minitorch.randn(4, 5, device="cuda", requires_grad=True)
    uploads: list[int] = []
    downloads: list[int] = []
    real_upload = CudaBackend.upload
    monkeypatch.setattr(CudaBackend, "upload", lambda self, array: uploads.append(array.size) or real_upload(self, array))
    monkeypatch.setattr(CudaBackend, "download", lambda self, td: downloads.append(td.size))
    hidden = (a @ w).relu() + a.sum(1, keepdim=True).exp()
    # (max along a dim is left out: its backward builds an arange on the host, 1 upload per call)
    loss = hidden.max() + hidden.mean() + minitorch.cat([hidden[:, :2], hidden.T[1:3].T]).sigmoid().sum() * 0.5
    loss.backward()
    assert downloads == []
    assert all(size == 1 for size in uploads), sorted(set(uploads))
    assert a.grad.device.type == "cuda" and w.grad.device.type == "cuda"


# ---- the same code on both devices, against PyTorch ----


@elementwise
def test_elementwise_against_torch(device: str, torch_ref: Any) -> None:
    rng = np.random.default_rng(0)
    x_np, y_np = rng.uniform(0.5, 2, (3, 1, 4)), rng.uniform(-1, 1, (5, 4))
    x, y = minitorch.tensor(x_np, device=device), minitorch.tensor(y_np, device=device)
    tx, ty = torch_ref.tensor(x_np), torch_ref.tensor(y_np)
    cases = {
        "expr": ((x * y - y / x) ** 2, (tx * ty - ty / tx) ** 2),
        "unary": (x.log().sqrt() + y.tanh().sigmoid().relu(), tx.log().sqrt() + ty.tanh().sigmoid().relu()),
        "compare": ((x > y).long() - (y <= 0).int(), (tx > ty).long() - (ty <= 0).int()),
        "clamp": (y.clamp(-0.5, 0.3) * 3 + 1, ty.clamp(-0.5, 0.3) * 3 + 1),
        "float32": ((x.float() * y.float()).half().float(), (tx.float() * ty.float()).half().float()),
    }
    for name, (ours, theirs) in cases.items():
        assert ours.device.type == device, name
        assert ours.dtype.name == str(theirs.dtype).replace("torch.", ""), name
        np.testing.assert_allclose(host(ours), theirs.numpy(), rtol=1e-6, atol=1e-6, err_msg=name)


@reduction
@pytest.mark.parametrize("dim", [None, 0, 1, -1, (0, 2)], ids=str)
def test_reductions_against_torch(device: str, dim: Any, torch_ref: Any) -> None:
    values = np.random.default_rng(1).permutation(np.arange(60.0)).reshape(3, 5, 4) / 7
    x, tx = minitorch.tensor(values, device=device).permute(0, 2, 1), torch_ref.tensor(values).permute(0, 2, 1)
    ours = [x.sum(dim), x.mean(dim), x.var(dim)]
    theirs = [tx.sum(dim), tx.mean(dim), tx.var(dim)]
    if isinstance(dim, int):
        ours += [x.max(dim).values, x.min(dim).indices, x.argmax(dim), x.amax(dim, keepdim=True)]
        theirs += [tx.max(dim).values, tx.min(dim).indices, tx.argmax(dim), tx.amax(dim, keepdim=True)]
    for mine, reference in zip(ours, theirs):
        assert mine.device.type == device
        np.testing.assert_allclose(host(mine), reference.numpy(), rtol=1e-12, atol=1e-12)


@matmul
@pytest.mark.parametrize("shapes", [((5,), (5,)), ((3, 5), (5,)), ((2, 1, 5, 6), (3, 6, 7)), ((6,), (2, 6, 3))], ids=str)
def test_matmul_against_torch(device: str, shapes: tuple, torch_ref: Any) -> None:
    rng = np.random.default_rng(2)
    a_np, b_np = rng.uniform(-1, 1, shapes[0]), rng.uniform(-1, 1, shapes[1])
    b = minitorch.tensor(b_np, device=device)
    if b.dim() > 1:  # b as a transposed view of a contiguous transpose: non-contiguous
        b = b.transpose(-1, -2).contiguous().transpose(-1, -2)
    ours = minitorch.tensor(a_np, device=device) @ b
    np.testing.assert_allclose(host(ours), (torch_ref.tensor(a_np) @ torch_ref.tensor(b_np)).numpy(), rtol=1e-12, atol=1e-12)


# ---- autograd on cuda ----


def _mlp_loss(lib: Any, x: Any, w1: Any, b1: Any, w2: Any) -> Any:
    """A small network touching matmul, broadcasting, views, indexing, cat and reductions."""
    hidden = (x @ w1 + b1).relu()
    scores = (hidden @ w2).tanh()
    joined = lib.cat([scores[:, :1], scores.T.T[:, 1:] * 2], 1)
    return (joined.exp().sum(1).log() - joined.max(1).values).mean() + (w1**2).sum() * 0.01


@matmul
def test_training_gradients_match_torch_and_stay_on_the_device(torch_ref: Any) -> None:
    rng = np.random.default_rng(3)
    arrays = [rng.uniform(-1, 1, s) for s in ((6, 5), (5, 7), (7,), (7, 3))]
    x, *params = [minitorch.tensor(a, device="cuda", requires_grad=i > 0) for i, a in enumerate(arrays)]
    tx, *tparams = [torch_ref.tensor(a, requires_grad=i > 0) for i, a in enumerate(arrays)]
    loss = _mlp_loss(minitorch, x, *params)
    assert loss.device.type == "cuda"
    loss.backward()
    _mlp_loss(torch_ref, tx, *tparams).backward()
    np.testing.assert_allclose(loss.item(), _mlp_loss(torch_ref, tx, *tparams).item(), rtol=1e-12)
    for p, tp in zip(params, tparams):
        assert p.grad.device == minitorch.device("cuda:0") and p.grad.dtype is F64
        np.testing.assert_allclose(host(p.grad), tp.grad.numpy(), rtol=1e-10, atol=1e-12)
    first = host(params[0].grad)
    _mlp_loss(minitorch, x, *params).backward()  # a second pass accumulates on the device
    assert params[0].grad.device.type == "cuda"
    np.testing.assert_allclose(host(params[0].grad), 2 * first, rtol=1e-12)
    with minitorch.no_grad():  # an SGD step in place, on the device
        params[0].sub_(params[0].grad * 0.1)
    np.testing.assert_allclose(host(params[0]), arrays[1] - 0.2 * first, rtol=1e-12)


@elementwise
def test_gradient_flows_back_across_devices(torch_ref: Any) -> None:
    """``x.cuda()`` and ``y.cpu()`` are in the graph: each gradient lands on its tensor's device."""
    x = minitorch.tensor([[1.0, -2.0], [3.0, 0.5]], dtype=F64, requires_grad=True)
    gpu = x.cuda()
    assert gpu.grad_fn is not None and not gpu.is_leaf
    back = (gpu * gpu).cpu()
    (back.sum() + gpu.sum().cpu()).backward()
    assert x.grad.device.type == "cpu"
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy() + 1)


# ---- random numbers ----


@elementwise
def test_cuda_generator_is_seeded_with_the_cpu_one_and_separate() -> None:
    minitorch.manual_seed(5)
    first_cpu = minitorch.rand(4).tolist()
    minitorch.manual_seed(5)
    assert minitorch.rand(4, device="cuda").tolist() == first_cpu  # same seed, same draws
    assert minitorch.rand(4).tolist() == first_cpu  # the cuda draw left the cpu sequence alone
    minitorch.cuda.manual_seed(9)
    assert minitorch.cuda.initial_seed() == 9 and minitorch.initial_seed() == 5


@elementwise
def test_cuda_rng_state_round_trips() -> None:
    state = minitorch.cuda.get_rng_state()
    assert state.dtype is minitorch.uint8 and state.device.type == "cpu"
    first = minitorch.randn(5, device="cuda").tolist()
    minitorch.cuda.set_rng_state(state)
    assert minitorch.randn(5, device="cuda").tolist() == first
    states = minitorch.cuda.get_rng_state_all()
    assert len(states) == 1
    again = minitorch.randint(0, 100, (6,), device="cuda").tolist()
    minitorch.cuda.set_rng_state_all(states)
    assert minitorch.randint(0, 100, (6,), device="cuda").tolist() == again
    with pytest.raises(RuntimeError, match="uint8 tensor"):
        minitorch.cuda.set_rng_state(minitorch.zeros(3))
