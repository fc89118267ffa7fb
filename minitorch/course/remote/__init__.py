"""Grading through a remote-object protocol: the tests run in a trusted process where
``minitorch`` is a proxy of the submission, which lives in a sandboxed worker.

:mod:`.protocol` is the wire format, :mod:`.worker` the sandboxed side, :mod:`.client`
and :mod:`.plugin` the trusted side. The package imports nothing from minitorch, so the
grader copies it next to a workspace as a top-level package of its own.
"""
