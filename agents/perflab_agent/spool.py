"""The on-disk spool: every sealed batch is a file before any send, so a crash or an outage loses nothing.

Layout under the spool directory (docs/protocol.md, "Spool"):
  <run_id>/<stream>/<seq>.json   a sealed batch: exactly the object sent in POST /api/ingest/batches
  <run_id>/<stream>/meta.json    the stream's next seq, cumulative dropped lines, source, role, closed
  uploads/<id>.json + <id>.body  an artifact or profile waiting to be posted
  rejected/                      what the server refused as malformed (400/422), kept for a human
  tmp/                           work files (perf data) that become uploads
  counters.json                  agent-wide totals for the heartbeat

The spool is bounded by bytes and by age. Overflow drops the lines of the oldest batches and adds
their count to the stream's persisted `dropped` counter, which every batch sent afterwards carries.
The dropped batches' seqs are still sent, with no lines: the server parses a stream in seq order and
must not wait forever for a seq that will never come. Consecutive dropped seqs share one small "stub"
file (`"stub_through": LAST`), so a long outage cannot grow the spool past its bound.

Only one process may use a spool directory at a time (flock on .lock).
"""

import collections
import errno
import fcntl
import heapq
import json
import os
import shutil
import threading
import time
import urllib.parse

from perflab_agent.util import atomic_write, log, valid_run_id

# Keeps "pidstat:nginx" readable on disk while any "/" or other oddity in a process name is escaped.
_STREAM_SAFE = ":@+=,-_."
_SPECIAL_DIRS = ("uploads", "rejected", "tmp")
# Overflow and expiry warnings name each stream once, then at most this often.
_DROP_LOG_INTERVAL_S = 60.0
# What one empty batch of a stub costs in a request, for request sizing.
_STUB_BATCH_BYTES = 200


def _encode(batch):
    # Not ASCII-escaped: non-ASCII tool output (localized pidstat) stays compact, and a batch's size
    # on disk matches its size on the wire.
    return json.dumps(batch, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "replace")


class SpoolLocked(Exception):
    """Another agent process owns this spool directory."""


class Item:
    """One batch checked out for sending: `key` is (run_id, stream, seq); `batch` the object to post."""

    __slots__ = ("batch", "entry", "key", "size", "stream")

    def __init__(self, key, batch, size, stream, entry):
        self.key = key
        self.batch = batch
        self.size = size
        self.stream = stream
        self.entry = entry


class Upload:
    """An artifact or profile checked out for sending; the body stays on disk until it is posted."""

    __slots__ = ("body_path", "content_encoding", "id", "path", "query", "size")

    def __init__(self, upload_id, meta, body_path, size):
        self.id = upload_id
        self.path = meta["path"]
        self.query = meta.get("query") or {}
        self.content_encoding = meta.get("content_encoding")
        self.body_path = body_path
        self.size = size


class _Entry:
    """One file of a stream: a sealed batch (seq == last), or a stub for the seqs seq..last."""

    __slots__ = ("acked", "file_seq", "last", "sealed_at", "seq", "size", "stub")

    def __init__(self, seq, size, sealed_at):
        self.file_seq = seq
        self.seq = seq
        self.last = seq
        self.size = size
        self.sealed_at = sealed_at
        self.stub = False
        self.acked = set()

    @property
    def count(self):
        return self.last - self.seq + 1


class _Stream:
    __slots__ = ("closed", "dropped", "files", "name", "next_seq", "path", "role", "run_id", "source")

    def __init__(self, run_id, name, path):
        self.run_id = run_id
        self.name = name
        self.path = path
        self.next_seq = 1
        self.dropped = 0
        self.source = ""
        self.role = ""
        self.closed = False
        self.files = collections.deque()

    def file_path(self, entry):
        return os.path.join(self.path, f"{entry.file_seq}.json")


class Spool:
    def __init__(self, path, max_bytes, max_age_s):
        self.path = os.path.abspath(path)
        self.max_bytes = max_bytes
        self.max_age_s = max_age_s
        for sub in _SPECIAL_DIRS:
            os.makedirs(os.path.join(self.path, sub), mode=0o700, exist_ok=True)
        # Held open for the spool's lifetime: the flock lasts as long as the file stays open.
        self._lock_file = open(os.path.join(self.path, ".lock"), "a")  # noqa: SIM115
        try:
            fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock_file.close()
            raise SpoolLocked(f"another perflab-agent process is using {self.path} (give this one its own --state-dir)")
        self._lock = threading.RLock()
        # Notified on every seal and upload (and `generation` bumped), so the sender wakes at once.
        self.changed = threading.Condition(self._lock)
        self.generation = 0
        self._streams = collections.OrderedDict()
        self._inflight = set()
        self._uploads_inflight = set()
        self._gone_runs = set()
        self._bytes = 0
        self._upload_seq = 0
        self._last_drop_log = {}
        self._counters = self._read_json(os.path.join(self.path, "counters.json")) or {}
        self._counters.setdefault("dropped_lines", 0)
        self._counters.setdefault("rejected_batches", 0)
        self._scan()

    def close(self):
        self._lock_file.close()

    # ---------------------------------------------------------------- streams and sealing

    def open_stream(self, run_id, name, source, role):
        """Register a stream, or pick it up where a previous process left it (seq, dropped, closed).
        Returns whether it is already closed."""
        if not valid_run_id(run_id):
            raise ValueError(f"invalid run id {run_id!r}")
        with self._lock:
            st = self._streams.get((run_id, name))
            if st is None:
                st = _Stream(run_id, name, self._stream_dir(run_id, name))
                self._streams[(run_id, name)] = st
            os.makedirs(st.path, mode=0o700, exist_ok=True)
            st.source, st.role = source, role
            self._write_meta(st)
            return st.closed

    def is_closed(self, run_id, name):
        """True/False for a stream this spool knows, None for one it has never seen."""
        with self._lock:
            st = self._streams.get((run_id, name))
            return None if st is None else st.closed

    def open_streams(self):
        """(run_id, stream) pairs not closed yet: what a restarted daemon must resume or close."""
        with self._lock:
            return [key for key, st in self._streams.items() if not st.closed]

    def seal(self, run_id, name, lines, closed=False, error=None):
        """Write a batch durably and give it the stream's next seq. Returns the seq (None if discarded)."""
        with self._lock:
            st = self._streams[(run_id, name)]
            if st.closed:
                raise ValueError(f"stream {name} of run {run_id} is already closed")
            if run_id in self._gone_runs:
                return None
            seq = st.next_seq
            data = _encode({"run_id": run_id, "stream": name, "source": st.source, "role": st.role,
                            "seq": seq, "lines": lines, "dropped": st.dropped,
                            "closed": bool(closed), "error": error})
            atomic_write(os.path.join(st.path, f"{seq}.json"), data)
            st.files.append(_Entry(seq, len(data), time.time()))
            st.next_seq += 1
            self._bytes += len(data)
            if closed:
                st.closed = True
                self._write_meta(st)
            self._enforce_size()
            self._notify()
            return seq

    def add_dropped(self, run_id, name, count):
        """Lines lost before they reached the spool (the disk was full): counted like overflow."""
        with self._lock:
            st = self._streams[(run_id, name)]
            st.dropped += count
            self._counters["dropped_lines"] += count
            self._persist_counts(st)

    # ---------------------------------------------------------------- sending

    def checkout(self, max_bytes, max_count):
        """The oldest unsent batches (each stream in seq order), marked in flight; at least one if any.

        `dropped` is refreshed to the stream's current count: a batch sealed before an overflow still
        tells the server about it.
        """
        with self._lock:
            heap = []
            for index, st in enumerate(self._streams.values()):
                entries = self._unsent(st)
                first = next(entries, None)
                if first is not None:
                    heap.append((first.sealed_at, index, first, st, entries))
            heapq.heapify(heap)
            chosen, total, count = [], 0, 0
            while heap and count < max_count:
                _, index, entry, st, entries = heapq.heappop(heap)
                take = min(entry.count, max_count - count)
                cost = _STUB_BATCH_BYTES * take if entry.stub else entry.size
                if chosen and total + cost > max_bytes:
                    break
                chosen.append((st, entry, take))
                total, count = total + cost, count + take
                if take == entry.count:
                    nxt = next(entries, None)
                    if nxt is not None:
                        heapq.heappush(heap, (nxt.sealed_at, index, nxt, st, entries))
            for st, entry, _ in chosen:
                self._inflight.add(entry)
        items = []
        for st, entry, take in chosen:
            try:
                with open(st.file_path(entry), "rb") as f:
                    batch = json.loads(f.read().decode("utf-8"))
            except (OSError, ValueError) as e:
                with self._lock:
                    self._inflight.discard(entry)
                    if isinstance(e, OSError) and e.errno == errno.ENOENT:
                        self._forget_entry(st, entry)
                    else:
                        self._set_aside(st, entry, f"unreadable spool file: {e}")
                continue
            stub_through = batch.pop("stub_through", None)
            if stub_through is not None and not entry.stub:
                with self._lock:  # a stub written by an earlier process: learn its range now
                    entry.stub, entry.last = True, int(stub_through)
            batch["dropped"] = max(batch.get("dropped") or 0, st.dropped)
            if not entry.stub:
                items.append(Item((st.run_id, st.name, entry.seq), batch, entry.size, st, entry))
                continue
            for seq in range(entry.seq, entry.seq + take):
                last = seq == entry.last
                empty = dict(batch, seq=seq, lines=[], closed=bool(batch.get("closed")) and last,
                             error=batch.get("error") if last else None)
                if seq != entry.file_seq:
                    empty.pop("refused_lines", None)  # the count belongs to the refused seq alone
                items.append(Item((st.run_id, st.name, seq), empty, _STUB_BATCH_BYTES, st, entry))
        return items

    def release(self, items):
        """Give batches back unsent (the send failed); they are the first candidates next time."""
        with self._lock:
            for item in items:
                self._inflight.discard(item.entry)

    def wake(self):
        """Wake whoever waits in wait_for_change (the sender, when asked to stop)."""
        with self._lock:
            self._notify()

    def wait_for_change(self, generation, timeout):
        """Sleep until something was sealed or queued after `generation` was read (or timeout)."""
        with self._lock:
            if self.generation == generation:
                self.changed.wait(timeout)

    def ack(self, item):
        """The server committed the batch: delete it (a stub once all its seqs are committed)."""
        with self._lock:
            entry, st = item.entry, item.stream
            self._inflight.discard(entry)
            if entry.stub:
                entry.acked.add(item.key[2])
                while entry.seq in entry.acked and entry.seq <= entry.last:
                    entry.acked.discard(entry.seq)
                    entry.seq += 1
                if entry.seq <= entry.last:
                    return
            if entry in st.files:
                self._remove(st, entry)
            self._notify()

    def reject(self, item, reason):
        """The server called the batch malformed: keep it aside (never resent) and count it.

        Its seq is then sent again empty, with `refused_lines`: the server parses strictly in seq
        order, so a refused seq that never arrives would stall the stream for good (issue 9).
        """
        with self._lock:
            self._inflight.discard(item.entry)
            st, entry = item.stream, item.entry
            if entry in st.files:
                if entry.stub or entry.count != 1:
                    # Already the empty stand-in (or a range of them): nothing left to salvage.
                    self._set_aside(st, entry, reason)
                else:
                    self._refuse(st, entry, item.batch, reason)
            self._notify()

    def drop_run(self, run_id):
        """The server no longer knows the run (deleted): discard its batches, now and later.
        Batches in flight go too: only the sender calls this, about the request it just sent."""
        with self._lock:
            self._gone_runs.add(run_id)
            for st in list(self._streams.values()):
                if st.run_id == run_id:
                    for entry in list(st.files):
                        self._remove(st, entry)
            self._notify()

    def pending(self, run_id=None):
        """Number of spool files (batches, stubs, uploads) not yet delivered, for one run or all."""
        with self._lock:
            count = sum(len(st.files) for st in self._streams.values() if run_id is None or st.run_id == run_id)
            if run_id is None:
                count += len(self._list_uploads())
            return count

    def wait_drained(self, run_id, timeout):
        """Block until every batch of the run was delivered (or set aside); False on timeout."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self.pending(run_id):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self.changed.wait(min(remaining, 1.0))
            return True

    def forget_run(self, run_id):
        """Delete what is left of a finished run (its metas) once nothing of it awaits sending."""
        with self._lock:
            if self.pending(run_id):
                return False
            for key in [k for k in self._streams if k[0] == run_id]:
                del self._streams[key]
            self._gone_runs.discard(run_id)
            shutil.rmtree(os.path.join(self.path, run_id), ignore_errors=True)
            return True

    def stats(self):
        with self._lock:
            upload_bytes = 0
            for upload_id in self._list_uploads():
                try:
                    upload_bytes += os.path.getsize(os.path.join(self.path, "uploads", upload_id + ".body"))
                except OSError:
                    pass
            return {"spool_bytes": self._bytes + upload_bytes,
                    "spool_batches": sum(e.count for st in self._streams.values() for e in st.files),
                    "dropped_lines": self._counters["dropped_lines"],
                    "rejected_batches": self._counters["rejected_batches"]}

    # ---------------------------------------------------------------- uploads

    def tmp_path(self, name):
        """A work file on the spool's filesystem, so it can become an upload by rename."""
        return os.path.join(self.path, "tmp", name)

    def add_upload(self, path, query, body=None, body_file=None, content_encoding=None):
        """Queue a POST of `body` (bytes) or of the file `body_file` (moved into the spool)."""
        with self._lock:
            self._upload_seq += 1
            upload_id = f"{int(time.time() * 1e6):016d}{self._upload_seq % 1000000:06d}"
        body_path = os.path.join(self.path, "uploads", upload_id + ".body")
        if body_file is not None:
            with open(body_file, "rb") as f:
                os.fsync(f.fileno())
            os.replace(body_file, body_path)
        else:
            atomic_write(body_path, body)
        meta = {"path": path, "query": query, "content_encoding": content_encoding}
        # The meta file is the commit point: a body without one is a crash leftover.
        atomic_write(os.path.join(self.path, "uploads", upload_id + ".json"), json.dumps(meta).encode("utf-8"))
        with self._lock:
            self._notify()
        return upload_id

    def checkout_upload(self):
        with self._lock:
            for upload_id in self._list_uploads():
                if upload_id in self._uploads_inflight:
                    continue
                meta = self._read_json(os.path.join(self.path, "uploads", upload_id + ".json"))
                body_path = os.path.join(self.path, "uploads", upload_id + ".body")
                try:
                    size = os.path.getsize(body_path)
                except OSError:
                    size = None
                if not meta or size is None:
                    self._delete_upload(upload_id)
                    continue
                self._uploads_inflight.add(upload_id)
                return Upload(upload_id, meta, body_path, size)
        return None

    def finish_upload(self, upload, reject_reason=None):
        """Posted (or refused as malformed, then kept in rejected/): either way never sent again."""
        with self._lock:
            self._uploads_inflight.discard(upload.id)
            if reject_reason:
                self._counters["rejected_batches"] += 1
                self._persist_counts(None)
                for suffix in (".json", ".body"):
                    try:
                        os.replace(os.path.join(self.path, "uploads", upload.id + suffix),
                                   os.path.join(self.path, "rejected", "upload-" + upload.id + suffix))
                    except OSError:
                        pass
                self._write_reason("upload-" + upload.id, reject_reason)
            else:
                self._delete_upload(upload.id)
            self._notify()

    def release_upload(self, upload):
        with self._lock:
            self._uploads_inflight.discard(upload.id)

    # ---------------------------------------------------------------- bounds

    def expire(self):
        """Apply the age bound: old batches lose their lines (counted as dropped); old uploads and
        rejects are deleted; streams finished long ago are forgotten."""
        cutoff = time.time() - self.max_age_s
        with self._lock:
            for st in list(self._streams.values()):
                for entry in list(st.files):
                    if entry.sealed_at >= cutoff:
                        break
                    if not entry.stub and entry not in self._inflight:
                        self._drop(st, entry, "older than the spool's age limit")
                if not st.files and st.closed and self._meta_mtime(st) < cutoff:
                    # A finished stream nobody cleaned up (its run was never reported ended).
                    del self._streams[(st.run_id, st.name)]
                    shutil.rmtree(st.path, ignore_errors=True)
            for upload_id in self._list_uploads():
                if upload_id in self._uploads_inflight:
                    continue
                try:
                    old = os.path.getmtime(os.path.join(self.path, "uploads", upload_id + ".json")) < cutoff
                except OSError:
                    old = True
                if old:
                    log.warning("spool: discarding upload %s, older than the spool's age limit", upload_id)
                    self._delete_upload(upload_id)
            for name in os.listdir(os.path.join(self.path, "rejected")):
                path = os.path.join(self.path, "rejected", name)
                try:
                    if os.path.getmtime(path) < cutoff:
                        os.unlink(path)
                except OSError:
                    pass
            for run_id in os.listdir(self.path):
                run_path = os.path.join(self.path, run_id)
                if (valid_run_id(run_id) and run_id not in _SPECIAL_DIRS and os.path.isdir(run_path)
                        and not any(key[0] == run_id for key in self._streams)):
                    shutil.rmtree(run_path, ignore_errors=True)

    def _enforce_size(self):
        while self._bytes > self.max_bytes:
            victim = None
            for st in self._streams.values():
                for entry in st.files:
                    if entry.stub or entry in self._inflight:
                        continue
                    if victim is None or entry.sealed_at < victim[1].sealed_at:
                        victim = (st, entry)
                    break
            if victim is None:
                return
            self._drop(victim[0], victim[1], f"spool full ({self.max_bytes} bytes)")

    def _drop(self, st, entry, why):
        """Drop a batch's lines: it becomes (or joins the preceding) stub, and the lines are counted."""
        path = st.file_path(entry)
        batch = self._read_json(path) or {}
        if "stub_through" in batch:
            # A stub from an earlier process, not yet recognised as one: nothing to drop.
            entry.stub, entry.last = True, int(batch["stub_through"])
            return
        count = len(batch.get("lines") or [])
        index = st.files.index(entry)
        prev = st.files[index - 1] if index else None
        if prev is not None and prev.stub and prev.last + 1 == entry.seq and prev not in self._inflight:
            stub = self._read_json(st.file_path(prev)) or batch
            stub.update(stub_through=entry.last, closed=bool(batch.get("closed")), error=batch.get("error"))
            self._rewrite(st, prev, stub)
            prev.last = entry.last
            self._forget_entry(st, entry)
            os.unlink(path)
        else:
            batch.update(lines=[], stub_through=entry.last)
            self._rewrite(st, entry, batch)
            entry.stub = True
        st.dropped += count
        self._counters["dropped_lines"] += count
        self._persist_counts(st)
        now = time.monotonic()
        if now - self._last_drop_log.get((st.run_id, st.name), -1e9) > _DROP_LOG_INTERVAL_S:
            self._last_drop_log[(st.run_id, st.name)] = now
            log.warning("spool: %s: dropping the oldest lines of %s (run %s); %d lines dropped so far",
                        why, st.name, st.run_id, st.dropped)

    def _rewrite(self, st, entry, batch):
        data = _encode(batch)
        atomic_write(st.file_path(entry), data)
        self._bytes += len(data) - entry.size
        entry.size = len(data)

    # ---------------------------------------------------------------- internals

    def _notify(self):
        self.generation += 1
        self.changed.notify_all()

    def _stream_dir(self, run_id, name):
        quoted = urllib.parse.quote(name, safe=_STREAM_SAFE)
        if quoted in (".", ".."):
            quoted = quoted.replace(".", "%2E")
        return os.path.join(self.path, run_id, quoted)

    def _unsent(self, st):
        for entry in st.files:
            if entry not in self._inflight:
                yield entry

    def _forget_entry(self, st, entry):
        try:
            st.files.remove(entry)
            self._bytes -= entry.size
        except ValueError:
            pass

    def _remove(self, st, entry):
        if len(st.files) == 1:
            # The last file is what tells a restarted agent the next seq: persist it before deleting.
            self._write_meta(st)
        self._forget_entry(st, entry)
        try:
            os.unlink(st.file_path(entry))
        except OSError:
            pass

    def _set_aside(self, st, entry, reason):
        name = f"{st.run_id}_{os.path.basename(st.path)}_{entry.file_seq}"
        if len(st.files) == 1:
            self._write_meta(st)
        self._forget_entry(st, entry)
        try:
            os.replace(st.file_path(entry), os.path.join(self.path, "rejected", name + ".json"))
        except OSError:
            pass
        self._write_reason(name, reason)
        self._counters["rejected_batches"] += 1
        self._persist_counts(None)
        log.error("spool: batch %d of %s (run %s) set aside in %s: %s",
                  entry.file_seq, st.name, st.run_id, os.path.join(self.path, "rejected"), reason)

    def _refuse(self, st, entry, batch, reason):
        name = f"{st.run_id}_{os.path.basename(st.path)}_{entry.file_seq}"
        try:
            shutil.copyfile(st.file_path(entry), os.path.join(self.path, "rejected", name + ".json"))
        except OSError:
            pass
        self._write_reason(name, reason)
        refused = len(batch.get("lines") or [])
        stand_in = {k: v for k, v in batch.items() if k in ("run_id", "stream", "source", "role", "seq",
                                                              "dropped", "closed", "error")}
        stand_in.update(lines=[], refused_lines=refused, stub_through=entry.last)
        self._rewrite(st, entry, stand_in)
        entry.stub = True
        self._counters["rejected_batches"] += 1
        self._persist_counts(None)
        log.error("spool: batch %d of %s (run %s) refused (%s); set aside in %s, its seq is sent again empty",
                  entry.file_seq, st.name, st.run_id, reason, os.path.join(self.path, "rejected"))

    def _write_reason(self, name, reason):
        try:
            atomic_write(os.path.join(self.path, "rejected", name + ".reason"),
                         (reason + "\n").encode("utf-8"), durable=False)
        except OSError:
            pass

    def _write_meta(self, st):
        meta = {"stream": st.name, "next_seq": st.next_seq, "dropped": st.dropped,
                "source": st.source, "role": st.role, "closed": st.closed}
        try:
            atomic_write(os.path.join(st.path, "meta.json"), json.dumps(meta).encode("utf-8"))
        except OSError as e:
            log.error("spool: cannot write %s: %s", st.path, e)

    def _persist_counts(self, st):
        if st is not None:
            self._write_meta(st)
        try:
            atomic_write(os.path.join(self.path, "counters.json"), json.dumps(self._counters).encode("utf-8"))
        except OSError as e:
            log.error("spool: cannot write counters: %s", e)

    def _meta_mtime(self, st):
        try:
            return os.path.getmtime(os.path.join(st.path, "meta.json"))
        except OSError:
            return 0.0

    def _list_uploads(self):
        try:
            names = os.listdir(os.path.join(self.path, "uploads"))
        except OSError:
            return []
        return sorted(n[:-5] for n in names if n.endswith(".json") and not n.startswith("."))

    def _delete_upload(self, upload_id):
        for suffix in (".json", ".body"):
            try:
                os.unlink(os.path.join(self.path, "uploads", upload_id + suffix))
            except OSError:
                pass

    @staticmethod
    def _read_json(path):
        try:
            with open(path, "rb") as f:
                return json.loads(f.read().decode("utf-8"))
        except (OSError, ValueError):
            return None

    def _scan(self):
        """Rebuild the index from disk: what a previous process sealed and did not get acknowledged."""
        for name in os.listdir(os.path.join(self.path, "tmp")):
            try:
                os.unlink(os.path.join(self.path, "tmp", name))
            except OSError:
                pass
        uploads = os.path.join(self.path, "uploads")
        for name in os.listdir(uploads):
            if name.startswith(".tmp-") or (name.endswith(".body") and
                                            not os.path.exists(os.path.join(uploads, name[:-5] + ".json"))):
                os.unlink(os.path.join(uploads, name))
        restored = 0
        for run_id in sorted(os.listdir(self.path)):
            run_path = os.path.join(self.path, run_id)
            if run_id in _SPECIAL_DIRS or not valid_run_id(run_id) or not os.path.isdir(run_path):
                continue
            for quoted in sorted(os.listdir(run_path)):
                stream_path = os.path.join(run_path, quoted)
                if os.path.isdir(stream_path):
                    restored += self._scan_stream(run_id, quoted, stream_path)
        if restored:
            log.info("spool: %d unsent batches found in %s; replaying them", restored, self.path)

    def _scan_stream(self, run_id, quoted, stream_path):
        meta = self._read_json(os.path.join(stream_path, "meta.json")) or {}
        st = _Stream(run_id, meta.get("stream") or urllib.parse.unquote(quoted), stream_path)
        entries = []
        for fname in os.listdir(stream_path):
            fpath = os.path.join(stream_path, fname)
            if fname.startswith(".tmp-"):
                os.unlink(fpath)
            elif fname.endswith(".json") and fname[:-5].isdigit():
                stat = os.stat(fpath)
                entries.append(_Entry(int(fname[:-5]), stat.st_size, stat.st_mtime))
        st.files = collections.deque(sorted(entries, key=lambda e: e.seq))
        st.dropped = int(meta.get("dropped") or 0)
        st.source = meta.get("source") or ""
        st.role = meta.get("role") or ""
        st.closed = bool(meta.get("closed"))
        next_seq = int(meta.get("next_seq") or 1)
        if st.files:
            # The newest file knows the most: a stub's range, and whether the stream closed just
            # before a crash that left the meta behind.
            last = self._read_json(st.file_path(st.files[-1])) or {}
            if "stub_through" in last:
                st.files[-1].stub, st.files[-1].last = True, int(last["stub_through"])
            next_seq = max(next_seq, st.files[-1].last + 1)
            st.closed = st.closed or bool(last.get("closed"))
            st.source = st.source or last.get("source") or ""
            st.role = st.role or last.get("role") or ""
        st.next_seq = next_seq
        self._bytes += sum(e.size for e in st.files)
        self._streams[(run_id, st.name)] = st
        return len(st.files)
