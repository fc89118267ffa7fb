"""``optim.swa_utils`` against PyTorch's: averaged weights and buffers after several updates
(every averaging function, with and without ``use_buffers``), SWALR's rates step by step, and
the BatchNorm statistics ``update_bn`` recomputes, on the same weights and data."""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np
import pytest

import minitorch

IN, HIDDEN, OUT, BATCH = 3, 4, 2, 5
UPDATES = 4
REL = 1e-13
REL_FLOAT32 = 1e-6
GROUP_LRS = (0.1, 0.03)
EPOCHS = 14

AVERAGINGS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "default": lambda lib: {},
    "ema_multi": lambda lib: {"multi_avg_fn": lib.optim.swa_utils.get_ema_multi_avg_fn(0.9)},
    "ema": lambda lib: {"avg_fn": lib.optim.swa_utils.get_ema_avg_fn(0.8)},
    "swa": lambda lib: {"avg_fn": lib.optim.swa_utils.get_swa_avg_fn()},
    "custom": lambda lib: {"avg_fn": lambda averaged, current, n: 0.75 * averaged + 0.25 * current},
}


def _numpy(state: dict[str, Any]) -> dict[str, np.ndarray]:
    return {key: value.detach().numpy().copy() for key, value in state.items()}


def _from_numpy(lib: Any, state: dict[str, np.ndarray]) -> dict[str, Any]:
    return {key: lib.tensor(value) for key, value in state.items()}


def _model(lib: Any, dtype: str = "float64") -> Any:
    model = lib.nn.Sequential(lib.nn.Linear(IN, HIDDEN), lib.nn.BatchNorm1d(HIDDEN), lib.nn.ReLU(),
                              lib.nn.Linear(HIDDEN, OUT)).to(getattr(lib, dtype))
    rng = np.random.default_rng(5)
    state = _numpy(model.state_dict())
    model.load_state_dict(_from_numpy(lib, {
        key: value if value.dtype == np.int64 else rng.standard_normal(value.shape).astype(value.dtype)
        for key, value in state.items()}))
    return model


def _batch(lib: Any, step: int, dtype: str = "float64") -> Any:
    return lib.tensor(np.random.default_rng(100 + step).standard_normal((BATCH, IN)), dtype=getattr(lib, dtype))


def _averaged(lib: Any, averaging: str, use_buffers: bool, dtype: str = "float64") -> Any:
    """An AveragedModel after :data:`UPDATES` updates from a model whose weights move each step
    (a training-mode forward also moves its BatchNorm buffers)."""
    model = _model(lib, dtype)
    swa_model = lib.optim.swa_utils.AveragedModel(model, use_buffers=use_buffers, **AVERAGINGS[averaging](lib))
    for step in range(UPDATES):
        with lib.no_grad():
            for p in model.parameters():
                p.mul_(0.9).add_(0.05 * (step + 1))
        model(_batch(lib, step, dtype))
        swa_model.update_parameters(model)
    return swa_model


@pytest.mark.parametrize("use_buffers", [False, True], ids=["params", "params_and_buffers"])
@pytest.mark.parametrize("averaging", AVERAGINGS)
def test_averaged_weights_and_buffers_match_torch(torch_ref: Any, averaging: str, use_buffers: bool) -> None:
    got = _numpy(_averaged(minitorch, averaging, use_buffers).state_dict())
    expected = _numpy(_averaged(torch_ref, averaging, use_buffers).state_dict())
    assert list(got) == list(expected)
    for key in expected:
        assert got[key].dtype == expected[key].dtype, key
        np.testing.assert_allclose(got[key], expected[key], rtol=REL, atol=REL, err_msg=key)
    assert got["n_averaged"] == UPDATES


@pytest.mark.parametrize("averaging", ["default", "ema_multi"])
def test_float32_averages_match_torch(torch_ref: Any, averaging: str) -> None:
    got = _numpy(_averaged(minitorch, averaging, True, "float32").state_dict())
    expected = _numpy(_averaged(torch_ref, averaging, True, "float32").state_dict())
    for key in expected:
        np.testing.assert_allclose(got[key], expected[key], rtol=REL_FLOAT32, atol=REL_FLOAT32, err_msg=key)


def test_the_swa_multi_average_of_parameters_matches_torch(torch_ref: Any) -> None:
    """``get_swa_multi_avg_fn`` interpolates by a float32 ``1/(n+1)``, unlike the one-tensor mean."""
    results = []
    for lib in (minitorch, torch_ref):
        swa_model = _averaged(lib, "default", False)
        model = _model(lib)
        swa_utils = lib.optim.swa_utils
        multi = swa_utils.AveragedModel(model, multi_avg_fn=swa_utils.get_swa_multi_avg_fn())
        for step in range(UPDATES):
            with lib.no_grad():
                for p in model.parameters():
                    p.add_(0.1 * step)
            multi.update_parameters(model)
        results.append((_numpy(multi.state_dict()), _numpy(swa_model.state_dict())))
    for got, expected in zip(results[0], results[1]):  # a float64 1/3 instead would differ by 1e-8
        for key in expected:
            np.testing.assert_allclose(got[key], expected[key], rtol=REL, atol=REL, err_msg=key)


def test_the_swa_multi_average_of_integer_buffers_fails_as_torch(torch_ref: Any) -> None:
    messages = []
    for lib in (minitorch, torch_ref):
        model = _model(lib)
        swa_utils = lib.optim.swa_utils
        multi = swa_utils.AveragedModel(model, multi_avg_fn=swa_utils.get_swa_multi_avg_fn(), use_buffers=True)
        multi.update_parameters(model)
        with pytest.raises(RuntimeError) as caught:
            multi.update_parameters(model)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_the_averaged_model_runs_its_copy_and_state_dicts_cross_libraries(torch_ref: Any) -> None:
    mine = _averaged(minitorch, "default", False)
    ref = _averaged(torch_ref, "default", False)
    fresh_mine = minitorch.optim.swa_utils.AveragedModel(_model(minitorch))
    fresh_mine.load_state_dict(_from_numpy(minitorch, _numpy(ref.state_dict())))
    fresh_ref = torch_ref.optim.swa_utils.AveragedModel(_model(torch_ref))
    fresh_ref.load_state_dict(_from_numpy(torch_ref, _numpy(mine.state_dict())))
    data = np.random.default_rng(9).standard_normal((BATCH, IN))
    for model in (mine, ref, fresh_mine, fresh_ref):
        model.eval()
    outputs = [model(lib.tensor(data)).detach().numpy()
               for model, lib in ((mine, minitorch), (ref, torch_ref), (fresh_mine, minitorch), (fresh_ref, torch_ref))]
    for got in outputs[:1] + outputs[2:]:
        np.testing.assert_allclose(got, outputs[1], rtol=REL, atol=REL)
    assert int(fresh_mine.n_averaged) == UPDATES
    assert repr(mine) == repr(ref)


def test_the_copy_is_independent_of_the_model(torch_ref: Any) -> None:
    for lib in (minitorch, torch_ref):
        model = _model(lib)
        swa_model = lib.optim.swa_utils.AveragedModel(model)
        assert all(a is not b for a, b in zip(swa_model.module.parameters(), model.parameters()))
        assert int(swa_model.n_averaged) == 0 and swa_model.n_averaged.dtype == lib.int64


def _error(action: Callable[[], Any]) -> tuple[type, str]:
    with pytest.raises(Exception) as caught:
        action()
    return type(caught.value), str(caught.value)


@pytest.mark.parametrize("case", ["both_functions", "ema_decay", "ema_multi_decay"])
def test_bad_arguments_fail_as_torch(torch_ref: Any, case: str) -> None:
    def run(lib: Any) -> Any:
        swa_utils = lib.optim.swa_utils
        if case == "both_functions":
            return swa_utils.AveragedModel(_model(lib), avg_fn=swa_utils.get_swa_avg_fn(),
                                           multi_avg_fn=swa_utils.get_swa_multi_avg_fn())
        if case == "ema_decay":
            return swa_utils.get_ema_avg_fn(1.5)
        return swa_utils.get_ema_multi_avg_fn(-0.1)

    assert _error(lambda: run(minitorch)) == _error(lambda: run(torch_ref))


# ---- SWALR ----

def _optimizer(lib: Any) -> Any:
    groups = [{"params": [lib.zeros(1, requires_grad=True)], "lr": lr} for lr in GROUP_LRS]
    return lib.optim.SGD(groups, lr=GROUP_LRS[0])


def _swalr_rates(lib: Any, options: dict[str, Any], warmup_epochs: int = 0) -> list[list[float]]:
    """Rates after each step: ``warmup_epochs`` of cosine annealing first, then SWALR (the usual recipe)."""
    optimizer = _optimizer(lib)
    rates = []
    if warmup_epochs:
        warmup = lib.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=2 * warmup_epochs)
        for _ in range(warmup_epochs):
            optimizer.step()
            warmup.step()
            rates.append(warmup.get_last_lr())
    scheduler = lib.optim.swa_utils.SWALR(optimizer, **options)
    rates.append(scheduler.get_last_lr())
    for _ in range(EPOCHS):
        optimizer.step()
        scheduler.step()
        rates.append(scheduler.get_last_lr())
        assert rates[-1] == [group["lr"] for group in optimizer.param_groups]
    return rates


SWALR_OPTIONS = {
    "cos": {"swa_lr": 0.05},
    "linear": {"swa_lr": 0.05, "anneal_strategy": "linear", "anneal_epochs": 5},
    "cos_per_group": {"swa_lr": [0.02, 0.2], "anneal_epochs": 3},
    "linear_per_group": {"swa_lr": [0.02, 0.2], "anneal_strategy": "linear", "anneal_epochs": 7},
    "no_annealing": {"swa_lr": 0.01, "anneal_epochs": 0},
    "one_epoch": {"swa_lr": 0.01, "anneal_strategy": "linear", "anneal_epochs": 1},
}


@pytest.mark.parametrize("warmup_epochs", [0, 3], ids=["alone", "after_cosine"])
@pytest.mark.parametrize("options", SWALR_OPTIONS.values(), ids=SWALR_OPTIONS.keys())
def test_swalr_rates_match_torch(torch_ref: Any, options: dict[str, Any], warmup_epochs: int) -> None:
    got = _swalr_rates(minitorch, options, warmup_epochs)
    expected = _swalr_rates(torch_ref, options, warmup_epochs)
    assert len(got) == len(expected)
    for epoch, (mine, reference) in enumerate(zip(got, expected)):
        assert mine == pytest.approx(reference, rel=REL, abs=1e-15), f"epoch {epoch}"


def _resumed_rates(lib: Any) -> list[list[float]]:
    """Two steps of a linear SWALR, then its state loaded into a cosine one made on a fresh optimizer."""
    optimizer = _optimizer(lib)
    scheduler = lib.optim.swa_utils.SWALR(optimizer, **SWALR_OPTIONS["linear"])
    for _ in range(2):
        optimizer.step()
        scheduler.step()
    state = scheduler.state_dict()
    assert "anneal_func" not in state and "optimizer" not in state
    resumed_optimizer = _optimizer(lib)
    resumed_optimizer.load_state_dict(optimizer.state_dict())
    resumed = lib.optim.swa_utils.SWALR(resumed_optimizer, swa_lr=1.0)
    resumed.load_state_dict(state)
    rates = [resumed.get_last_lr()]
    for _ in range(EPOCHS):
        resumed_optimizer.step()
        resumed.step()
        rates.append(resumed.get_last_lr())
    return rates


def test_swalr_state_dict_restores_the_strategy_as_torch(torch_ref: Any) -> None:
    got, expected = _resumed_rates(minitorch), _resumed_rates(torch_ref)
    for epoch, (mine, reference) in enumerate(zip(got, expected)):
        assert mine == pytest.approx(reference, rel=REL), f"epoch {epoch}"


@pytest.mark.parametrize("options", [{"swa_lr": 0.1, "anneal_strategy": "step"}, {"swa_lr": 0.1, "anneal_epochs": -1},
                                     {"swa_lr": 0.1, "anneal_epochs": 2.5}, {"swa_lr": [0.1, 0.2, 0.3]}],
                         ids=["strategy", "negative_epochs", "float_epochs", "swa_lr_per_group"])
def test_swalr_bad_arguments_fail_as_torch(torch_ref: Any, options: dict[str, Any]) -> None:
    errors = [_error(lambda lib=lib: lib.optim.swa_utils.SWALR(_optimizer(lib), **options))
              for lib in (minitorch, torch_ref)]
    assert errors[0] == errors[1]


def test_swalr_cosine_reaches_swa_lr_as_the_formula_says() -> None:
    """The closed form, for one group starting at ``lr0`` (independent of both implementations)."""
    lr0, swa_lr, anneal = GROUP_LRS[0], 0.05, 4
    rates = [row[0] for row in _swalr_rates(minitorch, {"swa_lr": swa_lr, "anneal_epochs": anneal})]
    for step, rate in enumerate(rates):
        alpha = (1 - math.cos(math.pi * min(1, step / anneal))) / 2
        assert rate == pytest.approx(swa_lr * alpha + lr0 * (1 - alpha), rel=REL)


# ---- update_bn ----

def _loader(lib: Any, kind: str) -> Any:
    batches = [_batch(lib, step) * (step + 1) for step in range(3)]
    if kind == "tensors":
        return batches
    if kind == "pairs":
        return [(x, lib.zeros(BATCH)) for x in batches]
    dataset = lib.utils.data.TensorDataset(lib.cat(batches), lib.zeros(3 * BATCH))
    return lib.utils.data.DataLoader(dataset, batch_size=4, shuffle=False)


def _updated_statistics(lib: Any, kind: str, wrap: bool, training: bool) -> tuple[dict[str, np.ndarray], list[Any]]:
    model = _model(lib)
    model(_batch(lib, 9))  # statistics that update_bn must throw away
    model.train(training)
    target = lib.optim.swa_utils.AveragedModel(model) if wrap else model
    if wrap:
        target.update_parameters(model)
    lib.optim.swa_utils.update_bn(_loader(lib, kind), target, device="cpu")
    norm = target.module[1] if wrap else target[1]
    return _numpy(target.state_dict()), [norm.momentum, target.training, norm.training]


@pytest.mark.parametrize("training", [True, False], ids=["train_mode", "eval_mode"])
@pytest.mark.parametrize("wrap", [False, True], ids=["model", "averaged_model"])
@pytest.mark.parametrize("kind", ["tensors", "pairs", "dataloader"])
def test_update_bn_statistics_match_torch(torch_ref: Any, kind: str, wrap: bool, training: bool) -> None:
    got, got_modes = _updated_statistics(minitorch, kind, wrap, training)
    expected, expected_modes = _updated_statistics(torch_ref, kind, wrap, training)
    assert got_modes == expected_modes
    assert list(got) == list(expected)
    for key in expected:
        np.testing.assert_allclose(got[key], expected[key], rtol=REL, atol=REL, err_msg=key)


def test_update_bn_gives_the_plain_mean_and_unbiased_variance() -> None:
    """The statistics are the average over the batches, as a momentum of None makes them."""
    norm = minitorch.nn.BatchNorm1d(IN).double()
    batches = [_batch(minitorch, step) * (step + 1) for step in range(3)]
    minitorch.optim.swa_utils.update_bn(batches, norm)
    arrays = [b.numpy() for b in batches]
    np.testing.assert_allclose(norm.running_mean.numpy(), np.mean([a.mean(0) for a in arrays], axis=0), rtol=REL)
    np.testing.assert_allclose(norm.running_var.numpy(), np.mean([a.var(0, ddof=1) for a in arrays], axis=0), rtol=REL)


def test_update_bn_without_batchnorm_leaves_the_model_alone() -> None:
    model = minitorch.nn.Linear(IN, OUT).double()
    model.eval()
    minitorch.optim.swa_utils.update_bn([_batch(minitorch, 0)], model)
    assert not model.training
