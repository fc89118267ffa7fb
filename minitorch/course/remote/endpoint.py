"""One end of the channel: requests, their replies and the other end's nested requests, on lanes.

A test may call the graded code from several threads at once (task 9.5 runs each simulated
rank on a thread of its own, and a rank's callback blocks until its neighbour sends). One
exchange at a time on the pipe would deadlock there, so every message travels on a *lane*:

- on the trusted side, each thread that makes a request owns a lane (the main thread lane 0);
- in the worker, each lane is served by one thread of its own (lane 0 by the main thread),
  so what the graded code keeps per thread (grad mode, the backend in use) stays with the
  test's thread that set it;
- a request and everything nested in it (callbacks, and requests those make in turn) stay on
  the request's lane, so each lane is one stack of calls, as a single thread's is.

Whichever waiting thread finds no one reading the pipe reads it, keeps what is for its own
lane and leaves the rest in the other lanes' inboxes: a lone thread reads its replies
itself, with no hand-over between threads.

In the worker, the graded code runs on one lane at a time (``exclusive``): a lane holds the
lock while it serves and lets go of it only while it waits for the other end. Numba's
threading layer, the handle tables and the shared folders then never see two lanes at once.
"""

from __future__ import annotations

import collections
import threading
import time
import weakref
from typing import Any, Callable, Optional

from .protocol import ChannelClosed, ChannelTimeout, ProtocolError, read_message, write_message

#: the lane of the trusted side's main thread, served by the worker's main thread
MAIN_LANE = 0
#: what a lane thread of the worker finds in its inbox once the trusted thread it stood for ended
_STOP = {"stop": True}


class _LaneTicket:
    """Kept in a thread's local storage: when the thread ends it is collected, and the lane
    is reported ended (the worker then lets the lane's thread go)."""

    def __init__(self, endpoint: "Endpoint", lane: int) -> None:
        self.endpoint_ref, self.lane = weakref.ref(endpoint), lane

    def __del__(self) -> None:
        endpoint = self.endpoint_ref()
        if endpoint is not None:
            endpoint.ended.append(self.lane)


class Endpoint:
    """One end of the channel: sends requests and, while a thread waits for its reply, serves
    the other end's nested requests on that thread's lane with ``serve``.

    A request's reply must come back within ``timeout`` seconds (None: no limit). After a
    protocol error the endpoint is broken and every later request fails at once with the
    first error's message.

    ``open_lanes``: this end gives each requesting thread a lane (the trusted side); otherwise
    only the threads serving a lane may request (the worker, whose new lanes come from the
    other end and get a thread each). ``exclusive``: ``serve`` runs on one lane at a time.
    """

    def __init__(self, read_fd: int, write_fd: int, serve: Callable[[dict], dict], timeout: Optional[float] = None,
                 folders: Any = None, make_folder: Optional[Callable[[int], Any]] = None, open_lanes: bool = True,
                 exclusive: bool = False) -> None:
        self.read_fd, self.write_fd = read_fd, write_fd
        #: the shared folders (a :class:`.folders.FolderTable`): every message carries the
        #: snapshots of those its sender changed, which the receiver applies first;
        #: ``make_folder(n)`` gives this end's copy of a folder the other end shares (the worker's)
        self.folders = folders
        self.make_folder = make_folder
        self.serve = serve
        self.timeout = timeout
        self.open_lanes = open_lanes
        self.sequence = 0
        self.broken: Optional[str] = None
        #: lanes whose trusted threads ended since the last message (reported with the next one)
        self.ended: list[int] = []
        self.lane_count = MAIN_LANE
        self.local = threading.local()  # .lane: this thread's lane; .serving: it holds ``serving``
        self.write_lock = threading.Lock()
        #: guards the inboxes, the reader's turn, the waiting depths and ``broken``
        self.state = threading.Condition()
        self.inboxes: dict[int, collections.deque] = {}
        self.reading = False
        #: how many requests each lane's thread is waiting on (a message for a lane with none is refused)
        self.waiting: dict[int, int] = {}
        self.serving = threading.Lock() if exclusive else None

    # ------------------------------------------------------------------ lanes

    def _lane(self) -> int:
        lane = getattr(self.local, "lane", None)
        if lane is not None:
            return lane
        if not self.open_lanes:
            raise RuntimeError("the test's code can be called back only from the thread the test called "
                               "(not from a thread the graded code started)")
        if threading.current_thread() is threading.main_thread():
            lane = MAIN_LANE
        else:
            with self.state:
                self.lane_count += 1
                lane = self.lane_count
            self.local.ticket = _LaneTicket(self, lane)
        self.local.lane = lane
        return lane

    def _lane_of(self, incoming: dict) -> int:
        lane = incoming.get("lane", MAIN_LANE)
        if type(lane) is not int or lane < 0:
            raise ProtocolError("a message names no lane")
        return lane

    def _deliver(self, lane: int, incoming: dict) -> None:
        """Leave ``incoming`` for ``lane``'s thread (called with ``state`` held)."""
        if lane not in self.inboxes:
            if self.open_lanes or "re" in incoming:
                raise ProtocolError(f"a message came on lane {lane}, where nothing awaits one")
            self.inboxes[lane] = collections.deque()
            threading.Thread(target=self.serve_lane, args=(lane,), name=f"lane {lane}", daemon=True).start()
        elif self.open_lanes and not self.waiting.get(lane):
            raise ProtocolError(f"a message came on lane {lane}, where nothing awaits one")
        self.inboxes[lane].append(incoming)
        self.state.notify_all()

    def _end_lanes(self, lanes: Any) -> None:
        """The trusted threads of ``lanes`` ended: their serving threads here may go."""
        if self.open_lanes or not isinstance(lanes, list):
            return
        with self.state:
            for lane in lanes:
                if type(lane) is int and lane != MAIN_LANE and lane in self.inboxes:
                    self.inboxes[lane].append(_STOP)
            self.state.notify_all()

    # ------------------------------------------------------------------ serving one lane at a time

    def _pause(self) -> bool:
        """Let another lane serve while this thread waits (True: it held the lock)."""
        if self.serving is None or not getattr(self.local, "serving", False):
            return False
        self.local.serving = False
        self.serving.release()
        return True

    def _resume(self, held: bool) -> None:
        if held:
            self.serving.acquire()
            self.local.serving = True

    # ------------------------------------------------------------------ messages

    def _deadline(self) -> Optional[float]:
        return None if self.timeout is None else time.monotonic() + self.timeout

    def fail(self, reason: str) -> ChannelClosed:
        """Break the channel for good (the first reason stays); the error to raise."""
        with self.state:
            if self.broken is None:
                self.broken = f"the graded code's process stopped answering properly: {reason}"
            self.state.notify_all()
        return ChannelClosed(self.broken)

    def _send(self, message: dict) -> None:
        with self.write_lock:
            if self.ended:
                message["ended"], self.ended = self.ended, []
                with self.state:
                    for lane in message["ended"]:
                        self.inboxes.pop(lane, None)
                        self.waiting.pop(lane, None)
            write_message(self.write_fd, self._with_folders(message))

    def _next(self, lane: int) -> dict:
        """The next message for ``lane``: from its inbox, or read from the pipe when no other
        thread is reading (what this thread reads for other lanes goes to their inboxes)."""
        deadline = self._deadline()
        with self.state:
            while True:
                inbox = self.inboxes.get(lane)
                if inbox:
                    return inbox.popleft()
                if self.broken is not None:
                    raise ChannelClosed(self.broken)
                if not self.reading:
                    self.reading = True
                    break
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    raise ChannelTimeout("no answer in time")
                self.state.wait(left)
        try:
            while True:
                incoming = read_message(self.read_fd, deadline)
                deadline = self._deadline()
                self._end_lanes(incoming.get("ended"))
                target = self._lane_of(incoming)
                if target == lane:
                    return incoming
                with self.state:
                    self._deliver(target, incoming)
        finally:
            with self.state:
                self.reading = False
                self.state.notify_all()

    def request(self, message: dict) -> dict:
        """Send ``message`` as a request on this thread's lane and return its reply."""
        lane = self._lane()
        with self.state:
            if self.broken is not None:
                raise ChannelClosed(self.broken)
            self.sequence += 1
            number = self.sequence
            self.waiting[lane] = self.waiting.get(lane, 0) + 1
            self.inboxes.setdefault(lane, collections.deque())
        held = False
        try:
            self._send(dict(message, id=number, lane=lane))
            held = self._pause()
            while True:
                incoming = self._next(lane)
                if "re" not in incoming:
                    self._answer(lane, incoming)
                    continue
                if incoming["re"] != number:
                    raise ProtocolError(f"a reply to request {str(incoming['re'])[:20]} came while {number} was awaited")
                self._resume(held)
                held = False
                self._receive_folders(incoming)
                return incoming
        except ProtocolError as error:
            if isinstance(error, ChannelClosed) and self.broken is not None:
                raise
            raise self.fail(str(error)) from None
        finally:
            self._resume(held)
            with self.state:
                self.waiting[lane] -= 1

    def _answer(self, lane: int, incoming: dict) -> None:
        if not isinstance(incoming.get("id"), int) or not isinstance(incoming.get("op"), str):
            raise ProtocolError("a message is neither a request nor a reply")
        held = self.serving is not None and not getattr(self.local, "serving", False)
        self._resume(held)
        try:
            self._receive_folders(incoming)
            reply = self.serve(incoming)
            self._send(dict(reply, re=incoming["id"], lane=lane))
        finally:
            if held:
                self._pause()

    def _with_folders(self, message: dict) -> dict:
        """``message`` with the snapshots of the shared folders this end changed, and the
        numbers of those it stopped sharing."""
        if self.folders is None:
            return message
        if self.folders.forgotten:
            message["forget"], self.folders.forgotten = self.folders.forgotten, []
        changed = self.folders.outgoing()
        if changed:
            message["folders"] = changed
        return message

    def _receive_folders(self, incoming: dict) -> None:
        if self.folders is None:
            if "folders" in incoming or "forget" in incoming:
                raise ProtocolError("this end shares no folder")
            return
        try:
            self.folders.drop(incoming.get("forget"), delete=self.make_folder is not None)
            self.folders.incoming(incoming.get("folders"), self.make_folder)
        except OSError as error:
            raise ProtocolError(f"a shared folder could not be updated: {str(error)[:200]}") from None

    def serve_lane(self, lane: int) -> None:
        """Answer the requests of ``lane`` until the other end closes the channel (or, for a
        lane other than the main one, until its trusted thread ended)."""
        self.local.lane = lane
        with self.state:
            self.inboxes.setdefault(lane, collections.deque())
        try:
            while True:
                incoming = self._next(lane)
                if incoming is _STOP:
                    return
                self._answer(lane, incoming)
        except ChannelClosed:
            return
        except ProtocolError as error:
            self.fail(str(error))
            if lane == MAIN_LANE:
                raise
        finally:
            if lane != MAIN_LANE:
                with self.state:
                    self.inboxes.pop(lane, None)

    def serve_forever(self) -> None:
        """Answer requests until the other end closes the channel."""
        self.serve_lane(MAIN_LANE)
