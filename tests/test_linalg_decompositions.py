"""``minitorch.linalg``'s decompositions and solvers against ``torch.linalg`` in float64: values,
gradients of the same losses, PyTorch's error messages; the backward formulas also against
central differences, and a second derivative through ``create_graph``."""

from __future__ import annotations

from types import ModuleType
from typing import Callable

import numpy as np
import pytest

import minitorch
from minitorch import linalg

RNG = np.random.default_rng(7)


def random(*shape: int) -> np.ndarray:
    return RNG.normal(size=shape)


def spd(*shape: int) -> np.ndarray:
    """Symmetric positive-definite matrices of the given (batch, n, n) shape."""
    m = random(*shape)
    return m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])


def symmetric(*shape: int) -> np.ndarray:
    m = random(*shape)
    return m + np.swapaxes(m, -1, -2)


def both(torch: ModuleType, array: np.ndarray) -> tuple[minitorch.Tensor, "object"]:
    ours = minitorch.tensor(array, dtype=minitorch.float64, requires_grad=True)
    theirs = torch.tensor(array, dtype=torch.float64, requires_grad=True)
    return ours, theirs


def close(ours: minitorch.Tensor, theirs: "object", tol: float = 1e-9) -> None:
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol, atol=tol)


# Each case: input maker, and a loss written once for both libraries (``lib`` is minitorch or torch).
# Losses of eigenvectors and singular vectors are gauge invariant: a vector's sign cannot matter.
CASES: dict[str, tuple[Callable[[], np.ndarray], Callable]] = {
    "inv": (lambda: random(2, 3, 3) + 3 * np.eye(3), lambda lib, a, w: (lib.linalg.inv(a) * w).sum()),
    "det": (lambda: random(2, 3, 3), lambda lib, a, w: (lib.linalg.det(a) * w[..., 0, 0]).sum()),
    "slogdet": (lambda: random(3, 3), lambda lib, a, w: lib.linalg.slogdet(a)[1] * w[0, 0]),
    "logdet": (lambda: spd(3, 3), lambda lib, a, w: lib.logdet(a) * w[0, 0]),
    "solve": (lambda: random(2, 3, 3) + 3 * np.eye(3), lambda lib, a, w: (lib.linalg.solve(a, w) * w).sum()),
    "solve vector": (lambda: random(3, 3) + 3 * np.eye(3), lambda lib, a, w: (lib.linalg.solve(a, w[:, 0]) * w[:, 1]).sum()),
    "solve right": (lambda: random(3, 3) + 3 * np.eye(3), lambda lib, a, w: (lib.linalg.solve(a, w, left=False) ** 2).sum()),
    "solve_triangular": (lambda: random(3, 3) + 3 * np.eye(3),
                         lambda lib, a, w: (lib.linalg.solve_triangular(a, w, upper=True) * w).sum()),
    "cholesky": (lambda: spd(2, 4, 4), lambda lib, a, w: (lib.linalg.cholesky(a) * w).sum()),
    "cholesky upper": (lambda: spd(4, 4), lambda lib, a, w: (lib.linalg.cholesky(a, upper=True) * w).sum()),
    "qr tall": (lambda: random(5, 3), lambda lib, a, w: _qr_loss(lib, a, w[:5, :3])),
    "qr square": (lambda: random(2, 3, 3), lambda lib, a, w: (lib.linalg.qr(a)[0] * w).sum() + (lib.linalg.qr(a)[1] ** 2).sum()),
    "eigh": (lambda: symmetric(2, 4, 4), lambda lib, a, w: _eigh_loss(lib, a, w)),
    "eigvalsh": (lambda: symmetric(4, 4), lambda lib, a, w: (lib.linalg.eigvalsh(a) * w[0]).sum()),
    "svd tall": (lambda: random(5, 3), lambda lib, a, w: _svd_loss(lib, a, w[:5, :3])),
    "svd wide": (lambda: random(2, 3, 5), lambda lib, a, w: _svd_loss(lib, a, w[..., :3, :5])),
    "svdvals": (lambda: random(4, 3), lambda lib, a, w: (lib.linalg.svdvals(a) ** 3).sum()),
    "pinv": (lambda: random(4, 3), lambda lib, a, w: (lib.linalg.pinv(a) * w[:3, :4]).sum()),
    "matrix_exp": (lambda: random(2, 4, 4), lambda lib, a, w: (lib.linalg.matrix_exp(a) * w).sum()),
    "matrix_exp large norm": (lambda: 4 * random(3, 3), lambda lib, a, w: (lib.matrix_exp(a) * w[:3, :3]).sum()),
    "matrix_power": (lambda: random(3, 3) / 2, lambda lib, a, w: (lib.linalg.matrix_power(a, 5) * w[:3, :3]).sum()),
    "matrix_power negative": (lambda: random(3, 3) + 3 * np.eye(3),
                              lambda lib, a, w: (lib.linalg.matrix_power(a, -2) * w[:3, :3]).sum()),
}


def _qr_loss(lib: ModuleType, a: "object", w: "object") -> "object":
    Q, R = lib.linalg.qr(a)
    return (Q * w).sum() + (R * w[:3, :3]).sum()


def _eigh_loss(lib: ModuleType, a: "object", w: "object") -> "object":
    values, vectors = lib.linalg.eigh(a)
    projector = vectors @ (vectors * values.unsqueeze(-2).exp()).mT  # V diag(e^L) V^T: no sign ambiguity
    return (values * w[..., 0, :]).sum() + (projector * w).sum()


def _svd_loss(lib: ModuleType, a: "object", w: "object") -> "object":
    U, S, Vh = lib.linalg.svd(a, full_matrices=False)
    return (S ** 2).sum() + ((U * (S ** 0.5).unsqueeze(-2)) @ Vh * w).sum()


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_equal_torch(torch_ref: ModuleType, name: str) -> None:
    make, loss = CASES[name]
    array = make()
    ours, theirs = both(torch_ref, array)
    w = np.random.default_rng(1).normal(size=array.shape[:-2] + (array.shape[-1], array.shape[-1]))
    if name in ("svd tall", "svd wide", "pinv", "qr tall"):
        w = np.random.default_rng(1).normal(size=array.shape[:-2] + (5, 5))
    if name == "eigvalsh":
        w = np.random.default_rng(1).normal(size=(4, 4))
    w_ours, w_theirs = minitorch.tensor(w, dtype=minitorch.float64), torch_ref.tensor(w, dtype=torch_ref.float64)
    loss_ours, loss_theirs = loss(minitorch, ours, w_ours), loss(torch_ref, theirs, w_theirs)
    close(loss_ours, loss_theirs)
    loss_ours.backward()
    loss_theirs.backward()
    close(ours.grad, theirs.grad, tol=1e-7)


@pytest.mark.parametrize("name", ["inv", "cholesky", "qr square", "eigh", "svd tall", "matrix_exp", "solve"])
def test_gradients_equal_central_differences(name: str) -> None:
    make, loss = CASES[name]
    array = make()
    w = minitorch.tensor(np.random.default_rng(2).normal(size=array.shape[:-2] + (5, 5)), dtype=minitorch.float64)
    w = w[..., : array.shape[-1], : array.shape[-1]] if name not in ("svd tall",) else w

    def value(values: np.ndarray) -> float:
        return loss(minitorch, minitorch.tensor(values, dtype=minitorch.float64), w).item()

    a = minitorch.tensor(array, dtype=minitorch.float64, requires_grad=True)
    loss(minitorch, a, w).backward()
    step = 1e-6
    numeric = np.zeros_like(array)
    for index in np.ndindex(array.shape):
        if name == "cholesky" and index[-1] > index[-2]:
            continue  # only the lower triangle is read: compare the symmetric gradient below
        bump = np.zeros_like(array)
        bump[index] = step
        if name in ("cholesky", "eigh") and index[-1] != index[-2]:
            bump[index[:-2] + (index[-1], index[-2])] = step  # stay symmetric
        numeric[index] = (value(array + bump) - value(array - bump)) / (2 * step)
    analytic = a.grad.numpy()
    if name in ("cholesky", "eigh"):  # a symmetric perturbation sees grad_ij + grad_ji off the diagonal
        analytic = analytic + np.swapaxes(analytic, -1, -2) - analytic * np.eye(array.shape[-1])
        if name == "cholesky":
            analytic = np.tril(analytic)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-6)


def test_second_derivative_of_inverse_and_exponential_through_create_graph() -> None:
    r"""d/dt of the gradient along a direction, against central differences of the gradient."""
    array, direction = random(3, 3) + 3 * np.eye(3), random(3, 3)
    for function in (linalg.inv, linalg.matrix_exp):
        def gradient(values: np.ndarray) -> np.ndarray:
            a = minitorch.tensor(values, dtype=minitorch.float64, requires_grad=True)
            (function(a) ** 2).sum().backward()
            return a.grad.numpy()

        a = minitorch.tensor(array, dtype=minitorch.float64, requires_grad=True)
        (g,) = minitorch.autograd.grad((function(a) ** 2).sum(), a, create_graph=True)
        (hessian_direction,) = minitorch.autograd.grad((g * minitorch.tensor(direction)).sum(), a)
        step = 1e-6
        numeric = (gradient(array + step * direction) - gradient(array - step * direction)) / (2 * step)
        np.testing.assert_allclose(hessian_direction.numpy(), numeric, rtol=1e-5, atol=1e-6)


def test_factorisations_reconstruct_and_match_torch(torch_ref: ModuleType) -> None:
    a = random(2, 5, 3)
    Q, R = linalg.qr(minitorch.tensor(a))
    tq, tr = torch_ref.linalg.qr(torch_ref.tensor(a))
    close(Q, tq)
    close(R, tr)
    Qc, Rc = linalg.qr(minitorch.tensor(a), mode="complete")
    assert Qc.shape == (2, 5, 5) and Rc.shape == (2, 5, 3)
    np.testing.assert_allclose((Qc @ Rc).numpy(), a, atol=1e-12)
    Q_r, R_r = linalg.qr(minitorch.tensor(a), mode="r")
    assert Q_r.numel() == 0 and np.allclose(np.abs(R_r.numpy()), np.abs(tr.numpy()))
    U, S, Vh = linalg.svd(minitorch.tensor(a))
    assert U.shape == (2, 5, 5) and S.shape == (2, 3) and Vh.shape == (2, 3, 3)
    close(S, torch_ref.linalg.svdvals(torch_ref.tensor(a)))
    L, V = linalg.eigh(minitorch.tensor(symmetric(4, 4)))
    np.testing.assert_allclose(np.diff(L.numpy()) >= 0, True)
    s = symmetric(4, 4)
    upper_only = np.triu(s) + np.tril(random(4, 4), -1)  # UPLO='U' reads only the upper triangle
    close(linalg.eigvalsh(minitorch.tensor(upper_only), UPLO="U"), torch_ref.linalg.eigvalsh(torch_ref.tensor(s)))
    tau_a, tau = minitorch.geqrf(minitorch.tensor(a[0]))
    ta, ttau = torch_ref.geqrf(torch_ref.tensor(a[0]))
    close(tau_a, ta)
    close(tau, ttau)
    close(linalg.householder_product(tau_a, tau), torch_ref.linalg.householder_product(ta, ttau))


def test_legacy_names_and_methods(torch_ref: ModuleType) -> None:
    a = spd(3, 3)
    ours, theirs = minitorch.tensor(a), torch_ref.tensor(a)
    close(ours.inverse(), theirs.inverse())
    close(minitorch.inverse(ours), torch_ref.inverse(theirs))
    close(ours.det(), theirs.det())
    close(ours.logdet(), theirs.logdet())
    close(minitorch.slogdet(ours).logabsdet, torch_ref.slogdet(theirs).logabsdet)
    close(ours.matrix_power(3), theirs.matrix_power(3))
    close(ours.cholesky(), theirs.cholesky())
    U, S, V = minitorch.svd(ours)
    tU, tS, tV = torch_ref.svd(theirs)
    close(S, tS)
    np.testing.assert_allclose((U * S.unsqueeze(0)) @ V.mT.numpy(), a, atol=1e-12)
    close(ours.pinverse(), theirs.pinverse())
    assert repr(linalg.slogdet(ours)).startswith("minitorch.return_types.linalg_slogdet(")
    assert minitorch.linalg.slogdet(ours).sign.item() == 1.0


def test_logdet_of_negative_and_zero_determinants(torch_ref: ModuleType) -> None:
    for array in (np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([[1.0, 2.0], [2.0, 4.0]])):
        close(minitorch.logdet(minitorch.tensor(array)), torch_ref.logdet(torch_ref.tensor(array)))


def test_float32_stays_float32(torch_ref: ModuleType) -> None:
    a = spd(3, 3).astype(np.float32)
    for name in ("inv", "det", "cholesky", "matrix_exp", "eigvalsh", "svdvals"):
        ours = getattr(linalg, name)(minitorch.tensor(a))
        assert ours.dtype is minitorch.float32, name
        np.testing.assert_allclose(ours.numpy(), getattr(torch_ref.linalg, name)(torch_ref.tensor(a)).numpy(),
                                   rtol=2e-5, atol=2e-5)


ERRORS = [
    ("inv", lambda lib: lib.linalg.inv(lib.zeros(3, 2))),
    ("inv 1-d", lambda lib: lib.linalg.inv(lib.zeros(3))),
    ("inv long", lambda lib: lib.linalg.inv(lib.zeros(3, 3, dtype=lib.long))),
    ("inv singular", lambda lib: lib.linalg.inv(lib.tensor([[1.0, 2.0], [2.0, 4.0]]))),
    ("inv singular batch", lambda lib: lib.linalg.inv(lib.stack([lib.eye(2), lib.tensor([[1.0, 2.0], [2.0, 4.0]])]))),
    ("inv zero column", lambda lib: lib.linalg.inv(lib.tensor([[1.0, 0.0, 2.0], [3.0, 0.0, 1.0], [0.0, 0.0, 5.0]]))),
    ("cholesky", lambda lib: lib.linalg.cholesky(lib.tensor([[1.0, 2.0], [2.0, 1.0]]))),
    ("cholesky batch", lambda lib: lib.linalg.cholesky(lib.stack([lib.eye(3), -lib.eye(3)]))),
    ("solve shapes", lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(2))),
    ("solve matrix shapes", lambda lib: lib.linalg.solve(lib.eye(3), lib.ones(2, 2))),
    ("solve singular", lambda lib: lib.linalg.solve(lib.tensor([[1.0, 2.0], [2.0, 4.0]]), lib.ones(2))),
    ("eigh", lambda lib: lib.linalg.eigh(lib.zeros(2, 3))),
    ("eigh uplo", lambda lib: lib.linalg.eigh(lib.eye(2), UPLO="X")),
    ("svd", lambda lib: lib.linalg.svd(lib.zeros(2))),
    ("det", lambda lib: lib.linalg.det(lib.zeros(2, 3))),
    ("qr mode", lambda lib: lib.linalg.qr(lib.zeros(2, 3), mode="x")),
    ("matrix_exp", lambda lib: lib.matrix_exp(lib.zeros(2, 3))),
    ("matrix_power singular", lambda lib: lib.linalg.matrix_power(lib.tensor([[1.0, 2.0], [2.0, 4.0]]), -1)),
    ("solve_triangular", lambda lib: lib.linalg.solve_triangular(lib.eye(2), lib.ones(2), upper=True)),
]


@pytest.mark.parametrize("name, call", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_are_torchs(torch_ref: ModuleType, name: str, call: Callable) -> None:
    with pytest.raises(RuntimeError) as theirs:
        call(torch_ref)
    with pytest.raises(RuntimeError) as ours:
        call(minitorch)
    assert str(ours.value) == str(theirs.value).split("\n")[0]
    assert isinstance(ours.value, linalg.LinAlgError) == isinstance(theirs.value, torch_ref.linalg.LinAlgError)


def test_several_outputs_share_one_node() -> None:
    a = minitorch.tensor(random(4, 3), requires_grad=True)
    U, S, Vh = linalg.svd(a, full_matrices=False)
    assert U.grad_fn is S.grad_fn is Vh.grad_fn and type(S.grad_fn).__name__ == "LinalgSvdBackward0"
    assert (U.output_nr, S.output_nr, Vh.output_nr) == (0, 1, 2)
    S.sum().backward()  # a backward that starts at one output of several
    np.testing.assert_allclose(a.grad.numpy(), (U @ Vh).detach().numpy(), atol=1e-12)  # d sum(S)/dA = U V^T
    doubled = S * 2  # an op on an output records the output's slot
    assert doubled.grad_fn.next_functions[0] == (S.grad_fn, 1)
    with pytest.raises(NotImplementedError, match="several outputs"):
        U.register_hook(lambda grad: grad)
    with pytest.raises(NotImplementedError, match="several outputs"):
        S.retain_grad()
    S.add_(1)  # in place: the result is an ordinary single-output node again
    assert S.output_nr == 0


def test_in_place_on_a_saved_output_is_caught_in_backward(torch_ref: ModuleType) -> None:
    """The factors are saved for backward: writing one in place makes backward fail, in both."""
    for lib in (minitorch, torch_ref):
        a = lib.tensor(random(4, 3), requires_grad=True)
        U, S, Vh = lib.linalg.svd(a, full_matrices=False)
        S.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            (S.sum() + U.sum()).backward()
