"""The remote-object protocol of the grader (``minitorch.course.remote``).

A real worker (``python -m minitorch.course.remote.worker`` importing this checkout's
minitorch) answers a trusted :class:`Connection` here; expected values are Python's own
arithmetic and hand-derived derivatives. Fake workers written in the tests answer with
crafted, garbage, truncated or no messages: the trusted side must refuse them with a
``ProtocolError`` (a failed test, never a crash) and must never run code a message names.
"""

from __future__ import annotations

import base64
import copy
import io
import math
import os
import pickle
import re
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from collections import OrderedDict, namedtuple
from pathlib import Path, PurePosixPath
from typing import Iterator

import numpy as np
import pytest

from minitorch.course.remote.client import Connection, RemoteClassMeta, RemoteError, RemoteObject, unpickle_in_worker
from minitorch.course.remote.protocol import ChannelClosed, ProtocolError, decode, encode, shared_folder_token

ROOT = Path(__file__).resolve().parents[1]
#: seconds a request may wait in these tests (a hanging fake worker must end the wait)
REQUEST_TIMEOUT = 30.0
HANG_TIMEOUT = 1.0


def start(argv: list[str], timeout: float = REQUEST_TIMEOUT) -> tuple[Connection, subprocess.Popen]:
    """Start ``argv`` as a worker on a fresh pair of pipes; the trusted connection to it."""
    worker_reads, trusted_writes = os.pipe()
    trusted_reads, worker_writes = os.pipe()
    env = dict(os.environ, MINITORCH_REMOTE_FDS=f"{worker_reads},{worker_writes}", PYTHONPATH=str(ROOT))
    process = subprocess.Popen(argv, env=env, pass_fds=(worker_reads, worker_writes), cwd=ROOT)
    os.close(worker_reads)
    os.close(worker_writes)
    return Connection(trusted_reads, trusted_writes, timeout), process


def stop(conn: Connection, process: subprocess.Popen) -> None:
    conn.close()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def worker() -> Iterator[Connection]:
    conn, process = start([sys.executable, "-m", "minitorch.course.remote.worker"])
    yield conn
    stop(conn, process)


def remote_module(conn: Connection, name: str):
    reply = conn.request_raw({"op": "import", "name": name})
    return conn.module(reply["value"]["ref"], name)


# ---------------------------------------------------------------------- values


VALUES = [
    None, True, False, 0, -7, 2**70, 1.5, -0.0, math.inf, -math.inf, "text ünïcode", [], (), {},
    [1, [2.5, (3, "x")]], {"a": 1, 2: [None]}, (1.0, {"k": (True,)}), b"\x00\xffbytes", slice(1, None, 2), Ellipsis,
    OrderedDict([("b", 1), ("a", 2)]), {1, "x"}, frozenset({2.5}),
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_plain_values_round_trip_through_the_worker(worker: Connection, value: object) -> None:
    operators = remote_module(worker, "minitorch.operators")
    back = operators.identity(value)
    assert back == value and type(back) is type(value)
    if isinstance(value, float):
        assert math.copysign(1.0, back) == math.copysign(1.0, value)  # -0.0 stays -0.0


def test_nan_and_arrays_round_trip(worker: Connection) -> None:
    operators = remote_module(worker, "minitorch.operators")
    assert math.isnan(operators.identity(math.nan))
    for array in (np.arange(6, dtype=np.float64).reshape(2, 3), np.array([True, False]), np.zeros((0, 4), np.int32)):
        back = operators.identity(array)
        assert back.dtype == array.dtype and back.shape == array.shape and np.array_equal(back, array)
    for dtype in (np.dtype("float32"), np.dtype(bool), np.dtype("<i8")):
        assert operators.identity(dtype) == dtype
    assert operators.identity(np.float16) is np.float16
    scalar = operators.identity(np.int64(5))
    assert type(scalar) is np.int64 and scalar == 5


def test_arrays_the_worker_fills_are_copied_back(worker: Connection) -> None:
    tensor_data = remote_module(worker, "minitorch.tensor_data")
    out = np.zeros(3, dtype=np.int32)
    tensor_data.to_index(23, np.array([2, 3, 4], dtype=np.int32), out)
    assert out.tolist() == [1, 2, 3]  # 23 = 1*12 + 2*4 + 3


def test_one_worker_array_stays_one_array(worker: Connection) -> None:
    tensor_data = remote_module(worker, "minitorch.tensor_data")
    data = tensor_data.TensorData(np.arange(6.0), (2, 3))
    storage = data.storage
    assert data.permute(1, 0).storage is storage and np.array_equal(storage, np.arange(6.0))
    data.storage[...] = 0.0  # a fresh copy is changed, not the worker's array
    assert np.array_equal(data.storage, np.arange(6.0)) and storage is data.storage


# ---------------------------------------------------------------------- proxies and callbacks


def test_proxies_compute_like_the_objects_they_stand_for(worker: Connection) -> None:
    scalar = remote_module(worker, "minitorch.scalar")
    x, y = scalar.Scalar(2.0), scalar.Scalar(3.0)
    z = x * y + 1.0 - x / y
    assert isinstance(z, RemoteObject) and z.data == pytest.approx(2 * 3 + 1 - 2 / 3)
    assert (3.0 - x).data == 1.0 and (-x).data == -2.0
    assert repr(x) == "Scalar(2.0000)"
    z.backward()
    assert x.derivative == pytest.approx(3 - 1 / 3) and y.derivative == pytest.approx(2 + 2 / 9)
    assert isinstance(scalar.Scalar, RemoteClassMeta) and isinstance(z, scalar.Scalar) and not isinstance(2.0, scalar.Scalar)
    assert type(z) is scalar.Scalar and type(z).__name__ == "Scalar"  # one local class per worker class
    first, second = (x * y).parents
    assert first is x and second is y  # one proxy per worker object


def test_modules_reached_as_attributes_are_packages(worker: Connection) -> None:
    nn = remote_module(worker, "minitorch").nn
    assert nn.__path__ == [] and nn.functional.relu is not None


def test_remote_exceptions_come_back_as_builtins(worker: Connection) -> None:
    operators = remote_module(worker, "minitorch.operators")
    with pytest.raises(TypeError):
        operators.mul(1.0)
    with pytest.raises(AttributeError):
        operators.no_such_function
    with pytest.raises(ImportError):
        worker.request({"op": "import", "name": "os"})


def test_lambdas_and_iterators_run_on_the_trusted_side(worker: Connection) -> None:
    operators = remote_module(worker, "minitorch.operators")
    seen = []

    def double(v: float) -> float:
        seen.append(v)
        return 2 * v

    assert operators.map_each(double)(iter([1.0, 2.0])) == [2.0, 4.0]
    assert seen == [1.0, 2.0]
    assert operators.reduce(lambda a, b: a - b, 10.0)([1.0, 2.0]) == 7.0


def test_warnings_key_errors_and_functions_keep_their_form(worker: Connection) -> None:
    """What tests look at besides values: a warning the graded code issued (``pytest.warns``),
    a KeyError's exact message, and a test's function seen as a function (``LambdaLR``)."""
    minitorch_remote = remote_module(worker, "minitorch")
    init = remote_module(worker, "minitorch.nn.init")
    with pytest.warns(UserWarning, match="zero-element tensors is a no-op"):
        init.kaiming_uniform_(minitorch_remote.empty(0, 3))
    module = remote_module(worker, "minitorch.nn").Module()
    with pytest.raises(KeyError) as raised:
        module.register_buffer("a.b", None)
    assert str(raised.value) == """'buffer name can\\'t contain "."'"""
    optim = remote_module(worker, "minitorch.optim")
    weight = minitorch_remote.zeros(2, requires_grad=True)
    scheduler = optim.lr_scheduler.LambdaLR(optim.SGD([weight], lr=1.0), lambda epoch: 0.5 ** epoch)
    assert scheduler.state_dict()["lr_lambdas"] == [None]  # a function, not an object with a __dict__
    scheduler.optimizer.step()
    scheduler.step()
    assert scheduler.get_last_lr() == [0.5]


def test_types_copies_and_subclass_checks_hold_as_in_process(worker: Connection) -> None:
    """``type(x) is minitorch.Tensor``, ``issubclass`` between proxied classes, and copies made
    by the worker (a proxy pickled here holds the worker's pickle, which only the worker reads)."""
    package = remote_module(worker, "minitorch")
    nn = remote_module(worker, "minitorch.nn")
    plain = package.zeros(2)
    assert type(plain) is package.Tensor and type(plain).__name__ == "Tensor"
    parameter = nn.Parameter(package.ones(2))
    assert type(parameter) is nn.Parameter and isinstance(parameter, package.Tensor)
    assert issubclass(nn.Parameter, package.Tensor) and not issubclass(package.Tensor, nn.Parameter)
    layer = nn.Linear(2, 2)
    twin = copy.deepcopy(layer)
    assert type(twin) is nn.Linear and twin is not layer
    with package.no_grad():
        twin.weight.fill_(3.0)
    assert layer.weight.sum().item() != twin.weight.sum().item() == 12.0
    assert copy.copy(plain) is not plain
    copied = pickle.loads(pickle.dumps(plain))
    assert type(copied) is package.Tensor and copied is not plain and copied.tolist() == [0.0, 0.0]
    assert pickle.loads(pickle.dumps(package.float32)) is package.float32  # the worker's own __reduce__ ran
    operators = remote_module(worker, "minitorch.operators")
    assert operators.identity(float) is float and operators.identity(tuple) is tuple  # builtin types as themselves
    assert package.dtypes.as_dtype(float) is package.float32


class OnlyUnpickleInWorker(pickle.Unpickler):
    """An unpickler that resolves no name but :func:`unpickle_in_worker`."""

    def find_class(self, module: str, name: str) -> object:
        assert name == "unpickle_in_worker", f"the pickle of a proxy names {module}.{name}"
        return unpickle_in_worker


def test_a_pickled_proxy_holds_the_workers_bytes_unread(worker: Connection) -> None:
    """Loading the trusted side's pickle of a proxy resolves one name, ``unpickle_in_worker``,
    which hands the worker's bytes back to the worker: nothing the graded code pickled is ever
    unpickled here."""
    package = remote_module(worker, "minitorch")
    original = package.tensor([1.0, 2.0])
    copied = OnlyUnpickleInWorker(io.BytesIO(pickle.dumps(original))).load()
    assert type(copied) is package.Tensor and copied.tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="is gone"):
        unpickle_in_worker("no-such-connection", b"")


def test_state_dicts_keep_their_metadata_and_hooks_may_rewrite_them(worker: Connection) -> None:
    nn = remote_module(worker, "minitorch.nn")
    layer = nn.Linear(2, 1)
    state = layer.state_dict()
    assert dict(state._metadata[""]) == {"version": 1}
    renamed = {"w": state["weight"], "b": state["bias"]}

    def rename(module, state_dict, prefix, *rest):  # the worker's dict must see the new keys
        for short, full in (("w", "weight"), ("b", "bias")):
            state_dict[prefix + full] = state_dict.pop(prefix + short)

    layer.register_load_state_dict_pre_hook(rename)
    assert layer.load_state_dict(renamed).missing_keys == []


class Halve:
    """A test's own object handed to the worker: it may call ``apply`` but not read ``_secret``."""

    _secret = "trusted only"

    def apply(self, v: float) -> float:
        return v / 2


def test_subclass_of_a_proxied_class_calls_back(worker: Connection) -> None:
    functions = remote_module(worker, "minitorch.scalar_functions")
    scalar = remote_module(worker, "minitorch.scalar")

    class Square(functions.ScalarFunction):
        @staticmethod
        def forward(ctx, x: float) -> float:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, d: float) -> float:
            (x,) = ctx.saved_values
            return 2 * x * d

    x = scalar.Scalar(3.0)
    y = Square.apply(x)
    assert y.data == 9.0 and y.history.last_fn is Square
    y.backward(2.0)
    assert x.derivative == 12.0


def test_a_test_module_subclass_lives_in_the_worker_and_super_reaches_minitorch(worker: Connection) -> None:
    minitorch = remote_module(worker, "minitorch")
    nn = minitorch.nn

    class Affine(nn.Module):
        def __init__(self, scale: float) -> None:
            super().__init__()
            self.scale = scale
            self.bias = nn.Parameter(minitorch.tensor([1.0, 2.0]))

        def forward(self, x):
            return x * self.scale + self.bias

    model = Affine(3.0)
    assert isinstance(model, Affine) and isinstance(model, nn.Module)
    assert [name for name, _ in model.named_parameters()] == ["bias"]  # Module.__init__ ran in the worker
    with minitorch.backends.use("simple"):  # no kernels to compile
        out = model(minitorch.tensor([1.0, -1.0]))
    assert out.tolist() == [4.0, -1.0]
    assert model.scale == 3.0
    assert model.__dict__["scale"] == 3.0 and "_parameters" in model.__dict__  # the worker object's, not the proxy's


def test_worker_reads_only_public_attributes_of_test_objects(worker: Connection) -> None:
    halve = Halve()
    number = worker.share(halve)
    method = worker.serve({"op": "getattr", "cb": number, "name": "apply"})["value"]
    assert worker.serve({"op": "call", "cb": method["cb"], "args": worker.encode([4.0])})["value"] == 2.0
    refused = worker.serve({"op": "getattr", "cb": number, "name": "_secret"})
    assert refused["error"]["type"] == "AttributeError"
    shared_function = worker.share(len)
    assert worker.serve({"op": "getattr", "cb": shared_function, "name": "name"})["error"]["type"] == "AttributeError"
    with pytest.raises(TypeError):
        worker.encode(threading.Lock())  # not a test's object, not callable, not an iterator: never shared
    opaque = worker.encode(object())  # a bare object() has nothing to read: an opaque stand-in
    assert opaque["cls"] == ["builtins", "object"]
    assert worker.serve({"op": "getattr", "cb": opaque["cb"], "name": "anything"})["error"]["type"] == "AttributeError"


# ---------------------------------------------------------------------- no pickle, no code from messages


class Planted:
    """Unpickling this would create ``path``: the proof that a message ran code."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_crafted_values_never_run_code(tmp_path: Path) -> None:
    planted = tmp_path / "planted"
    buffer = io.BytesIO()
    np.save(buffer, np.array([Planted(str(planted))], dtype=object), allow_pickle=True)
    pickled_npy = base64.b64encode(buffer.getvalue()).decode()
    never = lambda kind, data: pytest.fail("no handle in these messages")  # noqa: E731
    for crafted in (
        {"npy": pickled_npy}, {"__reduce__": ["os.system", ["true"]]}, {"cb": 1}, {"list": "not a list"},
        {"dict": [[1]]}, {"npy": "***"}, [1, 2], {"slice": [1]}, {"dtype": "O"}, {"dtype": "i4,f8"}, {"nptype": 3},
        {"set": [{"list": []}]},
    ):
        with pytest.raises(ProtocolError):
            decode(crafted, never if "cb" not in crafted else _unknown_handle)
    assert not planted.exists()


def _unknown_handle(kind: str, data: dict) -> object:
    raise ProtocolError("unknown handle")


def test_values_that_cannot_travel_are_refused() -> None:
    with pytest.raises(TypeError):
        encode(object(), lambda value: (_ for _ in ()).throw(TypeError("no handle")))
    assert encode([1, (2.0,)], lambda v: {"ref": 0}) == {"list": [1, {"tuple": [2.0]}]}


# ---------------------------------------------------------------------- workers that misbehave


FAKE_WORKERS = {
    "garbage": "os.write(w, b'this is not a framed message at all')",
    "not-json": "os.write(w, struct.pack('>I', 5) + b'{{{{{')",
    "wrong-reply": "read_message(r); write_message(w, {'re': 99, 'value': 1})",
    "unknown-handle": "read_message(r); write_message(w, {'re': 1, 'value': {'cb': 12345}})",
    "pickled-array": "read_message(r); write_message(w, {'re': 1, 'value': {'npy': PICKLED}})",
    "huge-length": "os.write(w, struct.pack('>I', 2**31))",
    "unshared-folder": "read_message(r); write_message(w, {'re': 1, 'value': {'path': 7, 'rel': 'x'}})",
    "folder-snapshot-unasked": "read_message(r); write_message(w, {'re': 1, 'value': 1, 'folders': {'3': {}}})",
    "reply-on-an-idle-lane": "read_message(r); write_message(w, {'re': 1, 'lane': 5, 'value': 1})",
    "lane-not-a-number": "read_message(r); write_message(w, {'re': 1, 'lane': 'x', 'value': 1})",
    "crash": "os._exit(3)",
    "hang": "time.sleep(60)",
}


@pytest.mark.parametrize("kind", sorted(FAKE_WORKERS))
def test_a_misbehaving_worker_is_a_clear_error(kind: str, tmp_path: Path) -> None:
    planted = tmp_path / "planted"
    buffer = io.BytesIO()
    np.save(buffer, np.array([Planted(str(planted))], dtype=object), allow_pickle=True)
    script = textwrap.dedent(f"""
        import os, struct, time
        from minitorch.course.remote.protocol import read_message, write_message
        PICKLED = {base64.b64encode(buffer.getvalue()).decode()!r}
        r, w = (int(p) for p in os.environ["MINITORCH_REMOTE_FDS"].split(","))
        {FAKE_WORKERS[kind]}
        time.sleep(30)
    """)
    conn, process = start([sys.executable, "-c", script], timeout=HANG_TIMEOUT if kind == "hang" else REQUEST_TIMEOUT)
    try:
        started = time.monotonic()
        with pytest.raises(ChannelClosed) as failure:
            conn.request({"op": "import", "name": "minitorch"})
        assert "stopped answering" in str(failure.value)
        assert time.monotonic() - started < REQUEST_TIMEOUT
        with pytest.raises(ChannelClosed):  # broken for good: later requests fail at once
            conn.request({"op": "import", "name": "minitorch"})
        assert not planted.exists()
    finally:
        process.kill()
        stop(conn, process)


def test_unknown_exception_types_become_remote_errors(worker: Connection) -> None:
    error = worker.error({"type": "SomethingOdd", "message": "boom", "bases": ["ValueError", "Exception"]})
    assert isinstance(error, RemoteError) and isinstance(error, ValueError) and str(error) == "boom"
    assert type(worker.error({"type": "KeyError", "message": "k"})) is KeyError
    assert isinstance(worker.error({"type": "SystemExit", "message": ""}), RemoteError)  # never a real exit
    assert isinstance(worker.error("garbage"), RemoteError)


# ---------------------------------------------------------------------- only the kernels proxied
# Step 3's tasks are graded with only the kernel modules taken from the submission: the
# course's own backends (here, this checkout's) call the worker's kernels with arrays.

KERNEL_MODULES = frozenset({"minitorch.backends.cpu_kernels", "minitorch.backends.cuda_kernels"})


@pytest.fixture(scope="module")
def kernel_worker() -> Iterator[Connection]:
    conn, process = start([sys.executable, "-m", "minitorch.course.remote.worker"])
    conn.boundary = KERNEL_MODULES
    yield conn
    stop(conn, process)


def test_a_boundary_proxies_only_the_modules_it_names(kernel_worker: Connection) -> None:
    assert kernel_worker.proxies_module("minitorch.backends.cpu_kernels")
    assert kernel_worker.proxies_module("minitorch.backends.cuda_kernels.inner")
    assert not kernel_worker.proxies_module("minitorch.backends.cpu")
    assert not kernel_worker.proxies_module("minitorch")
    assert not kernel_worker.proxies_module("numpy")
    everything = Connection(*os.pipe())
    try:
        assert everything.proxies_module("minitorch.backends.cpu") and not everything.proxies_module("numpy")
    finally:
        everything.close()


def test_the_course_backend_runs_the_workers_kernels_in_place(kernel_worker: Connection, monkeypatch) -> None:
    """An in-place add passes one storage as input and output: the kernel's writes come back,
    and the unchanged copy of the input does not overwrite them."""
    from minitorch.backends import cpu
    from minitorch.tensor_data import TensorData

    remote = remote_module(kernel_worker, "minitorch.backends.cpu_kernels")
    monkeypatch.setattr(cpu, "kernels", remote)
    backend = cpu.CpuBackend()
    values = np.arange(12.0).reshape(3, 4)
    a = TensorData(values.T.copy().reshape(-1), (3, 4), (1, 3))  # a permuted view
    a.numpy_view()[...] = values
    bias = TensorData(np.array([1.0, 2.0, 3.0, 4.0]), (3, 4), (0, 1))  # one row, read three times
    backend.zip("add", a, bias, a)
    np.testing.assert_array_equal(a.numpy_view(), values + [1.0, 2.0, 3.0, 4.0])
    out = TensorData(np.zeros(3), (3, 1), (1, 1))
    backend.reduce("sum", a, 1, out)
    np.testing.assert_array_equal(out.numpy_view().ravel(), (values + [1.0, 2.0, 3.0, 4.0]).sum(axis=1))


def test_device_arrays_and_numba_types_reach_the_workers_cuda_kernels(kernel_worker: Connection, monkeypatch) -> None:
    """The simulator's device arrays travel as copies and come back changed; a kernel
    factory gets its Numba accumulator type (``numba.float64``) as itself."""
    pytest.importorskip("numba.cuda")
    from numba import cuda

    if not cuda.is_available():
        pytest.skip("no CUDA GPU, and NUMBA_ENABLE_CUDASIM is off")
    from minitorch.backends import cuda as cuda_backend
    from minitorch.tensor_data import TensorData

    monkeypatch.setattr(cuda_backend, "kernels", remote_module(kernel_worker, "minitorch.backends.cuda_kernels"))
    backend = cuda_backend.CudaBackend()
    x = np.array([[1.0, -2.0, 3.5], [0.25, 4.0, -8.0]])
    a = TensorData(backend.upload(x), x.shape)
    out = TensorData(backend.empty(6, a.dtype), x.shape)
    backend.map("neg", a, out)
    np.testing.assert_array_equal(backend.download(out), -x)
    summed = TensorData(backend.empty(2, a.dtype), (2, 1))
    backend.reduce("sum", a, 1, summed)
    np.testing.assert_array_equal(backend.download(summed).ravel(), x.sum(axis=1))
    product = TensorData(backend.empty(4, a.dtype), (2, 2))
    backend.matmul(a, TensorData(backend.upload(x.T.copy()), (3, 2)), product)
    np.testing.assert_allclose(backend.download(product), x @ x.T)


def test_course_code_is_never_handed_to_the_worker_behind_a_boundary(kernel_worker: Connection) -> None:
    """Behind a boundary, the rest of minitorch is the course's own solution, on the trusted
    side: the graded code must not be able to call it back (nor to receive its objects)."""
    from minitorch import operators
    from minitorch.tensor_data import TensorData

    kernels = remote_module(kernel_worker, "minitorch.backends.cpu_kernels")
    for course_object in (operators.mul, TensorData(np.zeros(2), (2,)), TensorData):
        with pytest.raises(TypeError, match="course's own|cannot be passed"):
            kernels.threaded(course_object)

    def test_own(v: int) -> bool:  # a test's own function is still a callback
        return v > 0

    assert kernel_worker.encode(test_own)["cb"] > 0


def test_tests_marked_in_process_are_left_out_of_remote_runs(tmp_path: Path) -> None:
    """A test that needs the graded code in its own process (shared memory) would fail
    through the proxy on any submission: the remote plugin deselects it, and only it."""
    (tmp_path / "test_marked.py").write_text(textwrap.dedent("""
        import pytest
        import minitorch

        def test_through_the_proxy():
            assert type(minitorch).__name__ == "RemoteModule"

        @pytest.mark.in_process
        def test_needs_shared_memory():
            raise AssertionError("must not run through the proxy")
    """))
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    in_process: needs its own process\n")
    grading = tmp_path / "grading"  # the remote package as the grader installs it: outside minitorch
    shutil.copytree(ROOT / "minitorch" / "course" / "remote", grading / "minitorch_remote",
                    ignore=shutil.ignore_patterns("__pycache__"))
    worker_reads, trusted_writes = os.pipe()
    trusted_reads, worker_writes = os.pipe()
    worker_env = dict(os.environ, MINITORCH_REMOTE_FDS=f"{worker_reads},{worker_writes}", PYTHONPATH=str(ROOT))
    process = subprocess.Popen([sys.executable, "-m", "minitorch.course.remote.worker"], env=worker_env,
                               pass_fds=(worker_reads, worker_writes), cwd=ROOT)
    os.close(worker_reads)
    os.close(worker_writes)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "minitorch_remote.plugin", "-p", "no:cacheprovider", "-q",
             "-rA", "test_marked.py"],
            env=dict(os.environ, MINITORCH_REMOTE_FDS=f"{trusted_reads},{trusted_writes}", PYTHONPATH=str(grading)),
            pass_fds=(trusted_reads, trusted_writes), cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )
    finally:
        os.close(trusted_reads)
        os.close(trusted_writes)
        process.wait(timeout=30)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 1 deselected" in done.stdout
    assert "PASSED test_marked.py::test_through_the_proxy" in done.stdout


# ---------------------------------------------------------------------- files, buffers, patches


@pytest.fixture
def sharing_worker(tmp_path: Path) -> Iterator[Connection]:
    """A worker with which this test's temporary folder may be shared."""
    conn, process = start([sys.executable, "-m", "minitorch.course.remote.worker"])
    conn.shared_roots.append(tmp_path.parent)
    yield conn
    stop(conn, process)


def test_a_test_folder_is_mirrored_both_ways(sharing_worker: Connection, tmp_path: Path) -> None:
    """A checkpoint saved by the worker lands in the test's folder; a file the test changes
    reaches the worker's copy before the next request; a file the worker removes goes here too."""
    package = remote_module(sharing_worker, "minitorch")
    path = tmp_path / "ckpt.mt"
    package.save({"epoch": 3, "w": package.tensor([1.0, 2.0])}, path)
    assert path.is_file() and path.read_bytes()[:2] == b"PK"  # a zip archive, written here
    assert package.load(path)["epoch"] == 3
    (tmp_path / "sub").mkdir()
    path.replace(tmp_path / "sub" / "moved.mt")
    assert package.load(tmp_path / "sub" / "moved.mt")["w"].tolist() == [1.0, 2.0]
    with pytest.raises(FileNotFoundError):
        package.load(path)
    os_module = remote_module(sharing_worker, "minitorch.serialization.atomic").os
    os_module.remove(tmp_path / "sub" / "moved.mt")
    assert not (tmp_path / "sub" / "moved.mt").exists() and (tmp_path / "sub").is_dir()


def test_paths_outside_the_test_folder_never_reach_the_worker(sharing_worker: Connection, tmp_path: Path) -> None:
    package = remote_module(sharing_worker, "minitorch")
    for outside in (ROOT / "tests" / "conftest.py", Path("/etc/passwd"), tmp_path.parent):
        with pytest.raises(TypeError, match="only paths inside the test's temporary folder"):
            package.load(outside)
    escape = tmp_path.parent / f"{tmp_path.name}-link"  # a link beside the test folders, to the tests
    escape.symlink_to(ROOT / "tests")
    try:
        with pytest.raises(TypeError, match="only paths inside"):
            package.load(escape / "conftest.py")
    finally:
        escape.unlink()


def test_a_worker_snapshot_cannot_write_outside_its_folder(tmp_path: Path) -> None:
    """What the worker sends for a shared folder is written without following links and only
    inside that folder: paths with ``..``, absolute paths and links of this side are refused
    or left alone."""
    from minitorch.course.remote.folders import apply

    outside = tmp_path / "outside.txt"
    root = tmp_path / "shared"
    root.mkdir()
    (root / "link.txt").symlink_to(outside)
    data = base64.b64encode(b"planted").decode()
    for name in ("../outside.txt", "/tmp/x", "a/../../outside.txt", ""):
        with pytest.raises(ProtocolError):
            apply(root, {name: {"data": data, "mode": 0o644}})
    apply(root, {"link.txt": {"data": data, "mode": 0o644}, "kept.txt": {"data": data, "mode": 0o600}})
    assert not outside.exists() and (root / "link.txt").is_symlink()
    assert (root / "kept.txt").read_bytes() == b"planted" and (root / "kept.txt").stat().st_mode & 0o777 == 0o600


def test_buffers_come_back_with_what_the_graded_code_wrote(worker: Connection) -> None:
    package = remote_module(worker, "minitorch")
    buffer = io.BytesIO()
    package.save([1, "two", 3.0], buffer)
    assert buffer.getvalue()[:2] == b"PK" and buffer.tell() == len(buffer.getvalue())
    buffer.seek(0)
    assert package.load(buffer) == [1, "two", 3.0]


def test_monkeypatching_a_module_reaches_the_worker_and_is_undone(worker: Connection, monkeypatch) -> None:
    operators = remote_module(worker, "minitorch.operators")
    scalar = remote_module(worker, "minitorch.scalar")
    monkeypatch.setattr(operators, "mul", lambda x, y: 42.0)
    assert (scalar.Scalar(2.0) * scalar.Scalar(3.0)).data == 42.0  # the graded code calls the patch
    monkeypatch.undo()  # pytest deletes what the module's __dict__ did not hold: the original comes back
    assert (scalar.Scalar(2.0) * scalar.Scalar(3.0)).data == 6.0


def test_an_interrupt_raised_by_a_test_runs_the_graded_codes_cleanup(worker: Connection) -> None:
    operators = remote_module(worker, "minitorch.operators")

    def interrupt(value: float) -> float:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        operators.map_each(interrupt)([1.0])
    assert operators.add(1.0, 2.0) == 3.0  # the channel is still in step


def test_printed_output_and_string_paths_read_as_in_process(sharing_worker: Connection, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture) -> None:
    """A string naming a file in a shared folder travels as that file; the worker's copy of the
    folder is named as the test's folder in what comes back: paths, errors, printed output."""
    package = remote_module(sharing_worker, "minitorch")
    target = str(tmp_path / "w.mt")
    package.save({"k": 1}, target)
    assert (tmp_path / "w.mt").is_file() and package.load(target) == {"k": 1}
    os_path = remote_module(sharing_worker, "minitorch.serialization.atomic").os.path
    assert os_path.join(tmp_path, "w.mt") == target  # the worker's path comes back as the test's
    with pytest.raises(FileNotFoundError, match=re.escape(str(tmp_path / "missing.mt"))):
        package.load(tmp_path / "missing.mt")  # the error names the test's path, not the copy's
    number = sharing_worker.folder_numbers[tmp_path]
    capsys.readouterr()
    sharing_worker.replay_output({"stdout": f"saved {shared_folder_token(number)}/w.mt\n", "stderr": "50%|#"})
    assert capsys.readouterr() == (f"saved {tmp_path}/w.mt\n", "50%|#")


def test_relative_paths_travel_as_values_and_exits_only_inside_a_test(worker: Connection) -> None:
    operators = remote_module(worker, "minitorch.operators")
    assert operators.identity(Path("out/demo.png")) == Path("out/demo.png")
    assert type(operators.identity(PurePosixPath("a/b"))) is PurePosixPath
    cli = remote_module(worker, "minitorch.cli")
    worker.in_test = False
    with pytest.raises(RemoteError):  # outside a test's body it could end the grader's run
        cli.main(["no-such-command"])
    worker.in_test = True
    try:
        with pytest.raises(SystemExit) as exited:
            cli.main(["no-such-command"])
        assert exited.value.code == 2
    finally:
        worker.in_test = False


def test_a_callback_changes_lists_it_reads_from_the_graded_codes_objects(worker: Connection) -> None:
    """A load_state_dict post-hook clears ``incompatible.missing_keys``: the list it read from
    a worker object is a copy here, and what it changed there is changed in the worker's list."""
    package = remote_module(worker, "minitorch")
    nn = remote_module(worker, "minitorch.nn")
    layer = nn.Linear(2, 2)
    seen = []

    def forgive(module: object, incompatible: object) -> None:
        seen.append(list(incompatible.missing_keys))
        incompatible.missing_keys.clear()

    layer.register_load_state_dict_post_hook(forgive)
    state = layer.state_dict()
    del state["bias"]
    result = layer.load_state_dict(state)  # strict, yet nothing missing once the hook cleared it
    assert seen == [["bias"]] and list(result.missing_keys) == []
    assert package.is_tensor(layer.weight)


Record = namedtuple("Record", ["x", "label"])


def test_ranges_records_and_bare_objects_travel_as_the_tests_own(worker: Connection) -> None:
    """A ``range`` and a test's namedtuple travel by value and come back as themselves; a bare
    ``object()`` reaches the graded code as an opaque stand-in (its type errors name it)."""
    operators = remote_module(worker, "minitorch.operators")
    assert operators.identity(range(2, 9, 3)) == range(2, 9, 3)
    back = operators.identity(Record(x=1.5, label=[1, 2]))
    assert type(back) is Record and back == (1.5, [1, 2]) and back.label == [1, 2]
    data = remote_module(worker, "minitorch.utils.data")
    batch = data.default_collate([Record(x=1.0, label=0), Record(x=2.0, label=1)])
    assert type(batch) is Record and batch.x.tolist() == [1.0, 2.0] and batch.label.tolist() == [0, 1]
    with pytest.raises(TypeError, match="batch must contain tensors"):
        data.default_collate([object(), object()])
    assert type(operators.identity(remote_module(worker, "minitorch").return_types)).__name__ == "RemoteModule"


# ---------------------------------------------------------------------- threads (lanes)


def test_a_tests_threads_call_the_graded_code_at_once(worker: Connection) -> None:
    """Two threads' callbacks wait for each other (as task 9.5's simulated ranks do): one
    exchange at a time on the channel would deadlock, lanes let both run; what a thread sets
    in the graded code's per-thread state stays with that thread."""
    minitorch = remote_module(worker, "minitorch")
    nn = minitorch.nn
    models = [nn.Sequential(nn.Linear(2, 2), nn.ReLU()) for _ in range(2)]
    meeting = threading.Barrier(2, timeout=20)
    seen: dict[int, list[str]] = {0: [], 1: []}
    grad_modes: dict[int, bool] = {}
    errors: list[BaseException] = []

    def visit(rank: int, module: object) -> None:
        seen[rank].append(type(module).__name__)
        meeting.wait()  # both threads are inside ``Module.apply`` of the worker here

    def run(rank: int) -> None:
        try:
            minitorch.set_grad_enabled(rank == 1)
            models[rank].apply(lambda module: visit(rank, module))
            grad_modes[rank] = minitorch.is_grad_enabled()
        except BaseException as error:  # handed to the test's thread below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(rank,)) for rank in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert seen == {0: ["Linear", "ReLU", "Sequential"], 1: ["Linear", "ReLU", "Sequential"]}
    assert grad_modes == {0: False, 1: True}
    assert minitorch.is_grad_enabled()  # the main thread's lane was not touched
    del threads
    minitorch.tensor([1.0])  # the next request tells the worker that the threads' lanes ended
    assert set(worker.endpoint.inboxes) == {0}


def test_a_drop_crossing_a_reply_with_the_same_handle_keeps_the_object() -> None:
    """A thread's request may drop handle n while another thread's reply carries n again: the
    worker forgets an object only once the drops count every time it sent the handle, and
    never gives a forgotten handle to another object."""
    from minitorch.course.remote.worker import Worker

    read_fd, write_fd = os.pipe()
    try:
        worker = Worker(read_fd, write_fd)
        kept = object()
        number = worker.handle(kept)["ref"]
        assert worker.handle(kept)["ref"] == number  # sent twice
        worker.drop([[number, 1]])  # the trusted side had received it once when it dropped it
        assert worker.objects[number] is kept
        worker.drop([[number, 1], "garbage", [number]])
        assert number not in worker.objects
        assert worker.handle(object())["ref"] != number
    finally:
        os.close(read_fd)
        os.close(write_fd)


def test_only_lane_threads_may_call_back_from_the_worker() -> None:
    """In the worker, a thread the graded code started has no lane: calling the test back from
    it is an error in the graded code, and the channel stays usable."""
    from minitorch.course.remote.endpoint import Endpoint

    read_fd, write_fd = os.pipe()
    try:
        endpoint = Endpoint(read_fd, write_fd, lambda message: {}, open_lanes=False, exclusive=True)
        with pytest.raises(RuntimeError, match="thread the test called"):
            endpoint.request({"op": "call"})
        assert endpoint.broken is None
    finally:
        os.close(read_fd)
        os.close(write_fd)


def test_a_test_subclass_method_keeps_its_signature_in_the_worker(worker: Connection) -> None:
    """FX tracing names its placeholders after ``forward``'s parameters: the worker's member
    that calls the test's method back carries the method's signature."""
    minitorch = remote_module(worker, "minitorch")
    fx = remote_module(worker, "minitorch.fx")
    nn = minitorch.nn

    class Scale(nn.Module):
        def forward(self, inputs, factor=2.0):
            return inputs * factor

    traced = fx.symbolic_trace(Scale())
    placeholders = [(node.target, tuple(node.args)) for node in traced.graph.nodes if node.op == "placeholder"]
    assert placeholders == [("inputs", ()), ("factor", (2.0,))]


class Warmup:
    """A callable object a test hands to a scheduler (``LambdaLR`` saves its ``__dict__``)."""

    def __init__(self, steps: int) -> None:
        self.steps = steps
        self._calls = 0

    def __call__(self, epoch: int) -> float:
        return min(1.0, (epoch + 1) / self.steps)


def test_the_graded_code_reads_and_sets_a_test_objects_public_attributes(worker: Connection) -> None:
    """``LambdaLR.state_dict`` reads a callable object's ``__dict__`` and ``load_state_dict``
    updates it: in the worker that ``__dict__`` holds the test object's public attributes,
    and setting one sets it on the test's object; private ones are neither shown nor set."""
    minitorch = remote_module(worker, "minitorch")
    parameter = minitorch.nn.Parameter(minitorch.tensor([1.0]))
    optimizer = minitorch.optim.SGD([parameter], lr=0.1)
    warmup = Warmup(4)
    scheduler = minitorch.optim.lr_scheduler.LambdaLR(optimizer, warmup)
    state = scheduler.state_dict()
    assert state["lr_lambdas"] == [{"steps": 4}]
    state["lr_lambdas"][0] = {"steps": 8}
    scheduler.load_state_dict(state)
    assert warmup.steps == 8
    state["lr_lambdas"][0] = {"_calls": 99}
    with pytest.raises(AttributeError, match="cannot be set from the graded code"):
        scheduler.load_state_dict(state)
    assert warmup._calls == 0
    assert worker.endpoint.broken is None
