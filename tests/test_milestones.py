"""The milestones (``minitorch milestone N``): each one in its quick mode trains, saves a PNG and
clears a bar measured here independently (NumPy forward passes, PyTorch as the oracle for
LeNet, the text's unigram entropy from ``collections.Counter``); a missing task gives one
sentence, not a traceback."""

from __future__ import annotations

import collections
import math
from pathlib import Path

import numpy as np
import pytest

import minitorch
from minitorch import operators
from minitorch.cli import main
from minitorch.milestones import attention, checks, perceptron, xor
from minitorch.milestones.cli import run_milestone
from minitorch.milestones.common import Options
from minitorch.milestones.registry import MILESTONES, Milestone

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
DIGITS_TEST_FRACTION = 0.2
STUB_0_1 = "Task 0.1: Scalar arithmetic, comparisons and the basic functions (see assignments/00-operators/README.md)"


@pytest.fixture
def quick(tmp_path: Path) -> Options:
    return Options(out_dir=tmp_path, quick=True, progress=False)


def assert_png(path: Path) -> None:
    assert path.is_file() and path.read_bytes()[:len(PNG_SIGNATURE)] == PNG_SIGNATURE


def heldout_digits(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's digits, the held-out 20% of a seeded shuffle (pixels / 16), recomputed here."""
    from sklearn.datasets import load_digits

    bunch = load_digits()
    order = np.random.default_rng(seed).permutation(len(bunch.target))
    test = order[:int(round(len(order) * DIGITS_TEST_FRACTION))]
    return bunch.data[test] / 16.0, bunch.target[test]


def test_perceptron_separates_its_training_set(quick: Options) -> None:
    outcome = run_milestone(MILESTONES[1], quick)
    points, labels = outcome.arrays["points"], outcome.arrays["labels"]
    true_side = np.sign(points @ np.array(perceptron.TRUE_WEIGHT) + perceptron.TRUE_BIAS)
    assert np.array_equal(true_side, labels)  # the set is separable by construction
    learned_side = np.sign(points @ outcome.arrays["weight"] + outcome.arrays["bias"][0])
    assert np.array_equal(learned_side, labels)
    assert_png(outcome.picture)


def test_xor_network_gets_all_four_points(quick: Options) -> None:
    outcome = run_milestone(MILESTONES[2], quick)
    w = outcome.arrays
    inputs = np.array(xor.INPUTS)
    hidden = np.tanh(inputs @ w["W1"] + w["b1"])
    probability = 1.0 / (1.0 + np.exp(-(hidden @ w["W2"] + w["b2"])))
    assert np.array_equal(probability[:, 0] > 0.5, np.array([False, True, True, False]))
    assert_png(outcome.picture)


def test_digits_mlp_beats_85_percent_held_out(quick: Options) -> None:
    outcome = run_milestone(MILESTONES[3], quick)
    w = outcome.arrays
    images, labels = heldout_digits()
    hidden = np.maximum(images @ w["0.weight"].T + w["0.bias"], 0.0)
    predicted = (hidden @ w["2.weight"].T + w["2.bias"]).argmax(axis=1)
    assert np.mean(predicted == labels) > 0.85
    assert_png(outcome.picture)


def test_lenet_beats_80_percent_held_out(quick: Options, torch_ref) -> None:
    outcome = run_milestone(MILESTONES[4], quick)
    nn = torch_ref.nn
    reference = nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.Tanh(), nn.AvgPool2d(2), nn.Conv2d(6, 16, 5, padding=2), nn.Tanh(),
        nn.AvgPool2d(2), nn.Flatten(), nn.Linear(64, 120), nn.Tanh(), nn.Linear(120, 84), nn.Tanh(), nn.Linear(84, 10))
    weights = {name: value for name, value in outcome.arrays.items() if name != "predicted"}
    reference.load_state_dict({name: torch_ref.from_numpy(np.array(value)) for name, value in weights.items()})
    images, labels = heldout_digits()
    with torch_ref.no_grad():
        logits = reference(torch_ref.from_numpy(images.astype(np.float32)).view(-1, 1, 8, 8))
    predicted = logits.argmax(dim=1).numpy()
    assert np.mean(predicted == labels) > 0.80
    assert np.mean(predicted == outcome.arrays["predicted"]) > 0.99  # our forward agrees with PyTorch's
    assert_png(outcome.picture)


def test_attention_loss_drops_below_the_unigram_entropy(quick: Options) -> None:
    text = attention.read_text()
    counts = collections.Counter(text)
    entropy = -sum(c / len(text) * math.log(c / len(text)) for c in counts.values())
    outcome = run_milestone(MILESTONES[5], quick)
    assert outcome.figures["loss"] < entropy
    (sample,) = outcome.samples
    assert sample.startswith(attention.PROMPT) and len(sample) == len(attention.PROMPT) + attention.QUICK.sample_length
    assert_png(outcome.picture)


def test_attention_text_comes_from_the_standard_library() -> None:
    import textwrap

    with open(textwrap.__file__, encoding="utf-8") as source:
        first_line = source.readline()
    assert attention.read_text().startswith(first_line)


def test_list_names_every_milestone_and_its_steps(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["milestone", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(".")[0] for line in lines] == ["1", "2", "3", "4", "5"]
    assert "needs steps 0-2" in lines[0] and "needs steps 0-6" in lines[4]


def test_a_stubbed_task_gives_one_sentence_instead_of_a_traceback(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def stub(x: float, y: float) -> float:
        raise NotImplementedError(STUB_0_1)

    monkeypatch.setattr(operators, "mul", stub)
    assert main(["milestone", "1", "--quick", "--no-progress", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert out.strip().splitlines()[-1] == (
        "Do task 0.1 first (Scalar arithmetic, comparisons and the basic functions; see "
        "assignments/00-operators/README.md): milestone 1 (the perceptron) needs step 0.")
    assert "Traceback" not in out and not list(tmp_path.iterdir())


def test_a_stubbed_layer_names_its_task(monkeypatch: pytest.MonkeyPatch, quick: Options) -> None:
    def stub(*args: object, **kwargs: object) -> None:
        raise NotImplementedError("Task 5.3: Convolution as a window view (see assignments/05-layers/README.md)")

    monkeypatch.setattr(minitorch.nn.functional, "conv2d", stub)
    missing = run_milestone(MILESTONES[4], quick)
    assert isinstance(missing, checks.Missing) and (missing.step, missing.task) == (5, "5.3")


def test_a_wrong_value_points_to_the_step(monkeypatch: pytest.MonkeyPatch, quick: Options) -> None:
    monkeypatch.setattr(operators, "sigmoid", lambda x: 0.0)
    missing = run_milestone(MILESTONES[2], quick)
    assert isinstance(missing, checks.Missing) and (missing.step, missing.task) == (0, None)
    assert missing.sentence("milestone 2").startswith("Finish step 0 first: milestone 2 needs it")
    assert "operators.sigmoid(0) gave 0.0, expected 0.5" in missing.sentence("milestone 2")


def test_without_kernels_the_small_milestones_run_in_pure_python(
        monkeypatch: pytest.MonkeyPatch, quick: Options, capsys: pytest.CaptureFixture[str]) -> None:
    used: list[str] = []

    def stub_kernels() -> None:
        raise NotImplementedError("Task 3.1: Numba CPU kernels (see assignments/03-efficiency/README.md)")

    def record_backend(options: Options) -> perceptron.Outcome:
        used.append(minitorch.backends.get_cpu_backend_name())
        return perceptron.Outcome()

    monkeypatch.setitem(checks.STEP_CHECKS, checks.KERNELS_STEP, stub_kernels)
    small = Milestone(1, "a test", 2000, (), steps=(0, 1, 2), run=record_backend, kernels_optional=True)
    run_milestone(small, quick)
    assert used == ["simple"] and "pure-Python backend" in capsys.readouterr().out
    needs_kernels = Milestone(3, "a test", 2000, (), steps=(0, 1, 2, 3), run=record_backend)
    assert run_milestone(needs_kernels, quick).task == "3.1"


def test_a_stub_met_while_training_is_reported_too(quick: Options) -> None:
    def meets_a_stub(options: Options) -> None:
        raise NotImplementedError("Task 9.2: DataLoader batching (see assignments/09-training/README.md)")

    milestone = Milestone(9, "a test", 2000, (), steps=(0,), run=meets_a_stub)
    missing = run_milestone(milestone, quick)
    assert (missing.task, missing.detail) == ("9.2", "DataLoader batching; see assignments/09-training/README.md")


def test_the_first_unfinished_task_of_a_step_is_the_one_named(monkeypatch: pytest.MonkeyPatch) -> None:
    def stub(*args: object) -> None:
        raise NotImplementedError("Task 2.1: Strided storage (see assignments/02-tensor/README.md)")

    monkeypatch.setattr(minitorch.tensor_data, "index_to_position", stub)
    assert checks.first_missing((0, 1, 2)) == checks.Missing(2, "2.1", "Strided storage; see assignments/02-tensor/README.md")
