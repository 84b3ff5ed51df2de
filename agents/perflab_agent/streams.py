"""Lines from tools: stamped the moment they arrive, sealed into one batch per stream every second.

Reader threads only append to memory (cheap, never blocked by the disk or the network); the batcher
thread seals into the spool; the sender thread, elsewhere, posts. So a slow server delays delivery,
never sampling.
"""

import threading
import time

from perflab_agent.util import log, redactor

# A line longer than this arrives as several lines rather than growing without bound in memory.
MAX_LINE_BYTES = 64 * 1024
# Per-line overhead of [wall, mono, "..."] in the JSON, for sizing batches.
LINE_OVERHEAD = 40
DEFAULT_BATCH_BYTES = 256 * 1024
MIN_BATCH_BYTES = 1024
# Lines kept in memory while the spool cannot be written (disk full); beyond that the oldest go.
MAX_UNSEALED_LINES = 100000


class Limits:
    """How large a sealed batch may be. The sender lowers it when the server answers 413, so that
    later batches are split before they get a seq (docs/protocol.md, "Splitting on 413")."""

    def __init__(self, batch_bytes=DEFAULT_BATCH_BYTES):
        self.batch_bytes = batch_bytes

    def lower(self, size):
        self.batch_bytes = max(MIN_BATCH_BYTES, min(self.batch_bytes, int(size)))


def split_lines(lines, max_bytes):
    """Cut a list of [wall, mono, text] into chunks of about max_bytes (at least one line each)."""
    chunks, chunk, size = [], [], 0
    for line in lines:
        cost = len(line[2]) + LINE_OVERHEAD
        if chunk and size + cost > max_bytes:
            chunks.append(chunk)
            chunk, size = [], 0
        chunk.append(line)
        size += cost
    if chunk:
        chunks.append(chunk)
    return chunks


class LineStream:
    """One stream of one run (e.g. "pidstat:nginx"): lines waiting to be sealed into the sink.

    The sink is the spool (or, for `daemon --test`, memory). With `hold`, lines are sealed only when
    the stream closes: strace -c's table is one unit.
    """

    def __init__(self, sink, run_id, name, hold=False, keepalive_s=None):
        self.sink = sink
        self.run_id = run_id
        self.name = name
        self.hold = hold
        # With nothing printed for this long, seal an empty batch: the server ends runs whose load
        # stream falls silent (its `run` process died), and a quiet `wrk -d 20m` is not dead.
        self.keepalive_s = keepalive_s
        self._last_seal = time.monotonic()
        self.lines_seen = 0
        self.done = threading.Event()
        self._lines = []
        self._closing = False
        self._error = None
        self._lock = threading.Lock()
        # Sealing happens on the batcher thread and, at the end of a run, on the capture's thread.
        self._seal_lock = threading.Lock()

    def add(self, text):
        wall, mono = time.time(), time.monotonic()
        text = redactor.text(text)
        with self._lock:
            if self._closing:
                return
            self._lines.append([round(wall, 6), round(mono, 6), text])
            self.lines_seen += 1

    def close(self, error=None):
        """No more lines; the next seal sends the closing batch. The first error given wins."""
        with self._lock:
            if not self._closing:
                self._closing = True
                self._error = error
            elif error and not self._error:
                self._error = error

    def seal(self, limits):
        with self._seal_lock:
            with self._lock:
                if self.done.is_set():
                    return
                closing, error = self._closing, self._error
                quiet_too_long = (self.keepalive_s is not None
                                  and time.monotonic() - self._last_seal >= self.keepalive_s)
                if (self.hold and not closing) or (not self._lines and not closing and not quiet_too_long):
                    return
                lines, self._lines = self._lines, []
                self._last_seal = time.monotonic()
            chunks = split_lines(lines, limits.batch_bytes) or [[]]
            for index, chunk in enumerate(chunks):
                last = index == len(chunks) - 1
                try:
                    self.sink.seal(self.run_id, self.name, chunk, closed=closing and last,
                                   error=error if closing and last else None)
                except OSError as e:
                    self._requeue([line for rest in chunks[index:] for line in rest], e)
                    return
            if closing:
                self.done.set()

    def _requeue(self, lines, error):
        log.error("cannot write %s to the spool (%s); keeping %d lines in memory", self.name, error, len(lines))
        with self._lock:
            self._lines = lines + self._lines
            excess = len(self._lines) - MAX_UNSEALED_LINES
            if excess > 0:
                del self._lines[:excess]
        if excess > 0:
            try:
                self.sink.add_dropped(self.run_id, self.name, excess)
            except OSError:
                pass


class Batcher(threading.Thread):
    """Seals every registered stream once a second (and closing streams at that tick)."""

    def __init__(self, limits, interval=1.0):
        super().__init__(name="perflab-batcher", daemon=True)
        self.limits = limits
        self.interval = interval
        self._streams = []
        self._lock = threading.Lock()
        self._stop_event = threading.Event()

    def add(self, stream):
        with self._lock:
            self._streams.append(stream)

    def run(self):
        next_tick = time.monotonic()
        while True:
            next_tick += self.interval
            delay = next_tick - time.monotonic()
            if delay < 0:
                # Fell behind (a slow disk): seal now and keep the cadence from here, no burst.
                next_tick, delay = time.monotonic(), 0
            if self._stop_event.wait(delay):
                break
            self.seal_all()
        self.seal_all()

    def seal_all(self):
        with self._lock:
            streams = list(self._streams)
        for stream in streams:
            try:
                stream.seal(self.limits)
            except Exception:  # noqa: BLE001 - one broken stream must not stop the others' sealing
                log.exception("sealing %s failed", stream.name)
        with self._lock:
            self._streams = [s for s in self._streams if not s.done.is_set()]

    def stop(self):
        self._stop_event.set()
        if self.is_alive():
            self.join()


def pump(fileobj, stream=None, tail=None):
    """Hand each line of a pipe to `stream` as soon as it arrives; keep the last ones in `tail`."""
    try:
        while True:
            raw = fileobj.readline(MAX_LINE_BYTES)
            if not raw:
                break
            text = raw.decode("utf-8", "replace").rstrip("\r\n")
            if tail is not None:
                tail.append(redactor.text(text))
            if stream is not None:
                stream.add(text)
    except (OSError, ValueError):
        pass  # the pipe was closed under us: the tool is gone
    finally:
        try:
            fileobj.close()
        except OSError:
            pass


def start_pump(fileobj, stream=None, tail=None, name="perflab-reader"):
    thread = threading.Thread(target=pump, args=(fileobj, stream, tail), name=name, daemon=True)
    thread.start()
    return thread
