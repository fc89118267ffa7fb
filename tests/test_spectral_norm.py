"""Spectral normalisation against PyTorch's: the hook API (``nn.utils.spectral_norm``,
``remove_spectral_norm``) and the parametrization (``nn.utils.parametrizations.spectral_norm``).

The random start vectors ``u`` and ``v`` come from each library's own generator, so every
comparison first builds PyTorch's module, then minitorch's with PyTorch's weights, ``u`` and
``v`` copied in through numpy; from there on the power iteration, the normalised weight, the
layer's output and the gradients must agree in float64. State dicts are carried across the
libraries the same way.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from distribution_oracle import same_error

#: float64 results of the same formulas
RTOL = 1e-10
ATOL = 1e-12
#: training-mode forwards before comparing (each refines u and v)
FORWARDS = 3
#: the start of the numpy generator that makes the layers' weights and inputs
SEED = 1234

#: layer name -> (its constructor from a library, the shape of one input batch)
LAYERS: dict[str, tuple[Callable[[ModuleType], Any], tuple[int, ...]]] = {
    "linear": (lambda lib: lib.nn.Linear(5, 3), (4, 5)),
    "conv2d": (lambda lib: lib.nn.Conv2d(2, 3, 3), (2, 2, 5, 5)),
    "conv_transpose2d": (lambda lib: lib.nn.ConvTranspose2d(3, 2, 3), (2, 3, 4, 4)),
}


@pytest.fixture(scope="module")
def torch_sn(torch_ref: ModuleType) -> ModuleType:
    import torch.nn.utils.parametrizations  # noqa: F401 - submodules torch does not import by itself
    import torch.nn.utils.parametrize  # noqa: F401

    return torch_ref


def numbers(*shape: int, offset: int = 0) -> np.ndarray:
    """Fixed float64 numbers of ``shape`` (the same for both libraries)."""
    return np.random.default_rng(SEED + offset).standard_normal(shape)


def f64(lib: ModuleType, values: np.ndarray) -> Any:
    return lib.tensor(values, dtype=lib.float64)


def array(tensor: Any) -> np.ndarray:
    return tensor.detach().numpy()


def close(ours: Any, theirs: Any) -> None:
    np.testing.assert_allclose(array(ours), array(theirs), rtol=RTOL, atol=ATOL)


def make_layer(lib: ModuleType, layer: str) -> Any:
    """The layer in float64 with fixed weights."""
    module = LAYERS[layer][0](lib).double()
    with lib.no_grad():
        for offset, parameter in enumerate(module.parameters()):
            parameter.copy_(f64(lib, numbers(*parameter.shape, offset=offset)))
    return module


def layer_input(lib: ModuleType, layer: str, offset: int = 10) -> Any:
    return f64(lib, numbers(*LAYERS[layer][1], offset=offset))


def copy_state(destination: Any, source: Any) -> None:
    """Every entry of ``source``'s state dict into ``destination``'s tensors (through numpy)."""
    theirs = source.state_dict()
    with minitorch.no_grad():
        for key, value in destination.state_dict().items():
            value.copy_(f64(minitorch, array(theirs[key])))


# --- the hook API --------------------------------------------------------------------------------

def hooked_pair(torch_sn: ModuleType, layer: str, **options: Any) -> tuple[Any, Any]:
    """PyTorch's layer under ``spectral_norm`` and minitorch's with the same weights and vectors."""
    theirs = torch_sn.nn.utils.spectral_norm(make_layer(torch_sn, layer), **options)
    ours = minitorch.nn.utils.spectral_norm(make_layer(minitorch, layer), **options)
    copy_state(ours, theirs)
    return ours, theirs


@pytest.mark.parametrize("layer", sorted(LAYERS))
@pytest.mark.parametrize("iterations", [1, 3])
def test_training_forwards_match_torch(layer: str, iterations: int, torch_sn: ModuleType) -> None:
    ours, theirs = hooked_pair(torch_sn, layer, n_power_iterations=iterations)
    for step in range(FORWARDS):
        close(ours(layer_input(minitorch, layer, step)), theirs(layer_input(torch_sn, layer, step)))
    for name in ("weight", "weight_u", "weight_v"):
        close(getattr(ours, name), getattr(theirs, name))
    assert tuple(ours.weight_u.shape) == tuple(theirs.weight_u.shape)


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_gradients_through_two_forwards_match_torch(layer: str, torch_sn: ModuleType) -> None:
    """``D(real) - D(fake)``: the first forward's graph survives the second's in-place power step."""
    ours, theirs = hooked_pair(torch_sn, layer)
    for module, lib in ((ours, minitorch), (theirs, torch_sn)):
        real, fake = module(layer_input(lib, layer, 1)), module(layer_input(lib, layer, 2))
        ((real ** 2).mean() - fake.mean()).backward()
    close(ours.weight_orig.grad, theirs.weight_orig.grad)
    close(ours.bias.grad, theirs.bias.grad)


def test_default_dim_is_the_output_dimension(torch_sn: ModuleType) -> None:
    """dim 1 for every ConvTranspose (its weight is ``in x out x ...``), 0 otherwise; ``dim`` overrides it."""
    makers = [lambda lib: lib.nn.ConvTranspose1d(3, 2, 3), lambda lib: lib.nn.ConvTranspose3d(3, 2, 2),
              lambda lib: lib.nn.Conv1d(3, 2, 3), lambda lib: lib.nn.Linear(5, 3)]
    for make in makers:
        for options in ({}, {"dim": 1}):
            shapes = [tuple(lib.nn.utils.spectral_norm(make(lib), **options).weight_u.shape)
                      for lib in (minitorch, torch_sn)]
            assert shapes[0] == shapes[1]


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_eval_leaves_u_and_v(layer: str, torch_sn: ModuleType) -> None:
    ours, theirs = hooked_pair(torch_sn, layer)
    ours(layer_input(minitorch, layer))
    theirs(layer_input(torch_sn, layer))
    ours.eval()
    theirs.eval()
    u_before, v_before = array(ours.weight_u).copy(), array(ours.weight_v).copy()
    for step in range(FORWARDS):
        close(ours(layer_input(minitorch, layer, step)), theirs(layer_input(torch_sn, layer, step)))
    np.testing.assert_array_equal(array(ours.weight_u), u_before)
    np.testing.assert_array_equal(array(ours.weight_v), v_before)
    close(ours.weight, theirs.weight)


def test_state_dict_keys_values_and_metadata_as_torch(torch_sn: ModuleType) -> None:
    ours, theirs = hooked_pair(torch_sn, "linear")
    ours(layer_input(minitorch, "linear"))
    theirs(layer_input(torch_sn, "linear"))
    ours_state, theirs_state = ours.state_dict(), theirs.state_dict()
    assert list(ours_state) == list(theirs_state) == ["bias", "weight_orig", "weight_u", "weight_v"]
    for key in theirs_state:
        close(ours_state[key], theirs_state[key])
    assert dict(ours_state._metadata) == dict(theirs_state._metadata)
    assert ours_state._metadata[""]["spectral_norm"] == {"weight.version": 1}


def test_nested_state_dict_keys_as_torch(torch_sn: ModuleType) -> None:
    def network(lib: ModuleType) -> Any:
        return lib.nn.Sequential(lib.nn.utils.spectral_norm(lib.nn.Linear(4, 3)), lib.nn.ReLU(),
                                 lib.nn.utils.spectral_norm(lib.nn.Conv1d(1, 2, 2), name="weight"))

    ours, theirs = network(minitorch).state_dict(), network(torch_sn).state_dict()
    assert list(ours) == list(theirs)
    assert dict(ours._metadata) == dict(theirs._metadata)


@pytest.mark.parametrize("direction", ["torch to minitorch", "minitorch to torch"])
def test_state_dict_loads_across_libraries(direction: str, torch_sn: ModuleType) -> None:
    trained = {"minitorch": hooked_pair(torch_sn, "conv2d")[0],
               "torch": torch_sn.nn.utils.spectral_norm(make_layer(torch_sn, "conv2d"))}
    for lib, module in ((minitorch, trained["minitorch"]), (torch_sn, trained["torch"])):
        module(layer_input(lib, "conv2d"))
    source_name, target_lib = ("torch", minitorch) if direction == "torch to minitorch" else ("minitorch", torch_sn)
    saved = {key: f64(target_lib, array(value)) for key, value in trained[source_name].state_dict().items()}
    target = target_lib.nn.utils.spectral_norm(make_layer(target_lib, "conv2d"))
    target.load_state_dict(saved)
    target.eval()
    trained[source_name].eval()
    source_lib = torch_sn if source_name == "torch" else minitorch
    np.testing.assert_allclose(array(target(layer_input(target_lib, "conv2d", 5))),
                               array(trained[source_name](layer_input(source_lib, "conv2d", 5))), rtol=RTOL, atol=ATOL)
    close(target.weight_v, saved["weight_v"])


def test_old_format_state_dict_is_converted_as_torch(torch_sn: ModuleType) -> None:
    """A state dict of the format before version 1 (``weight`` stored, no ``weight_v``, no metadata):
    ``v`` is solved for from ``u`` and the two weights."""
    ours, theirs = hooked_pair(torch_sn, "linear")
    theirs(layer_input(torch_sn, "linear"))
    old = {"bias": theirs.bias, "weight_orig": theirs.weight_orig, "weight": theirs.weight, "weight_u": theirs.weight_u}
    old = {key: array(value).copy() for key, value in old.items()}
    theirs.load_state_dict({key: f64(torch_sn, value) for key, value in old.items()})
    ours.load_state_dict({key: f64(minitorch, value) for key, value in old.items()})
    np.testing.assert_allclose(array(ours.weight_v), array(theirs.weight_v), rtol=1e-8, atol=1e-10)
    ours.eval()
    theirs.eval()
    np.testing.assert_allclose(array(ours(layer_input(minitorch, "linear"))),
                               array(theirs(layer_input(torch_sn, "linear"))), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_remove_spectral_norm_as_torch(layer: str, torch_sn: ModuleType) -> None:
    ours, theirs = hooked_pair(torch_sn, layer)
    for module, lib in ((ours, minitorch), (theirs, torch_sn)):
        module(layer_input(lib, layer))
        assert lib.nn.utils.remove_spectral_norm(module) is module
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [name for name, _ in ours.named_parameters()] == [name for name, _ in theirs.named_parameters()]
    assert isinstance(ours.weight, minitorch.nn.Parameter)
    assert not hasattr(ours, "weight_orig") and not hasattr(ours, "weight_u")
    assert not ours._forward_pre_hooks and not ours._state_dict_hooks and not ours._load_state_dict_pre_hooks
    close(ours.weight, theirs.weight)
    close(ours(layer_input(minitorch, layer, 3)), theirs(layer_input(torch_sn, layer, 3)))


def test_applying_spectral_norm_returns_the_module_and_keeps_weight_readable(torch_sn: ModuleType) -> None:
    for lib in (minitorch, torch_sn):
        module = make_layer(lib, "linear")
        weight = array(module.weight).copy()
        assert lib.nn.utils.spectral_norm(module) is module
        np.testing.assert_array_equal(array(module.weight), weight)  # before the first forward: the values given
        assert "weight" not in dict(module.named_parameters())


@pytest.mark.parametrize("case", ["twice", "iterations", "none", "missing", "lazy", "remove unapplied", "remove twice"])
def test_errors_as_torch(case: str, torch_sn: ModuleType) -> None:
    def call(lib: ModuleType) -> Any:
        utils = lib.nn.utils
        if case == "twice":
            return utils.spectral_norm(utils.spectral_norm(lib.nn.Linear(3, 2)))
        if case == "iterations":
            return utils.spectral_norm(lib.nn.Linear(3, 2), n_power_iterations=0)
        if case == "none":
            return utils.spectral_norm(lib.nn.Linear(3, 2, bias=False), name="bias")
        if case == "missing":
            return utils.spectral_norm(lib.nn.Linear(3, 2), name="kernel")
        if case == "lazy":
            return utils.spectral_norm(lib.nn.LazyLinear(2))
        if case == "remove unapplied":
            return utils.remove_spectral_norm(lib.nn.Linear(3, 2))
        module = utils.remove_spectral_norm(utils.spectral_norm(lib.nn.Linear(3, 2)))
        return utils.remove_spectral_norm(module)

    same_error(torch_sn, call)


# --- the parametrization -------------------------------------------------------------------------

def parametrized_pair(torch_sn: ModuleType, layer: str, **options: Any) -> tuple[Any, Any]:
    """The two layers under ``parametrizations.spectral_norm``, minitorch's given PyTorch's state."""
    theirs = torch_sn.nn.utils.parametrizations.spectral_norm(make_layer(torch_sn, layer), **options)
    ours = minitorch.nn.utils.parametrizations.spectral_norm(make_layer(minitorch, layer), **options)
    copy_state(ours, theirs)
    return ours, theirs


def vectors(module: Any, name: str = "weight") -> tuple[Any, Any]:
    power = getattr(module.parametrizations, name)[0]
    return power._u, power._v


@pytest.mark.parametrize("layer", sorted(LAYERS))
@pytest.mark.parametrize("iterations", [1, 3])
def test_parametrization_matches_torch(layer: str, iterations: int, torch_sn: ModuleType) -> None:
    ours, theirs = parametrized_pair(torch_sn, layer, n_power_iterations=iterations)
    for module, lib in ((ours, minitorch), (theirs, torch_sn)):
        for step in range(FORWARDS - 1):
            module(layer_input(lib, layer, step))
        (module(layer_input(lib, layer, FORWARDS)) ** 2).mean().backward()
    for a, b in zip(vectors(ours), vectors(theirs)):
        assert tuple(a.shape) == tuple(b.shape)
        close(a, b)
    with minitorch.no_grad(), torch_sn.no_grad():
        ours.eval()
        theirs.eval()
        close(ours.weight, theirs.weight)
    close(ours.parametrizations.weight.original.grad, theirs.parametrizations.weight.original.grad)
    close(ours.bias.grad, theirs.bias.grad)


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_parametrization_in_eval_leaves_u_and_v(layer: str, torch_sn: ModuleType) -> None:
    ours, theirs = parametrized_pair(torch_sn, layer)
    ours.eval()
    theirs.eval()
    before = [array(vector).copy() for vector in vectors(ours)]
    for step in range(FORWARDS):
        close(ours(layer_input(minitorch, layer, step)), theirs(layer_input(torch_sn, layer, step)))
    for vector, start in zip(vectors(ours), before):
        np.testing.assert_array_equal(array(vector), start)


def test_parametrization_state_dict_as_torch_and_loads_across(torch_sn: ModuleType) -> None:
    ours, theirs = parametrized_pair(torch_sn, "conv_transpose2d")
    theirs(layer_input(torch_sn, "conv_transpose2d"))
    ours_state, theirs_state = ours.state_dict(), theirs.state_dict()
    assert list(ours_state) == list(theirs_state)
    assert "parametrizations.weight.0._u" in ours_state and "parametrizations.weight.original" in ours_state
    fresh = minitorch.nn.utils.parametrizations.spectral_norm(make_layer(minitorch, "conv_transpose2d"))
    fresh.load_state_dict({key: f64(minitorch, array(value)) for key, value in theirs_state.items()})
    back = torch_sn.nn.utils.parametrizations.spectral_norm(make_layer(torch_sn, "conv_transpose2d"))
    back.load_state_dict({key: f64(torch_sn, array(value)) for key, value in fresh.state_dict().items()})
    for module in (fresh, back, theirs):
        module.eval()
    expected = array(theirs(layer_input(torch_sn, "conv_transpose2d", 4)))
    for module, lib in ((fresh, minitorch), (back, torch_sn)):
        np.testing.assert_allclose(array(module(layer_input(lib, "conv_transpose2d", 4))), expected, rtol=RTOL, atol=ATOL)


def test_parametrization_of_a_vector_normalises_it(torch_sn: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_sn):
        module = lib.nn.utils.parametrizations.spectral_norm(make_layer(lib, "linear"), name="bias")
        module.bias.sum().backward()
        results.append((module.bias, module.parametrizations.bias.original.grad, list(module.state_dict())))
    close(results[0][0], results[1][0])
    close(results[0][1], results[1][1])
    assert results[0][2] == results[1][2]


def test_remove_parametrization_leaves_the_normalised_weight(torch_sn: ModuleType) -> None:
    ours, theirs = parametrized_pair(torch_sn, "conv2d")
    for module, lib in ((ours, minitorch), (theirs, torch_sn)):
        module(layer_input(lib, "conv2d"))
        lib.nn.utils.parametrize.remove_parametrizations(module, "weight")
    assert type(ours).__name__ == type(theirs).__name__ == "Conv2d"
    assert list(ours.state_dict()) == list(theirs.state_dict())
    close(ours.weight, theirs.weight)


@pytest.mark.parametrize("case", ["dim", "iterations", "missing"])
def test_parametrization_errors_as_torch(case: str, torch_sn: ModuleType) -> None:
    def call(lib: ModuleType) -> Any:
        spectral_norm = lib.nn.utils.parametrizations.spectral_norm
        if case == "dim":
            return spectral_norm(lib.nn.Linear(3, 2), dim=2)
        if case == "iterations":
            return spectral_norm(lib.nn.Linear(3, 2), n_power_iterations=-1)
        return spectral_norm(lib.nn.Linear(3, 2), name="kernel")

    same_error(torch_sn, call)


def test_parametrization_default_dim_for_conv_transpose(torch_sn: ModuleType) -> None:
    for make in (lambda lib: lib.nn.ConvTranspose1d(3, 2, 3), lambda lib: lib.nn.ConvTranspose3d(3, 2, 2)):
        shapes = [tuple(vectors(lib.nn.utils.parametrizations.spectral_norm(make(lib)))[0].shape)
                  for lib in (minitorch, torch_sn)]
        assert shapes[0] == shapes[1]
