"""Corpus scripts that do not agree with PyTorch yet, each with what stops it.

``make test`` runs the whole corpus. A script named here is expected to differ (a strict
``xfail``): the day it agrees, its test fails until the script is taken off this list, so the
list never hides a script that works, nor keeps one that silently regressed from agreeing.
The reasons are the runner's first difference (``python compat/run.py SCRIPT``).
"""

from __future__ import annotations

#: script file name -> the gap that stops it (the first error or difference)
KNOWN_GAPS: dict[str, str] = {
    'attention_masks.py': "line 76: AttributeError: module 'minitorch' has no attribute 'softmax'",
    'autograd_graph.py': 'line 1: torch `Gradient function for z = AddBackward0` vs minitorch `Gradient function for z = Node`',
    'bigram_counts.py': "line 26: TypeError: Tensor.sum() got an unexpected keyword argument 'keepdims'",
    'blitz_neural_network.py': 'line 12: torch `tensor(30.2588, grad_fn=<MseLossBackward0>)` vs minitorch `tensor(30.2588, grad_fn=<MeanBackward0>)`',
    'dataset_dataloader.py': "line 32: TypeError: unsupported operand type(s) for %: 'Tensor' and 'int'",
    'dcgan_like.py': "line 28: AttributeError: module 'minitorch.nn' has no attribute 'ConvTranspose2d'",
    'devices.py': "line 10: AttributeError: module 'minitorch.backends' has no attribute 'mps'",
    'einsum_linalg.py': "line 32: AttributeError: module 'minitorch.linalg' has no attribute 'norm'",
    'mnist_example.py': "line 77: TypeError: unsupported operand type(s) for %: 'Tensor' and 'int'",
    'nn_tutorial_cnn.py': "line 12: TypeError: unsupported operand type(s) for %: 'Tensor' and 'int'",
    'poly_custom_function.py': 'line 7: torch `tensor([-0.4375, -1.0000], dtype=torch.float64, grad_fn=<Legendre3Backward>)` vs minitorch `tensor([-0.4375, -1.0000], dtype=torch.f...',
    'poly_nn_sequential.py': 'line 12: torch `<MseLossBackward0 object at 0x?>` vs minitorch `<SumBackward0 object at 0x?>`',
    'rng_streams.py': "line 1: torch `tensor([0.4963, 0.7682, 0.0885])` vs minitorch `tensor([0.6370, 0.2698, 0.0410])` (minitorch's generator is PCG64, not PyTorch's Mersenne Twister; every call of the script runs)",
    'save_load.py': "line 76: SerializationError: refusing to rebuild obj, an object of class '__main__.TheModelClass': the class is neither one of minitorch's own nor allowlisted (by design: with add_safe_globals([TheModelClass]) the script agrees)",
    'tensor_math.py': "line 15: AttributeError: module 'minitorch' has no attribute 'round'. Did you mean: 'rand'?",
    'transfer_finetune.py': "line 40: TypeError: unsupported operand type(s) for %: 'Tensor' and 'int'",
    'type_conversions.py': "line 7: AttributeError: module 'minitorch' has no attribute 'LongTensor'",
}
