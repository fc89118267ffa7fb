"""A process forked after threaded kernels ran computes on one thread instead of dying.

With Numba's GNU OpenMP layer, a forked child of a process that has run a parallel region ends
at its own first one ("Terminating: fork() called from a process already using GNU OpenMP").
Each scenario runs in a fresh interpreter (a child process of the test, with a deadline): the
main process runs large ops first, then forks; the forked child's results are compared with the
main process's own for the same ops (the oracle: the same kernels, threaded, in the parent).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

#: seconds a scenario may take (its child compiles the serial twins it needs, or loads them)
DEADLINE = 300

FORKED_OPS = textwrap.dedent("""
    import multiprocessing, pickle
    import numpy as np
    import minitorch as torch
    import minitorch.nn.functional as F
    from minitorch.backends import serial_twins

    def work():
        torch.manual_seed(0)
        x = torch.randn(600, 600)
        images = torch.randn(8, 3, 40, 40)
        weight = torch.randn(4, 3, 3, 3)
        target = torch.zeros(600, 600).index_add_(0, torch.arange(600) % 7, x)
        param = torch.nn.Parameter(torch.randn(300, 300))
        optimizer = torch.optim.SGD([param], lr=0.1)
        param.grad = torch.ones(300, 300)
        optimizer.step()
        # element-wise, reduction, matmul, index, convolution, pooling, fused kernels: each way a kernel is run
        results = [x + x, (x * 3).exp(), x.sum(), x @ x, target, F.conv2d(images, weight, padding=1),
                   F.max_pool2d(images, 2), param, torch.log_softmax(x, 1)]
        return [r.detach().numpy() for r in results]

    def child(connection):
        connection.send((serial_twins.serial_only(), pickle.dumps(work())))
        connection.close()

    if __name__ == "__main__":
        expected = work()  # threaded kernels in the main process
        assert serial_twins._STATE.threads_started
        context = multiprocessing.get_context("fork")
        here, there = context.Pipe()
        process = context.Process(target=child, args=(there,))
        process.start()
        serial, got = here.recv() if here.poll(280) else (None, None)
        process.join(10)
        assert process.exitcode == 0, process.exitcode
        assert serial is True
        for ours, theirs in zip(pickle.loads(got), expected):
            np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=1e-4)
        print("forked child agreed")
""")

DATALOADER_TRANSFORMS = textwrap.dedent("""
    import minitorch as torch
    from minitorch.utils.data import DataLoader, Dataset

    class Images(Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            return torch.full((3, 256, 256), float(i)) * 0.5  # a transform of 196608 elements: threaded

    if __name__ == "__main__":
        x = torch.randn(1000, 1000)
        (x + x).sum()  # the main process trains first
        total = sum(float(batch.sum()) for batch in DataLoader(Images(), batch_size=4, num_workers=2))
        assert total == 0.5 * sum(range(8)) * 3 * 256 * 256, total
        print("workers agreed")
""")


@pytest.mark.parametrize("script, printed", [(FORKED_OPS, "forked child agreed"),
                                             (DATALOADER_TRANSFORMS, "workers agreed")])
def test_a_process_forked_after_threaded_kernels_computes_serially(script: str, printed: str) -> None:
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=DEADLINE)
    assert done.returncode == 0, done.stderr[-3000:]
    assert printed in done.stdout
    assert "fork() called from a process already using" not in done.stderr


def test_a_process_that_never_ran_threads_keeps_them_in_its_forked_children() -> None:
    script = textwrap.dedent("""
        import multiprocessing
        import minitorch
        from minitorch.backends import serial_twins

        def child(queue):
            queue.put(serial_twins.serial_only())

        if __name__ == "__main__":
            minitorch.ones(3) + 1  # a small op: no threads
            context = multiprocessing.get_context("fork")
            queue = context.Queue()
            process = context.Process(target=child, args=(queue,))
            process.start()
            print("serial:", queue.get(timeout=60))
            process.join(10)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=DEADLINE)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "serial: False" in done.stdout
