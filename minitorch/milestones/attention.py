r"""Milestone 5: attention (Vaswani et al., 2017) -- a character-level transformer writes Python.

The text is read at run time from the Python standard library's own sources (a few modules
found with ``inspect.getsourcefile``): nothing is downloaded and no text is stored in the
project. Each character is a token; the model embeds tokens and positions, runs a stack of
``nn.TransformerEncoderLayer`` with a causal mask (position :math:`t` attends only to
:math:`\le t`), and predicts the next character:

.. math::
    \operatorname{Attention}(Q, K, V) = \operatorname{softmax}\!\Big(\frac{Q K^\top}{\sqrt{d}} + M\Big) V,
    \qquad M_{ij} = -\infty \text{ for } j > i .

Training minimizes the cross-entropy of the next character; a model that learned nothing
about order scores the text's unigram entropy :math:`-\sum_c p_c \log p_c`, so a loss below it
means the context is being used. Then it samples new "Python". Needs steps 0-6.
"""

from __future__ import annotations

import importlib
import inspect
import string
from dataclasses import dataclass

import numpy as np

import minitorch
from minitorch import nn

from .common import Options, Outcome, Stopwatch, progress, pyplot, save_figure

#: standard-library modules whose source is the training text (pure Python in every CPython)
SOURCE_MODULES = ("textwrap", "heapq", "shlex", "string", "queue", "glob", "fnmatch", "bisect", "colorsys")
#: the characters kept; anything else (a rare non-ASCII letter in a docstring) becomes UNKNOWN
VOCABULARY = "".join(sorted(set(string.printable) - set("\x0b\x0c\r")))
UNKNOWN = "?"
PROMPT = "def "
TEMPERATURE = 0.7
PICTURE = "milestone5-attention.png"


@dataclass(frozen=True)
class Config:
    """Model size and training length."""

    context: int
    width: int
    heads: int
    layers: int
    batch_size: int
    steps: int
    lr: float
    sample_length: int


FULL = Config(context=32, width=48, heads=4, layers=2, batch_size=32, steps=800, lr=4e-3, sample_length=300)
QUICK = Config(context=16, width=32, heads=2, layers=1, batch_size=32, steps=40, lr=2e-2, sample_length=40)


def read_text() -> str:
    """The sources of :data:`SOURCE_MODULES`, concatenated, with characters outside the vocabulary replaced."""
    parts = []
    for name in SOURCE_MODULES:
        path = inspect.getsourcefile(importlib.import_module(name))
        if path is not None:
            with open(path, encoding="utf-8") as source:
                parts.append(source.read())
    known = set(VOCABULARY)
    return "".join(c if c in known else UNKNOWN for c in "\n".join(parts))


def encode(text: str) -> np.ndarray:
    """Token ids (int64) of ``text``."""
    index = {c: i for i, c in enumerate(VOCABULARY)}
    return np.array([index[c] for c in text], dtype=np.int64)


def decode(tokens: list[int]) -> str:
    return "".join(VOCABULARY[t] for t in tokens)


class CharTransformer(nn.Module):
    """Token + position embeddings, a causal ``TransformerEncoder``, a linear head to next-character logits."""

    def __init__(self, config: Config) -> None:
        super().__init__()
        self.context = config.context
        self.token = nn.Embedding(len(VOCABULARY), config.width)
        self.position = nn.Embedding(config.context, config.width)
        layer = nn.TransformerEncoderLayer(config.width, config.heads, dim_feedforward=4 * config.width, dropout=0.0,
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, config.layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(config.width)
        self.head = nn.Linear(config.width, len(VOCABULARY))

    def forward(self, tokens: minitorch.Tensor) -> minitorch.Tensor:
        """Logits ``(batch, length, vocabulary)`` for token ids ``(batch, length)``, length <= context."""
        length = tokens.shape[1]
        hidden = self.token(tokens) + self.position(minitorch.arange(length))
        mask = nn.Transformer.generate_square_subsequent_mask(length)
        return self.head(self.norm(self.encoder(hidden, mask=mask, is_causal=True)))


def unigram_entropy(tokens: np.ndarray) -> float:
    r""":math:`-\sum_c p_c \log p_c` in nats over the token frequencies."""
    counts = np.bincount(tokens)
    p = counts[counts > 0] / len(tokens)
    return float(-(p * np.log(p)).sum())


def train(model: CharTransformer, data: np.ndarray, config: Config, options: Options) -> list[float]:
    """AdamW on random windows of the text; the loss of each step."""
    optimizer = minitorch.optim.AdamW(model.parameters(), lr=config.lr)
    loss_fn = nn.CrossEntropyLoss()
    rng = np.random.default_rng(options.seed)
    offsets = np.arange(config.context)
    losses: list[float] = []
    bar = progress(range(config.steps), options, "char transformer")
    model.train()
    for _ in bar:
        starts = rng.integers(0, len(data) - config.context - 1, size=config.batch_size)
        window = starts[:, None] + offsets
        inputs, targets = minitorch.from_numpy(data[window]), minitorch.from_numpy(data[window + 1])
        optimizer.zero_grad()
        logits = model(inputs)
        loss = loss_fn(logits.reshape(-1, len(VOCABULARY)), targets.reshape(-1))
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        bar.set_postfix(loss=f"{losses[-1]:.3f}", refresh=False)
    return losses


def sample(model: CharTransformer, prompt: str, length: int, seed: int) -> str:
    """Continue ``prompt`` by ``length`` characters drawn from the model at :data:`TEMPERATURE`."""
    rng = np.random.default_rng(seed)
    tokens = list(encode(prompt))
    model.eval()
    with minitorch.no_grad():
        for _ in range(length):
            context = minitorch.tensor([tokens[-model.context:]])
            logits = model(context)[0, -1].numpy().astype(np.float64) / TEMPERATURE
            p = np.exp(logits - logits.max())
            tokens.append(int(rng.choice(len(p), p=p / p.sum())))
    return decode(tokens)


#: the final loss reported is the mean over this many last steps
LOSS_WINDOW = 10


def mean_loss(losses: list[float], last: int) -> float:
    """The mean of the last ``last`` losses (one batch's loss is noisy)."""
    return float(np.mean(losses[-last:]))


def run(options: Options) -> Outcome:
    """Read the text, train the transformer, print samples and save the loss curve."""
    minitorch.manual_seed(options.seed)
    clock = Stopwatch()
    config = QUICK if options.quick else FULL
    text = read_text()
    data = encode(text)
    entropy = unigram_entropy(data)
    print(f"text: {len(text)} characters of the standard library's {', '.join(SOURCE_MODULES)}; unigram entropy "
          f"{entropy:.3f} nats")
    model = CharTransformer(config)
    losses = train(model, data, config, options)
    final = mean_loss(losses, LOSS_WINDOW)
    print(f"final loss {final:.3f} nats per character (mean of the last {LOSS_WINDOW} steps) vs the unigram "
          f"entropy {entropy:.3f}")
    generated = sample(model, PROMPT, config.sample_length, options.seed)
    print("sample:\n" + generated)
    plt = pyplot()
    figure, ax = plt.subplots(figsize=(7, 4))
    ax.plot(losses, label="training loss")
    ax.axhline(entropy, color="tab:red", linestyle="--", label="unigram entropy")
    ax.set(title="character transformer on standard-library source", xlabel="step", ylabel="cross-entropy (nats)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    picture = save_figure(figure, options.out_dir, PICTURE)
    return Outcome(figures={"loss": final, "unigram_entropy": entropy, "characters": float(len(text))},
                   picture=picture, samples=[generated], seconds=clock.elapsed, arrays={"tokens": data})
