"""What only the cuda backend has: its launch configuration and its host transfers.

The backend contract (every op, dtype and layout, against NumPy and the simple backend) is
tested on every backend, cuda included, in ``test_backend_contract.py``. The ``small_cuda``
fixture shrinks the launch sizes (8 threads per block, 3 blocks at most) so that tiny inputs
already need more elements than threads.
"""

from __future__ import annotations

import numpy as np
import pytest

from backend_views import F64, I32, LAYOUTS, Kit, assert_close, cuda_kit
from minitorch.tensor_data import TensorData

pytestmark = pytest.mark.usefixtures("small_cuda")


@pytest.fixture
def kit() -> Kit:
    from minitorch.backends import backend_for

    return cuda_kit(backend_for("cuda"))


@pytest.mark.task("3.4")
def test_grid_stride_covers_more_elements_than_threads(kit: Kit) -> None:
    """61 elements, 3 blocks of 8 threads: each thread takes several elements."""
    values = np.arange(61.0)
    out = kit.out((61,), F64)
    kit.backend.map("neg", kit.view(values), out)
    assert_close(kit.values(out), -values)
    expanded = TensorData(kit.upload(np.array([5.0])), (61,), (0,))  # one number read 61 times
    kit.backend.zip("add", kit.view(values), expanded, out)
    assert_close(kit.values(out), values + 5)


@pytest.mark.task("3.4")
@pytest.mark.parametrize("layout", LAYOUTS)
def test_download_gives_the_view_values(kit: Kit, layout: str) -> None:
    values = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    downloaded = kit.backend.download(kit.view(values, layout))
    assert downloaded.dtype == I32
    assert_close(downloaded, values)
