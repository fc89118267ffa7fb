"""Forward-mode AD (``minitorch.autograd.forward_ad``) against PyTorch's, the oracle: the
patterns of PyTorch's forward-mode AD tutorial, the tangents of a table of ops in float64, modules
through ``functional_call``, custom Functions with ``jvp``, the errors and their messages, and
that nothing changes for code outside a dual level."""

from __future__ import annotations

import copy
import threading
from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
import minitorch.autograd.forward_ad as fwAD
from minitorch.autograd import function as function_module
from minitorch.autograd.function import Function

TIGHT = 1e-10

#: PyTorch's make_dual loads its decompositions through torch.jit.script, which warns that it is deprecated
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")


def _forward_ad(lib: ModuleType) -> ModuleType:
    return lib.autograd.forward_ad


def _functional(lib: ModuleType) -> ModuleType:
    return lib.nn.functional


def _numpy(value: Any) -> np.ndarray:
    return value.detach().numpy()


# ---------------------------------------------------------------- the tutorial's patterns


def test_module_is_importable_both_ways(torch_ref: ModuleType) -> None:
    import minitorch.autograd.forward_ad as imported

    assert minitorch.autograd.forward_ad is imported is fwAD
    assert sorted(fwAD.__all__) == sorted(torch_ref.autograd.forward_ad.__all__)


def test_basic_usage_as_the_tutorial(torch_ref: ModuleType) -> None:
    primal_np, tangent_np, plain_np = (np.random.default_rng(seed).standard_normal((10, 10)) for seed in (1, 2, 3))
    results = {}
    for lib in (minitorch, torch_ref):
        ad = _forward_ad(lib)
        primal, tangent, plain = (lib.tensor(a) for a in (primal_np, tangent_np, plain_np))
        with ad.dual_level():
            dual_input = ad.make_dual(primal, tangent)
            assert ad.unpack_dual(dual_input).tangent is tangent  # same layout: kept as it is
            dual_input_alt = ad.make_dual(primal, tangent.T)
            copied = ad.unpack_dual(dual_input_alt).tangent
            assert copied is not tangent  # another layout: copied into the primal's
            assert copied.stride() == primal.stride()
            np.testing.assert_array_equal(_numpy(copied), tangent_np.T)
            dual_output = dual_input ** 2 + plain ** 2  # a plain tensor has a zero tangent
            results[lib] = _numpy(ad.unpack_dual(dual_output).tangent)
        assert ad.unpack_dual(dual_output).tangent is None  # dropped with the level
    np.testing.assert_allclose(results[minitorch], results[torch_ref], atol=TIGHT)
    np.testing.assert_allclose(results[minitorch], 2 * primal_np * tangent_np, atol=TIGHT)


def test_unpacked_dual_tensor_is_a_namedtuple() -> None:
    primal, tangent = minitorch.randn(3, dtype=minitorch.float64), minitorch.randn(3, dtype=minitorch.float64)
    with fwAD.dual_level():
        unpacked = fwAD.unpack_dual(fwAD.make_dual(primal, tangent) * 3)
        p, t = unpacked
        assert isinstance(unpacked, tuple) and type(unpacked) is fwAD.UnpackedDualTensor
        assert fwAD.UnpackedDualTensor._fields == ("primal", "tangent")
        assert p is unpacked.primal and t is unpacked.tangent and unpacked[1] is t
        np.testing.assert_allclose(_numpy(p), 3 * _numpy(primal))
        np.testing.assert_allclose(_numpy(t), 3 * _numpy(tangent))
        assert fwAD.unpack_dual(p).tangent is None  # the primal carries no tangent


def _linear_state(lib: ModuleType) -> tuple[Any, Any, dict, dict]:
    lib.manual_seed(0)
    model = lib.nn.Linear(5, 5).double()
    rng = np.random.default_rng(4)
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape))))
    params = {name: p for name, p in model.named_parameters()}
    tangents = {name: lib.tensor(rng.random(tuple(p.shape))) for name, p in params.items()}
    return model, lib.tensor(rng.standard_normal((16, 5))), params, tangents


@pytest.mark.parametrize("way", ["attributes", "functional_call"])
def test_modules_as_the_tutorial(torch_ref: ModuleType, way: str) -> None:
    """Dual tensors set as the module's attributes in place of its parameters, or given to
    ``func.functional_call``: both give PyTorch's tangent."""
    results = {}
    for lib in (minitorch, torch_ref):
        ad = _forward_ad(lib)
        model, x, params, tangents = _linear_state(lib)
        with ad.dual_level():
            if way == "attributes":
                for name, p in params.items():
                    delattr(model, name)
                    setattr(model, name, ad.make_dual(p, tangents[name]))
                out = model(x)
            else:
                duals = {name: ad.make_dual(p, tangents[name]) for name, p in params.items()}
                out = lib.func.functional_call(model, duals, x)
            results[lib] = (_numpy(out), _numpy(ad.unpack_dual(out).tangent))
    np.testing.assert_allclose(results[minitorch][0], results[torch_ref][0], atol=TIGHT)
    np.testing.assert_allclose(results[minitorch][1], results[torch_ref][1], atol=TIGHT)


def _tutorial_exp_function(lib: ModuleType) -> type:
    class Fn(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, foo: Any) -> Any:
            result = lib.exp(foo)
            ctx.result = result
            return result

        @staticmethod
        def jvp(ctx: Any, grad_input: Any) -> Any:
            grad_output = grad_input * ctx.result
            del ctx.result
            return grad_output

    return Fn


def test_custom_function_as_the_tutorial(torch_ref: ModuleType) -> None:
    rng = np.random.default_rng(5)
    primal_np, tangent_np = rng.standard_normal((10, 10)), rng.standard_normal((10, 10)).astype(np.float32)
    results = {}
    for lib in (minitorch, torch_ref):
        ad = _forward_ad(lib)
        function = _tutorial_exp_function(lib)
        primal = lib.tensor(primal_np, requires_grad=True)
        with ad.dual_level():
            dual_output = function.apply(ad.make_dual(primal, lib.tensor(tangent_np)))
            results[lib] = _numpy(ad.unpack_dual(dual_output).tangent)
            assert dual_output.requires_grad and dual_output.grad_fn is not None  # backward still recorded
    np.testing.assert_allclose(results[minitorch], results[torch_ref], rtol=1e-6)
    np.testing.assert_allclose(results[minitorch], tangent_np * np.exp(primal_np), rtol=1e-6)


# ---------------------------------------------------------------- a table of ops against PyTorch


def _index(lib: ModuleType, values: list) -> Any:
    return lib.tensor(values)


#: name -> (function of the library and the inputs, input shapes, inputs that must be positive)
OPS: dict[str, tuple[Callable[..., Any], list[tuple[int, ...]], tuple[int, ...]]] = {
    "add": (lambda L, a, b: a + b, [(3, 4), (3, 4)], ()),
    "add_broadcast": (lambda L, a, b: a + b, [(3, 4), (4,)], ()),
    "sub_scalar_left": (lambda L, a: 2 - a, [(3, 4)], ()),
    "mul_broadcast": (lambda L, a, b: a * b, [(3, 4), (1, 4)], ()),
    "mul_same": (lambda L, a: a * a, [(3, 4)], ()),
    "div": (lambda L, a, b: a / b, [(3, 4), (3, 4)], (1,)),
    "pow_scalar": (lambda L, a: a ** 3, [(3, 4)], ()),
    "pow_tensor": (lambda L, a, b: a ** b, [(3, 4), (3, 4)], (0,)),
    "neg": (lambda L, a: -a, [(3, 4)], ()),
    "exp": (lambda L, a: a.exp(), [(3, 4)], ()),
    "log": (lambda L, a: a.log(), [(3, 4)], (0,)),
    "sin_cos": (lambda L, a: L.sin(a) * L.cos(a), [(3, 4)], ()),
    "tanh": (lambda L, a: a.tanh(), [(3, 4)], ()),
    "sigmoid": (lambda L, a: a.sigmoid(), [(3, 4)], ()),
    "sqrt": (lambda L, a: a.sqrt(), [(3, 4)], (0,)),
    "abs": (lambda L, a: a.abs(), [(3, 4)], ()),
    "relu": (lambda L, a: L.relu(a), [(3, 4)], ()),
    "clamp": (lambda L, a: a.clamp(-0.5, 0.5), [(3, 4)], ()),
    "where": (lambda L, a, b: L.where(a > 0, a, b), [(3, 4), (3, 4)], ()),
    "maximum": (lambda L, a, b: L.maximum(a, b), [(3, 4), (3, 4)], ()),
    "floor": (lambda L, a: a.floor(), [(3, 4)], ()),
    "to_float32": (lambda L, a: a.to(L.float32), [(3, 4)], ()),
    "matmul": (lambda L, a, b: a @ b, [(3, 4), (4, 5)], ()),
    "batched_matmul": (lambda L, a, b: a @ b, [(2, 3, 4), (2, 4, 5)], ()),
    "matrix_vector": (lambda L, a, b: a @ b, [(3, 4), (4,)], ()),
    "addmm": (lambda L, c, a, b: L.addmm(c, a, b), [(3, 5), (3, 4), (4, 5)], ()),
    "einsum": (lambda L, a, b: L.einsum("ij,jk->ik", a, b), [(3, 4), (4, 2)], ()),
    "sum": (lambda L, a: a.sum(), [(3, 4)], ()),
    "sum_dim_keepdim": (lambda L, a: a.sum(1, keepdim=True), [(3, 4)], ()),
    "mean": (lambda L, a: a.mean(0), [(3, 4)], ()),
    "var": (lambda L, a: a.var(1), [(3, 4)], ()),
    "prod": (lambda L, a: a.prod(1), [(3, 4)], ()),
    "max_with_dim": (lambda L, a: a.max(1), [(3, 4)], ()),
    "amax": (lambda L, a: a.amax(0), [(3, 4)], ()),
    "logsumexp": (lambda L, a: a.logsumexp(1), [(3, 4)], ()),
    "norm": (lambda L, a: a.norm(), [(3, 4)], ()),
    "cumsum": (lambda L, a: a.cumsum(1), [(3, 4)], ()),
    "sort": (lambda L, a: a.sort(1), [(3, 4)], ()),
    "view": (lambda L, a: a.view(12), [(3, 4)], ()),
    "reshape_of_transpose": (lambda L, a: a.T.reshape(2, 6), [(3, 4)], ()),
    "permute": (lambda L, a: a.permute(2, 0, 1), [(2, 3, 4)], ()),
    "slice": (lambda L, a: a[1:, ::2], [(3, 4)], ()),
    "index_tensor": (lambda L, a: a[_index(L, [0, 2, 2])], [(3, 4)], ()),
    "unsqueeze_expand": (lambda L, a: a.unsqueeze(0).expand(3, 4), [(4,)], ()),
    "split": (lambda L, a: a.split(2, dim=1), [(3, 4)], ()),
    "unbind": (lambda L, a: a.unbind(0), [(3, 4)], ()),
    "cat": (lambda L, a, b: L.cat([a, b], 1), [(3, 4), (3, 2)], ()),
    "stack": (lambda L, a, b: L.stack([a, b]), [(3, 4), (3, 4)], ()),
    "contiguous": (lambda L, a: a.T.contiguous(), [(3, 4)], ()),
    "gather": (lambda L, a: a.gather(1, _index(L, [[0, 1], [2, 3], [1, 1]])), [(3, 4)], ()),
    "masked_fill": (lambda L, a: a.masked_fill(a > 0, 0.0), [(3, 4)], ()),
    "as_strided": (lambda L, a: a.as_strided((2, 2), (1, 2)), [(3, 4)], ()),
    "softmax": (lambda L, a: _functional(L).softmax(a, dim=1), [(3, 4)], ()),
    "log_softmax": (lambda L, a: _functional(L).log_softmax(a, dim=1), [(3, 4)], ()),
    "gelu": (lambda L, a: _functional(L).gelu(a), [(3, 4)], ()),
    "leaky_relu": (lambda L, a: _functional(L).leaky_relu(a, 0.1), [(3, 4)], ()),
    "linear": (lambda L, x, w, b: _functional(L).linear(x, w, b), [(5, 3), (4, 3), (4,)], ()),
    "conv2d": (lambda L, x, w, b: _functional(L).conv2d(x, w, b, padding=1), [(2, 3, 5, 5), (4, 3, 3, 3), (4,)], ()),
    "conv1d_strided": (lambda L, x, w: _functional(L).conv1d(x, w, stride=2), [(2, 3, 7), (4, 3, 3)], ()),
    "max_pool2d": (lambda L, x: _functional(L).max_pool2d(x, 2), [(2, 3, 4, 4)], ()),
    "avg_pool2d": (lambda L, x: _functional(L).avg_pool2d(x, 2), [(2, 3, 4, 4)], ()),
    "layer_norm": (lambda L, x, w, b: _functional(L).layer_norm(x, (4,), w, b), [(3, 4), (4,), (4,)], ()),
    "batch_norm": (lambda L, x: _functional(L).batch_norm(x, None, None, training=True), [(5, 3)], ()),
    "embedding": (lambda L, w: _functional(L).embedding(_index(L, [[0, 2], [1, 1]]), w), [(3, 4)], ()),
    "mse_loss": (lambda L, a, b: _functional(L).mse_loss(a, b), [(3, 4), (3, 4)], ()),
    "cross_entropy": (lambda L, a: _functional(L).cross_entropy(a, _index(L, [0, 3, 1])), [(3, 4)], ()),
    "bce_with_logits": (lambda L, a, b: _functional(L).binary_cross_entropy_with_logits(a, b), [(3, 4), (3, 4)], ()),
    "det": (lambda L, a: L.linalg.det(a), [(3, 3)], ()),
    "two_layers": (lambda L, a, b: ((a @ b).tanh() * 2 + b.sum()).sum(0), [(4, 4), (4, 4)], ()),
}


def _inputs(shapes: list[tuple[int, ...]], positive: tuple[int, ...], seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(shape) for shape in shapes]
    return [np.abs(a) + 0.5 if i in positive else a for i, a in enumerate(arrays)]


def _primals_and_tangents(lib: ModuleType, function: Callable[..., Any], primals: list[np.ndarray],
                          tangents: list[np.ndarray | None]) -> list[tuple[np.ndarray, np.ndarray | None]]:
    ad = _forward_ad(lib)
    with ad.dual_level():
        inputs = [lib.tensor(p) if t is None else ad.make_dual(lib.tensor(p), lib.tensor(t))
                  for p, t in zip(primals, tangents)]
        out = function(lib, *inputs)
        outputs = out if isinstance(out, tuple) else (out,)
        unpacked = [ad.unpack_dual(o) for o in outputs]
        return [(_numpy(p), None if t is None else _numpy(t)) for p, t in unpacked]


def _assert_same(ours: list, theirs: list) -> None:
    assert len(ours) == len(theirs)
    for (our_primal, our_tangent), (their_primal, their_tangent) in zip(ours, theirs):
        np.testing.assert_allclose(our_primal, their_primal, atol=TIGHT)
        if their_primal.dtype.kind in "iub":  # indices: never a tangent here; PyTorch too gives none
            assert our_tangent is None and their_tangent is None
            continue
        assert their_tangent is not None and our_tangent is not None
        np.testing.assert_allclose(our_tangent, their_tangent, atol=1e-9, rtol=1e-6)


@pytest.mark.parametrize("name", sorted(OPS))
def test_tangents_match_pytorch(torch_ref: ModuleType, name: str) -> None:
    function, shapes, positive = OPS[name]
    primals = _inputs(shapes, positive, seed=11)
    tangents: list[np.ndarray | None] = list(_inputs(shapes, (), seed=12))
    _assert_same(_primals_and_tangents(minitorch, function, primals, tangents),
                 _primals_and_tangents(torch_ref, function, primals, tangents))


@pytest.mark.parametrize("name", ["mul_broadcast", "matmul", "linear", "where", "cat"])
def test_tangent_of_one_input_only(torch_ref: ModuleType, name: str) -> None:
    """Only the last input is dual: the others count with a zero tangent."""
    function, shapes, positive = OPS[name]
    primals = _inputs(shapes, positive, seed=13)
    tangents: list[np.ndarray | None] = [None] * (len(shapes) - 1) + [_inputs(shapes[-1:], (), seed=14)[0]]
    _assert_same(_primals_and_tangents(minitorch, function, primals, tangents),
                 _primals_and_tangents(torch_ref, function, primals, tangents))


def _small_convnet(lib: ModuleType) -> Any:
    nn = lib.nn
    lib.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(12, 5), nn.Tanh(), nn.Linear(5, 3)).double()
    rng = np.random.default_rng(15)
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)) * 0.5))
    return model


def test_a_convnet_loss_through_functional_call(torch_ref: ModuleType) -> None:
    """The directional derivative of a classifier's loss along a direction in parameter space."""
    rng = np.random.default_rng(16)
    x_np, labels = rng.standard_normal((4, 2, 4, 4)), [0, 2, 1, 2]
    results = {}
    for lib in (minitorch, torch_ref):
        ad = _forward_ad(lib)
        model = _small_convnet(lib)
        direction = np.random.default_rng(17)
        with ad.dual_level():
            params = {name: ad.make_dual(p, lib.tensor(direction.standard_normal(tuple(p.shape))))
                      for name, p in model.named_parameters()}
            logits = lib.func.functional_call(model, params, (lib.tensor(x_np),))
            loss = lib.nn.functional.cross_entropy(logits, lib.tensor(labels))
            results[lib] = (_numpy(ad.unpack_dual(logits).tangent), ad.unpack_dual(loss).tangent.item())
    np.testing.assert_allclose(results[minitorch][0], results[torch_ref][0], atol=TIGHT)
    assert results[minitorch][1] == pytest.approx(results[torch_ref][1], abs=TIGHT)


def test_a_dual_made_from_a_strided_slice(torch_ref: ModuleType) -> None:
    """A primal that is a slice of a larger tensor: the tangent is laid out on its own, and
    views of the dual still get the right tangent."""
    rng = np.random.default_rng(18)
    big_np, tangent_np = rng.standard_normal((3, 8)), rng.standard_normal((3, 4))
    results = {}
    for lib in (minitorch, torch_ref):
        ad = _forward_ad(lib)
        with ad.dual_level():
            dual = ad.make_dual(lib.tensor(big_np)[:, ::2], lib.tensor(tangent_np))
            outs = (dual.T, dual[1], dual.unsqueeze(0).expand(2, 3, 4), (dual * dual).sum(0))
            results[lib] = [_numpy(ad.unpack_dual(out).tangent) for out in outs]
    for ours, theirs in zip(results[minitorch], results[torch_ref]):
        np.testing.assert_allclose(ours, theirs, atol=TIGHT)


def test_the_tangent_of_a_view_is_the_view_of_the_tangent() -> None:
    with fwAD.dual_level():
        tangent = minitorch.randn(2, 3)
        dual = fwAD.make_dual(minitorch.randn(2, 3), tangent)
        for view in (dual[0], dual.T, dual.view(6), dual.unsqueeze(0)):
            assert fwAD.unpack_dual(view).tangent._base is tangent
        pieces = dual.split(1)
        assert all(fwAD.unpack_dual(piece).tangent._base is tangent for piece in pieces)


def test_ops_without_a_dual_input_give_no_tangent(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        ad = _forward_ad(lib)
        with ad.dual_level():
            dual = ad.make_dual(lib.ones(3), lib.ones(3))
            assert ad.unpack_dual(lib.ones(3) * 2).tangent is None
            assert ad.unpack_dual(dual.detach()).tangent is None
            assert ad.unpack_dual(dual > 0).tangent is None  # a bool result
            assert ad.unpack_dual(dual.argmax()).tangent is None
            assert ad.unpack_dual(lib.zeros_like(dual)).tangent is None


def test_a_deep_copy_has_no_tangent(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        ad = _forward_ad(lib)
        with ad.dual_level():
            copied = copy.deepcopy(ad.make_dual(lib.ones(2), lib.ones(2)) * 2)
            assert ad.unpack_dual(copied).tangent is None
            assert copied.tolist() == [2.0, 2.0]


def test_tangents_propagate_under_no_grad(torch_ref: ModuleType) -> None:
    """Forward AD does not depend on grad mode, as PyTorch's."""
    for lib in (minitorch, torch_ref):
        ad = _forward_ad(lib)
        with ad.dual_level():
            dual = ad.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([1.0, -1.0]))
            with lib.no_grad():
                out = (dual * dual).sum()
            assert ad.unpack_dual(out).tangent.item() == pytest.approx(-2.0)


# ---------------------------------------------------------------- reverse mode beside forward mode


def _losses_and_gradients(lib: ModuleType, primal_np: np.ndarray, tangent_np: np.ndarray,
                          weight_np: np.ndarray) -> dict[str, Any]:
    ad = _forward_ad(lib)
    primal = lib.tensor(primal_np, requires_grad=True)
    weight = lib.tensor(weight_np, requires_grad=True)
    seen: dict[str, Any] = {}
    with ad.dual_level():
        dual = ad.make_dual(primal, lib.tensor(tangent_np))
        seen["dual"] = (dual.requires_grad, dual.is_leaf, type(dual.grad_fn).__name__, dual._base is primal)
        out = (dual @ weight).tanh()
        seen["out"] = (out.requires_grad, out.is_leaf, type(out.grad_fn).__name__)
        jvp = ad.unpack_dual(out).tangent
        loss = out.sum()
        loss.backward(retain_graph=True)  # the tangent's graph runs through the output's nodes, as PyTorch's
        seen["grads"] = (_numpy(primal.grad).copy(), _numpy(weight.grad).copy())
        primal.grad = weight.grad = None
        jvp.pow(2).sum().backward()  # reverse over forward: the tangent is differentiable
        seen["grads_of_tangent"] = (_numpy(primal.grad), _numpy(weight.grad))
    return seen


def test_backward_on_duals_and_on_tangents_as_pytorch(torch_ref: ModuleType) -> None:
    rng = np.random.default_rng(6)
    arrays = rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), rng.standard_normal((4, 2))
    ours, theirs = _losses_and_gradients(minitorch, *arrays), _losses_and_gradients(torch_ref, *arrays)
    assert ours["dual"] == theirs["dual"] == (True, False, "ViewBackward0", True)
    assert ours["out"] == theirs["out"]
    for key in ("grads", "grads_of_tangent"):
        for our_grad, their_grad in zip(ours[key], theirs[key]):
            np.testing.assert_allclose(our_grad, their_grad, atol=TIGHT)


def _tangent_of_gradient(lib: ModuleType, function: Callable[..., Any], primals: list[np.ndarray],
                         tangents: list[np.ndarray], weights: list[np.ndarray]) -> list[np.ndarray | None]:
    """Forward over reverse: the tangent of the gradient of ``<function(x), w>`` (a Hessian-vector product)."""
    ad = _forward_ad(lib)
    with ad.dual_level():
        inputs = [ad.make_dual(lib.tensor(p, requires_grad=True), lib.tensor(t)) for p, t in zip(primals, tangents)]
        out = function(lib, *inputs)
        outputs = out if isinstance(out, tuple) else (out,)
        total = sum((o * lib.tensor(w)).sum() for o, w in zip(outputs, weights) if o.dtype.is_floating_point)
        gradients = lib.autograd.grad(total, inputs, create_graph=True, allow_unused=True)
        found = [None if g is None else ad.unpack_dual(g).tangent for g in gradients]
        return [None if t is None else _numpy(t) for t in found]


@pytest.mark.parametrize("name", sorted(OPS))
def test_forward_over_reverse_matches_pytorch(torch_ref: ModuleType, name: str) -> None:
    """Backward run inside the level on tensors with tangents gives gradients with tangents
    (ops that saved their own output included)."""
    function, shapes, positive = OPS[name]
    primals, tangents = _inputs(shapes, positive, seed=19), _inputs(shapes, (), seed=20)
    with torch_ref.no_grad():
        outputs = function(torch_ref, *[torch_ref.tensor(p) for p in primals])
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    rng = np.random.default_rng(21)
    weights = [rng.standard_normal(tuple(o.shape)) for o in outputs]
    ours = _tangent_of_gradient(minitorch, function, primals, tangents, weights)
    theirs = _tangent_of_gradient(torch_ref, function, primals, tangents, weights)
    for our_tangent, their_tangent, primal in zip(ours, theirs, primals):
        zeros = np.zeros_like(primal)  # no gradient, or a gradient without a tangent: zero
        np.testing.assert_allclose(zeros if our_tangent is None else our_tangent,
                                   zeros if their_tangent is None else their_tangent, atol=1e-8, rtol=1e-6)


def test_a_tangent_that_requires_grad_is_differentiated(torch_ref: ModuleType) -> None:
    rng = np.random.default_rng(7)
    primal_np, tangent_np = rng.standard_normal(4), rng.standard_normal(4)
    grads = {}
    for lib in (minitorch, torch_ref):
        ad = _forward_ad(lib)
        tangent = lib.tensor(tangent_np, requires_grad=True)
        with ad.dual_level():
            out = ad.make_dual(lib.tensor(primal_np), tangent).exp()
            jvp = ad.unpack_dual(out).tangent
            assert jvp.requires_grad and not out.requires_grad
            jvp.sum().backward()
        grads[lib] = _numpy(tangent.grad)
    np.testing.assert_allclose(grads[minitorch], grads[torch_ref], atol=TIGHT)


# ---------------------------------------------------------------- custom Functions


def _product_function(lib: ModuleType, seen: list) -> type:
    class Product(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, y: Any, scale: float) -> Any:
            seen.append(("forward sees a dual", lib.autograd.forward_ad.unpack_dual(x).tangent is not None))
            ctx.save_for_forward(x, y)
            ctx.scale = scale
            return x * y * scale

        @staticmethod
        def jvp(ctx: Any, x_t: Any, y_t: Any, scale_t: Any) -> Any:
            x, y = ctx.saved_tensors
            seen.append(("jvp", tuple(x_t.shape), tuple(y_t.shape), scale_t))
            return (x_t * y + x * y_t) * ctx.scale

    return Product


def test_custom_jvp_gets_zero_tangents_and_saved_tensors(torch_ref: ModuleType) -> None:
    rng = np.random.default_rng(8)
    x_np, y_np, t_np = rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal(3)
    results, calls = {}, {}
    for lib in (minitorch, torch_ref):
        ad = _forward_ad(lib)
        seen: list = []
        product = _product_function(lib, seen)
        with ad.dual_level():
            out = product.apply(ad.make_dual(lib.tensor(x_np), lib.tensor(t_np)), lib.tensor(y_np), 3.0)
            results[lib] = _numpy(ad.unpack_dual(out).tangent)
        calls[lib] = seen
    assert calls[minitorch] == calls[torch_ref] == [("forward sees a dual", False), ("jvp", (3,), (3,), None)]
    np.testing.assert_allclose(results[minitorch], results[torch_ref], atol=TIGHT)
    np.testing.assert_allclose(results[minitorch], 3 * t_np * y_np, atol=TIGHT)


def _errors_of(lib: ModuleType, make: Callable[[ModuleType], type]) -> tuple[type, str]:
    ad = _forward_ad(lib)
    with ad.dual_level():
        dual = ad.make_dual(lib.ones(3), lib.ones(3))
        with pytest.raises(Exception) as caught:
            make(lib).apply(dual)
    return caught.type, str(caught.value)


def _returns(result: Callable[[Any, Any], Any], outputs: int = 1) -> Callable[[ModuleType], type]:
    def make(lib: ModuleType) -> type:
        class Custom(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2 if outputs == 1 else (x * 2, x * 3)

            @staticmethod
            def jvp(ctx: Any, x_t: Any) -> Any:
                return result(lib, x_t)

        return Custom

    return make


def _without_jvp(lib: ModuleType) -> type:
    class NoJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad * 2

    return NoJvp


def _saving_a_number(lib: ModuleType) -> type:
    class SavesNumber(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_forward(x, 3)
            return x * 2

        @staticmethod
        def jvp(ctx: Any, x_t: Any) -> Any:
            return x_t * 2

    return SavesNumber


@pytest.mark.parametrize("make", [
    _without_jvp, _saving_a_number,
    _returns(lambda L, t: t[:1]),  # a tangent of the wrong size
    _returns(lambda L, t: 5),  # not a tensor
    _returns(lambda L, t: t * 2, outputs=2),  # one tangent for two outputs
], ids=["no_jvp", "save_for_forward_number", "wrong_size", "not_a_tensor", "too_few"])
def test_custom_function_errors_as_pytorch(torch_ref: ModuleType, make: Callable[[ModuleType], type]) -> None:
    assert _errors_of(minitorch, make) == _errors_of(torch_ref, make)


def test_custom_function_with_two_outputs(torch_ref: ModuleType) -> None:
    make = _returns(lambda L, t: (t * 2, t * 3), outputs=2)
    for lib in (minitorch, torch_ref):
        ad = _forward_ad(lib)
        with ad.dual_level():
            first, second = make(lib).apply(ad.make_dual(lib.ones(2), lib.tensor([1.0, -1.0])))
            assert ad.unpack_dual(first).tangent.tolist() == [2.0, -2.0]
            assert ad.unpack_dual(second).tangent.tolist() == [3.0, -3.0]


def test_an_op_whose_backward_is_not_differentiable_is_named() -> None:
    """minitorch derives an op's forward derivative from its backward; a backward computed on
    raw values (detached) cannot give one, and the error says which op."""

    class RawDouble(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad.detach() * 2

    RawDouble.__module__ = "minitorch.ops.made_up"  # as if it were one of minitorch's own ops
    with fwAD.dual_level():
        dual = fwAD.make_dual(minitorch.ones(3), minitorch.ones(3))
        with pytest.raises(NotImplementedError, match="Trying to use forward AD with RawDouble that does not support "
                                                      "it because it has not been implemented yet"):
            RawDouble.apply(dual)
        assert fwAD.unpack_dual(RawDouble.apply(minitorch.ones(3))).tangent is None  # fine without a dual


# ---------------------------------------------------------------- levels and errors


def _error(call: Callable[[], Any]) -> tuple[type, str]:
    with pytest.raises(Exception) as caught:
        call()
    return caught.type, str(caught.value)


def _level_errors(lib: ModuleType) -> list[tuple[type, str]]:
    ad = _forward_ad(lib)
    primal, tangent = lib.ones(3, 4), lib.ones(3, 4)
    errors = [_error(lambda: ad.make_dual(primal, tangent)), _error(lambda: ad.exit_dual_level())]
    assert ad.unpack_dual(primal) == (primal, None)  # no level: the tensor itself
    with ad.dual_level() as level:
        assert level == 0
        dual = ad.make_dual(primal, tangent)
        errors += [
            _error(lambda: ad.enter_dual_level()),
            _error(lambda: ad.exit_dual_level(level=1)),
            _error(lambda: ad.make_dual(primal, tangent, level=1)),
            _error(lambda: ad.make_dual(primal, lib.ones(4, 3))),
            _error(lambda: ad.make_dual(primal, lib.ones(4))),
            _error(lambda: ad.make_dual(lib.ones(3, 4, dtype=lib.int64), tangent)),
            _error(lambda: ad.make_dual(primal, lib.ones(3, 4, dtype=lib.int64))),
            _error(lambda: ad.make_dual(dual, tangent)),
            _error(lambda: ad.make_dual(lib.ones(3, 4), dual)),
            _error(lambda: ad.unpack_dual(dual, level=1)),
        ]
        assert ad.unpack_dual(primal, level=1).tangent is None  # another level: no tangent
    with ad.dual_level() as level:
        assert level == 0  # numbered afresh: the last one was exited
        assert ad.unpack_dual(dual).tangent is None  # tangents of an exited level are gone
    return errors


def test_level_errors_as_pytorch(torch_ref: ModuleType) -> None:
    ours, theirs = _level_errors(minitorch), _level_errors(torch_ref)
    assert [kind for kind, _ in ours] == [kind for kind, _ in theirs]
    assert [message.replace("minitorch.", "torch.") for _, message in ours] == [message for _, message in theirs]


def test_enter_and_exit_by_hand_and_as_a_decorator() -> None:
    assert fwAD.enter_dual_level() == 0
    dual = fwAD.make_dual(minitorch.ones(2), minitorch.ones(2))
    fwAD.exit_dual_level(level=0)
    assert fwAD.unpack_dual(dual).tangent is None

    @fwAD.dual_level()
    def jvp_of_square(x: Any, v: Any) -> Any:
        return fwAD.unpack_dual(fwAD.make_dual(x, v) ** 2).tangent

    assert jvp_of_square(minitorch.tensor([3.0]), minitorch.tensor([1.0])).tolist() == [6.0]
    with pytest.raises(RuntimeError, match="no level exists"):
        fwAD.make_dual(minitorch.ones(2), minitorch.ones(2))


def test_an_error_inside_the_level_leaves_it() -> None:
    with pytest.raises(KeyError):
        with fwAD.dual_level():
            raise KeyError("inside")
    assert fwAD.enter_dual_level() == 0  # not "nested": the first level was left
    fwAD.exit_dual_level()


def test_in_place_ops_involving_a_dual_are_refused() -> None:
    """PyTorch carries tangents through in-place ops; minitorch refuses them with a clear error
    rather than leave a tangent that no longer matches its primal."""
    with fwAD.dual_level():
        dual = fwAD.make_dual(minitorch.ones(3), minitorch.ones(3))
        plain = minitorch.zeros(3)
        for write in (lambda: dual.mul_(2), lambda: plain.add_(dual), lambda: plain.copy_(dual),
                      lambda: dual.__setitem__(0, 5.0), lambda: plain.__setitem__(slice(0, 2), dual[:2]),
                      lambda: minitorch.nn.functional.relu(dual, inplace=True)):
            with pytest.raises(NotImplementedError, match="in-place operations on dual tensors"):
                write()
        plain.add_(1)  # no tangent involved: allowed
        assert plain.tolist() == [1.0, 1.0, 1.0]


def test_batch_norm_in_training_updates_its_statistics_from_a_dual(torch_ref: ModuleType) -> None:
    rng = np.random.default_rng(9)
    x_np, t_np = rng.standard_normal((6, 3)), rng.standard_normal((6, 3))
    results = {}
    for lib in (minitorch, torch_ref):
        ad = _forward_ad(lib)
        norm = lib.nn.BatchNorm1d(3).double()
        with ad.dual_level():
            out = norm(ad.make_dual(lib.tensor(x_np), lib.tensor(t_np)))
            assert ad.unpack_dual(norm.running_mean).tangent is None
            results[lib] = (_numpy(ad.unpack_dual(out).tangent), _numpy(norm.running_mean).copy())
    for ours, theirs in zip(results[minitorch], results[torch_ref]):
        np.testing.assert_allclose(ours, theirs, atol=TIGHT)


# ---------------------------------------------------------------- nothing changes outside a level


def _run_outside(lib: ModuleType) -> tuple:
    a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    out = (a * 2).exp().sum()
    out.backward()
    return type(out.grad_fn).__name__, out.item(), a.grad.tolist()


def test_nothing_changes_outside_a_level() -> None:
    before = _run_outside(minitorch)
    assert function_module._dual_route is None
    with fwAD.dual_level():
        assert function_module._dual_route is not None  # forward AD runs every op while open
        kept = fwAD.make_dual(minitorch.ones(2), minitorch.ones(2)) * 3
        assert kept._dual is not None
    assert function_module._dual_route is None
    assert kept._dual is None  # the level's tangents are dropped, not merely hidden
    assert _run_outside(minitorch) == before
    kept.mul_(2)  # in-place ops on a former dual are fine again
    assert kept.tolist() == [6.0, 6.0]


def test_other_threads_see_the_level_as_pytorch(torch_ref: ModuleType) -> None:
    """The level belongs to the process, not the thread that opened it, as PyTorch's."""
    for lib in (minitorch, torch_ref):
        ad = _forward_ad(lib)
        found: list = []
        with ad.dual_level():
            dual = ad.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 1.0]))
            worker = threading.Thread(target=lambda: found.append(ad.unpack_dual(dual * 2).tangent.tolist()))
            worker.start()
            worker.join()
        assert found == [[2.0, 2.0]]
