"""The five milestones: what each one is, the history it tells and the course steps it needs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import attention, digits_mlp, lenet, perceptron, xor
from .common import Options, Outcome


@dataclass(frozen=True)
class Milestone:
    """One milestone: ``run`` trains and plots; ``steps`` must pass first.

    ``kernels_optional``: the milestone is small enough for the pure-Python backend, so it
    runs there (slower) when the Numba kernels of step 3 are not done yet.
    """

    number: int
    title: str
    year: int
    history: tuple[str, ...]
    steps: tuple[int, ...]
    run: Callable[[Options], Outcome]
    kernels_optional: bool = False

    @property
    def steps_text(self) -> str:
        """``steps 0-2`` style."""
        return f"steps {self.steps[0]}-{self.steps[-1]}"


MILESTONES: dict[int, Milestone] = {
    1: Milestone(1, "the perceptron", 1957, (
        "Frank Rosenblatt's perceptron (1957) was the first machine that learned from examples:",
        "a weighted sum, a threshold, and a rule that nudges the weights toward each point it gets wrong.",
        "Novikoff proved in 1962 that on data a line separates, the rule stops making mistakes.",
        "Here your tensors run that rule on 100 generated points.",
    ), steps=(0, 1, 2), run=perceptron.run, kernels_optional=True),
    2: Milestone(2, "XOR and backpropagation", 1986, (
        "Minsky and Papert (1969) showed that no perceptron computes XOR: no line separates its points.",
        "A hidden layer can, but how to train it? Rumelhart, Hinton and Williams (1986) popularised",
        "backpropagation: the chain rule applied backwards through the network, one local derivative at a time.",
        "Here your autograd engine computes those gradients for a 2-4-1 network on XOR's four points.",
    ), steps=(0, 1, 2), run=xor.run, kernels_optional=True),
    3: Milestone(3, "an MLP reads handwritten digits", 1989, (
        "Hornik, Stinchcombe and White (1989) proved that one hidden layer can approximate any continuous",
        "function; multilayer perceptrons trained by backpropagation became the workhorse of pattern recognition.",
        "Here your Linear layers, cross-entropy and Adam learn the 8x8 handwritten digits.",
    ), steps=(0, 1, 2, 3, 4, 5, 6), run=digits_mlp.run),
    4: Milestone(4, "LeNet-5", 1998, (
        "Yann LeCun's LeNet-5 (1998) read the digits on cheques: convolutions share one small filter",
        "across the whole image, pooling makes it tolerant to small shifts, and it is trained end to end.",
        "Banks in the US used its descendants to read millions of cheques a day.",
        "Here your Conv2d and pooling learn the digits and you see the filters they found.",
    ), steps=(0, 1, 2, 3, 4, 5, 6), run=lenet.run),
    5: Milestone(5, "attention", 2017, (
        "'Attention Is All You Need' (Vaswani et al., 2017) dropped recurrence: each position looks at all",
        "earlier ones through softmax-weighted dot products, and every position trains in parallel.",
        "It is the architecture behind today's language models.",
        "Here your attention and layer norm learn to write Python, one character at a time, from the standard library.",
    ), steps=(0, 1, 2, 3, 4, 5, 6), run=attention.run),
}
