"""einsum: explicit and implicit outputs, repeated subscripts, ``...``, size-1 broadcasting, any
number of operands, the sublist form; values against PyTorch (float64 to 1e-12, float32),
gradients against PyTorch's and central differences, errors against PyTorch's messages."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch
from minitorch.ops.linalg import MatMul
from tests.gradcheck import gradcheck
from tests.test_shape_extra import _arr, _compare, _same_error

CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("i,i->", [(4,), (4,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,j", [(3,), (4,)]),
    ("ii", [(4, 4)]),
    ("ii->i", [(4, 4)]),
    ("iij->ji", [(3, 3, 2)]),
    ("ijij->ij", [(2, 3, 2, 3)]),
    ("ij->ji", [(3, 4)]),
    ("ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("ij->j", [(3, 4)]),
    ("aB", [(3, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (3, 4, 5)]),
    ("i...,i...->...", [(3, 2, 4), (3, 1, 4)]),
    ("...i->i", [(2, 3, 4)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("ij,ij->i", [(3, 4), (1, 4)]),
    ("ij,jk->ik", [(3, 1), (4, 5)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ij,jk,kl->li", [(2, 3), (3, 4), (4, 5)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("i,j,k->ijk", [(2,), (3,), (4,)]),
    ("ab,cd->", [(2, 3), (4, 5)]),
    (" ij , jk -> ik ", [(3, 4), (4, 5)]),
    ("->", [()]),
    ("i,->i", [(3,), ()]),
]


@pytest.mark.parametrize("equation,shapes", CASES, ids=[c[0] for c in CASES])
def test_einsum_matches_torch(torch_ref, equation, shapes):
    _compare(torch_ref, lambda lib, t: lib.einsum(equation, *t), *[_arr(*s) for s in shapes])


def test_operands_as_one_list_and_the_sublist_form(torch_ref):
    a, b = _arr(3, 4), _arr(4, 5)
    _compare(torch_ref, lambda lib, t: lib.einsum("ij,jk->ik", [t[0], t[1]]), a, b)
    _compare(torch_ref, lambda lib, t: lib.einsum(t[0], [0, 1], t[1], [1, 2], [0, 2]), a, b)
    _compare(torch_ref, lambda lib, t: lib.einsum(t[0], [30, 1], t[1], [1, 2]), a, b)
    _compare(torch_ref, lambda lib, t: lib.einsum(t[0], [..., 1], t[1], [1, 2], [..., 2]), _arr(2, 3, 4), b)


def test_einsum_gradients_by_central_differences():
    a = minitorch.tensor(_arr(2, 3, 3), requires_grad=True)
    b = minitorch.tensor(_arr(3, 2), requires_grad=True)
    gradcheck(lambda x, y: minitorch.einsum("bii,ij->bj", x, y), a, b)
    gradcheck(lambda x, y: minitorch.einsum("...ij,jk", x, y), a, b)


def test_einsum_is_made_of_matmul():
    a = minitorch.tensor(_arr(2, 3, 4), requires_grad=True)
    out = minitorch.einsum("bij,bjk->bik", a, minitorch.tensor(_arr(2, 4, 5)))
    functions = set()
    stack = [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None:
            functions.add(getattr(node, "function", None))
            stack.extend(n for n, _ in node.next_functions)
    # (a batched product's node carries PyTorch's name, UnsafeViewBackward0: the Function tells)
    assert MatMul in functions, functions


ERRORS = [
    ("ij,jk->ik", [(3, 4), (3, 5)]),
    ("ij,ij->", [(3, 4), (2, 4)]),
    ("ij->ijk", [(3, 4)]),
    ("ij->ii", [(3, 4)]),
    ("ij", [(3, 4), (3, 4)]),
    ("ij,jk", [(3, 4)]),
    ("ijk", [(3, 4)]),
    ("ij->j->", [(3, 4)]),
    ("ii", [(3, 4)]),
    ("i1", [(3, 4)]),
    ("i.j", [(3, 4)]),
    ("....ij", [(3, 4)]),
    ("ij->i.", [(3, 4)]),
    ("...ij->", [()]),
]


@pytest.mark.parametrize("equation,shapes", ERRORS, ids=[c[0] for c in ERRORS])
def test_einsum_errors(torch_ref, equation, shapes):
    _same_error(torch_ref, lambda lib: lib.einsum(equation, *[lib.zeros(s) for s in shapes]))


def test_einsum_argument_errors(torch_ref):
    _same_error(torch_ref, lambda lib: lib.einsum("ij"))
    _same_error(torch_ref, lambda lib: lib.einsum(lib.zeros(2, 3), [60, 1]))
    _same_error(torch_ref, lambda lib: lib.einsum("ij,jk", lib.zeros(2, 3, dtype=lib.float64), lib.zeros(3, 2)))
