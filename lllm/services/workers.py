"""Layer 4 · tactic work in worker processes: the pool `lllm serve` runs its tactics on.

Read `door.py` first: its `Pool` admits `workers + max_queue` requests and runs their work on
threads of the server's own process. A tactic is mostly pure Python, so those threads hold the
interpreter lock, and the thread that answers /health (the event loop, or `http.server`'s) waits
for it behind them: measured, /health took 730 ms (uvicorn) and 1.2 s (`http.server`) at the 99th
percentile with 256 clients, and a shorter switch interval did not help (bench/serve_load_bench.py,
site/native/configuration.md). `ProcessPool` keeps the door's admission and moves the work out:

    workers   `workers` processes (spawned, so the same on every platform), each calling `build()`
              once to get its own `ProtocolService`; a tactic's state in memory is per worker. They
              run at a lower CPU priority (nice +10): on a machine with fewer cores than busy
              processes, the server's own process, which answers /health and passes the frames
              on, is scheduled before tactic work (measured: it spent half as long waiting for a
              core at 256 streaming clients on 2 cores, bench/serve_load_bench.py)
    dispatch  a request's work goes to the first free worker; a stream stays on the worker that
              opened it, stepped one item per request for the next one (so a client that reads
              slowly holds no worker, and one that left stops the tactic after the step in flight)
    replies   `(status, JSON object)`, or `(200, RemoteStream)` whose `frames()` are the worker's
              `EventStream.frames()`; an exception in the work is a 500 in the service's shape
    loss      a worker that dies (a crash, `os._exit`) fails its request with a 500 and is started
              again; its open streams end there
    close()   each worker is told to stop, given a few seconds, then terminated

Usage (`example_service` is any function, importable by name, that returns a `ProtocolService`):

    >>> pool = ProcessPool(example_service, workers=1, max_queue=1)
    >>> pool.run(None, "POST", "/run", b'{"input": "hi", "context": {"request_id": "r1"}}').result()
    (200, {'output': 'HI', 'request_id': 'r1', 'tactic': 'shout'})
    >>> pool.run(None, "POST", "/run", b'{"input": 3}').result()[0]
    400
    >>> pool.close()
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import threading
from collections import deque
from concurrent.futures import Future

from lllm.services.door import Pool
from lllm.services.protocol_service import ProtocolService, error

__all__ = ["ProcessPool", "RemoteStream", "example_service"]

SPAWN = multiprocessing.get_context("spawn")
STOP_SECONDS = 5.0
WORKER_NICE = 10          # added to each worker's nice value (a lower CPU priority than the server's process)


def example_service() -> ProtocolService:
    """A one-tactic service for the example above: shout the text back."""
    from lllm.runtimes.function_tactic import as_tactic

    def shout(text: str) -> str:
        return text.upper()
    return ProtocolService([as_tactic(shout)])


# ---- in each worker process ----------------------------------------------------------------------------------

def worker_main(build, conn) -> None:
    """Build the service once, then answer jobs from `conn` until it closes or says None."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)          # Ctrl-C reaches the whole group: the server stops us
    try:
        os.nice(WORKER_NICE)                              # the server's own process wins the CPU: /health never waits behind us
    except OSError:                                       # not allowed here: the workers run at the server's priority
        pass
    try:
        service = build()
    except BaseException as exc:                          # the user's module may raise anything while it loads
        conn.send(("failed", f"{type(exc).__name__}: {exc}"))
        return
    conn.send(("ready",))
    loop, streams, opened = asyncio.new_event_loop(), {}, 0
    try:
        while True:
            try:
                job = conn.recv()
            except (EOFError, OSError):                       # the server is gone
                break
            if job is None:
                break
            kind, *rest = job
            if kind == "call":
                try:
                    status, data = service.handle(*rest)
                except Exception as exc:                      # a fault of ours: still the service's JSON
                    status, data = error(500, type(exc).__name__, str(exc)[:500])
                if hasattr(data, "frames"):
                    opened += 1
                    streams[opened] = data.frames()
                    reply = ("stream", status, opened)
                else:
                    reply = ("answer", status, data)
            elif kind == "next":
                frames = streams.get(rest[0])
                try:
                    reply = ("frame", loop.run_until_complete(anext(frames))) if frames else ("end",)
                except Exception:                             # StopAsyncIteration, or a fault past the stream's own error frame
                    streams.pop(rest[0], None)
                    reply = ("end",)
            else:                                             # "close": the client left; the tactic's iterator is closed
                frames = streams.pop(rest[0], None)
                if frames is not None:
                    try:
                        loop.run_until_complete(frames.aclose())
                    except Exception:
                        pass
                reply = ("closed",)
            try:
                conn.send(reply)
            except Exception as exc:                          # the answer would not pickle: nothing was written
                conn.send(("answer", *error(500, type(exc).__name__, f"the answer could not be sent back: {exc}"[:500])))
    finally:
        loop.close()                                      # closed here, not by the garbage collector after its pipe is gone


# ---- in the server ---------------------------------------------------------------------------------------------

class WorkerLost(RuntimeError):
    pass


class ProcessPool(Pool):
    """The door's admission (`admit`, `release`, `busy`) with the work in `workers` processes."""

    def __init__(self, build, workers: int = 2, max_queue: int = 32):
        super().__init__(workers, max_queue)
        self.build, self.cond, self.closing = build, threading.Condition(), False
        self.shared, self.own = deque(), [deque() for _ in range(workers)]
        self.processes, self.conns, self.lanes = [None] * workers, [None] * workers, []
        for lane in range(workers):                       # all started at once, then each awaited
            self.start(lane)
        failed = [said for said in map(self.ready, range(workers)) if said]
        if failed:
            self.close()
            raise RuntimeError(f"a worker could not build the service: {failed[0]}")
        self.lanes = [threading.Thread(target=self.serve_lane, args=(lane,), name=f"lllm-lane-{lane}", daemon=True)
                      for lane in range(workers)]
        for thread in self.lanes:
            thread.start()

    def start(self, lane: int) -> None:
        ours, theirs = SPAWN.Pipe()
        process = SPAWN.Process(target=worker_main, args=(self.build, theirs), name=f"lllm-worker-{lane}", daemon=True)
        process.start()
        theirs.close()
        self.processes[lane], self.conns[lane] = process, ours

    def ready(self, lane: int) -> str:
        """'' once worker `lane` has built its service, else why it could not."""
        try:
            said = self.conns[lane].recv()
        except (EOFError, OSError):
            said = ("failed", f"it exited with {self.processes[lane].exitcode} while starting")
        return "" if said[0] == "ready" else said[1]

    def run(self, service, method: str, path: str, body: bytes) -> Future:
        """The work of one request on the first free worker: (status, data), data a RemoteStream for /stream."""
        return self.submit(None, ("call", method, path, body))

    def submit(self, lane: int | None, job) -> Future:
        future = Future()
        with self.cond:
            if self.closing:
                future.set_exception(WorkerLost("the server is stopping"))
                return future
            (self.shared if lane is None else self.own[lane]).append((future, job))
            self.cond.notify_all()
        return future

    def serve_lane(self, lane: int) -> None:
        """One thread per worker: its own jobs (a stream's next step) first, then the shared queue."""
        while True:
            with self.cond:
                while not (self.closing or self.own[lane] or self.shared):
                    self.cond.wait()
                if self.closing:                                  # each lane tells its own worker to stop
                    break
                future, job = (self.own[lane] or self.shared).popleft()
            if not future.set_running_or_notify_cancel():         # its client left before it started
                continue
            try:
                self.conns[lane].send(job)
                reply = self.conns[lane].recv()
            except (EOFError, OSError) as exc:
                future.set_exception(WorkerLost(f"the worker running it stopped ({exc or 'exited'})"))
                self.restart(lane)
                continue
            if reply[0] == "stream":
                reply = ("answer", reply[1], RemoteStream(self, lane, reply[2]))
            future.set_result(reply[1:] if reply[0] == "answer" else reply)
        try:
            self.conns[lane].send(None)
        except OSError:
            pass

    def restart(self, lane: int) -> None:
        self.processes[lane].join(1)
        if self.processes[lane].is_alive():
            self.processes[lane].kill()
        with self.cond:
            lost, self.own[lane] = self.own[lane], deque()
        for future, _job in lost:                              # steps of streams that lived there
            if future.set_running_or_notify_cancel():
                future.set_result(("end",))
        if not self.closing:
            self.start(lane)
            self.ready(lane)                                      # one that cannot build again fails each job: 500s

    def close(self) -> None:
        with self.cond:
            self.closing = True
            waiting = [*self.shared, *(job for lane in self.own for job in lane)]
            self.shared.clear()
            for lane in self.own:
                lane.clear()
            self.cond.notify_all()
        for future, _job in waiting:
            if future.set_running_or_notify_cancel():
                future.set_exception(WorkerLost("the server is stopping"))
        if not self.lanes:                                        # closed while starting: no lane to tell them
            for conn in self.conns:
                try:
                    conn and conn.send(None)
                except OSError:
                    pass
        for process in self.processes:
            if process is not None:
                process.join(STOP_SECONDS)
                if process.is_alive():
                    process.terminate()
                    process.join(1)


class RemoteStream:
    """A /stream answer whose tactic runs in worker `lane`: `frames()` as `EventStream.frames()`."""

    def __init__(self, pool: ProcessPool, lane: int, number: int):
        self.pool, self.lane, self.number = pool, lane, number

    async def frames(self):
        ended = False
        try:
            while True:
                reply = await asyncio.wrap_future(self.pool.submit(self.lane, ("next", self.number)))
                if reply[0] != "frame":
                    ended = True
                    return
                yield reply[1]
        except WorkerLost:
            ended = True
        finally:
            if not ended:                                         # the client left: close it after the step in flight
                self.pool.submit(self.lane, ("close", self.number))
