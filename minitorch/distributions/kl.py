r"""``kl_divergence(p, q)`` and ``register_kl``: closed-form :math:`\mathrm{KL}(p \,\|\, q) = \mathbb{E}_p[\log p - \log q]`
chosen by the pair of types (``torch.distributions.kl``).

A formula is registered for a pair of classes; a call uses the most specific registered pair
its arguments are instances of, ranked by the position of the registered classes in the
arguments' method resolution orders, ``p``'s first. When ranking ``q``'s first picks another
formula the pair is ambiguous: a ``RuntimeWarning`` asks for a registration of the exact pair.
Lookups are memoized per pair of types; a new registration clears the memo. The formulas
themselves are in :mod:`.kl_pairs`.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

from ..tensor import Tensor
from .distribution import Distribution

KLFunction = Callable[[Any, Any], Tensor]

#: the registered pairs, the source of truth
_REGISTRY: dict[tuple[type, type], KLFunction] = {}
#: pairs of concrete types -> the formula dispatch chose (or None: nothing matches)
_MEMO: dict[tuple[type, type], KLFunction | None] = {}


def register_kl(type_p: type, type_q: type) -> Callable[[KLFunction], KLFunction]:
    """Decorator registering ``fun(p, q)`` as :math:`\\mathrm{KL}(p \\| q)` for ``p`` of ``type_p``, ``q`` of ``type_q``."""
    for name, kind in (("type_p", type_p), ("type_q", type_q)):
        if not (isinstance(kind, type) and issubclass(kind, Distribution)):
            raise TypeError(f"Expected {name} to be a Distribution subclass but got {kind}")

    def decorator(fun: KLFunction) -> KLFunction:
        _REGISTRY[type_p, type_q] = fun
        _MEMO.clear()  # a new pair may be more specific than a memoized choice
        return fun

    return decorator


def _dispatch(type_p: type, type_q: type) -> KLFunction | None:
    """The formula of the most specific registered pair, ``p``'s rank first (None if none applies)."""
    mro_p, mro_q = type_p.__mro__, type_q.__mro__
    matches = [(sp, sq) for sp, sq in _REGISTRY if issubclass(type_p, sp) and issubclass(type_q, sq)]
    if not matches:
        return None
    left = min(matches, key=lambda m: (mro_p.index(m[0]), mro_q.index(m[1])))
    right = min(matches, key=lambda m: (mro_q.index(m[1]), mro_p.index(m[0])))
    if _REGISTRY[left] is not _REGISTRY[right]:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left[0].__name__}, {right[1].__name__})", RuntimeWarning, stacklevel=3)
    return _REGISTRY[left]


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    r""":math:`\mathrm{KL}(p \,\|\, q) = \int p(x) \log \frac{p(x)}{q(x)}\,dx`, one value per batch entry.

    Raises ``NotImplementedError`` when no registered pair matches the types of ``p`` and ``q``.
    """
    key = (type(p), type(q))
    if key not in _MEMO:
        _MEMO[key] = _dispatch(*key)
    fun = _MEMO[key]
    if fun is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and q type {type(q).__name__}")
    return fun(p, q)


__all__ = ["kl_divergence", "register_kl"]
