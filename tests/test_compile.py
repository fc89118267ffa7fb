"""``minitorch.compile`` with the eager backend against ``torch.compile`` as code sees it: the
``OptimizedModule`` wrapper, ``_orig_mod``, prefixed ``state_dict`` keys, unchanged results."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest

import minitorch


@pytest.fixture
def torch_compiling(torch_ref: ModuleType):
    """PyTorch, with its distributions' argument checks put back afterwards: the first
    ``torch.compile`` imports its compiler, which switches them off for the whole process."""
    validating = torch_ref.distributions.Distribution._validate_args
    yield torch_ref
    torch_ref.distributions.Distribution.set_default_validate_args(validating)


def test_compiled_module_looks_like_torchs(torch_compiling: ModuleType) -> None:
    torch_ref = torch_compiling
    seen = []
    for lib in (minitorch, torch_ref):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))
        compiled = lib.compile(model, backend="eager")
        seen.append((type(compiled).__name__, repr(compiled), list(compiled.state_dict()),
                     [n for n, _ in compiled.named_parameters()]))
        assert compiled._orig_mod is model and getattr(compiled, "0") is model[0]  # attributes read through
        compiled.eval()
        assert not model.training
    assert seen[0] == seen[1]


def test_results_and_gradients_do_not_change() -> None:
    minitorch.manual_seed(1)
    model = minitorch.nn.Linear(3, 2)
    compiled = minitorch.compile(model, mode="reduce-overhead")
    x = minitorch.randn(5, 3)
    np.testing.assert_array_equal(compiled(x).detach().numpy(), model(x).detach().numpy())
    compiled(x).sum().backward()
    assert model.weight.grad is not None

    @minitorch.compile(fullgraph=True)
    def step(a: minitorch.Tensor) -> minitorch.Tensor:
        return a * 2 + 1

    assert step.__name__ == "step" and step(minitorch.ones(2)).tolist() == [3.0, 3.0]
    assert minitorch.compile(step, disable=True) is step


def test_bad_arguments_are_refused_as_torch(torch_compiling: ModuleType) -> None:
    torch_ref = torch_compiling
    for kwargs in ({"mode": "fastest"}, {"mode": "default", "options": {}}):
        with pytest.raises(RuntimeError) as theirs:
            torch_ref.compile(torch_ref.nn.Linear(1, 1), **kwargs)
        with pytest.raises(RuntimeError) as ours:
            minitorch.compile(minitorch.nn.Linear(1, 1), **kwargs)
        assert str(ours.value) == str(theirs.value)
