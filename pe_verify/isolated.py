"""`pe-verify check`'s battery run with the implementation in a child process (`run`), so that nothing it
does can end, stall or corrupt the run: its exit, a crash, a hang, a leak, a KeyboardInterrupt it raises and
its writes to stdout become findings, each but the last failing the step it stopped (the screen of one size,
`battery.screen`, which then fails that size only, or a property); the steps after it run in a fresh child,
so one bad input hides none of the rest.

A fork server (a fresh interpreter that imported numpy, Hypothesis and the batteries once; it serves every
later run of the process and ends with it) forks each child: 20 ms a run, against a second of imports. The
calling process, which may have threads, is never forked; the server's only other threads are OpenBLAS's,
which it shuts down before a fork (pthread_atfork). A child's stdout and stderr are pipes the calling process
reads to their end: stdout is counted, never shown, stderr is shown on the caller's stderr, so that no
process of the implementation holds the caller's own stdout or stderr open. SIGINT is ignored (a Ctrl-C is
the caller's, which has the server kill the child and exits 130); RLIMIT_DATA caps its memory, and it dumps
no core. SIGALRM ends a call past the time limit (`CallTimeout`; one swallowed where an exception cannot
propagate, as in a gc callback, is raised again 10 ms later, and never printed); a call that runs on past a
grace (in C code, or with SIGALRM blocked) has its child killed, seen through a heartbeat in shared memory:
when the call began, and what it is. The import of the implementation is such a call too.

Each child is the leader of a session of its own, so the signals the implementation sends to its process
group reach only it and what it started. When the child ends (its job done, an exit, a crash, a kill past
the time limit, a Ctrl-C, or the calling process gone, however it ended), the server kills that session's
process group and, being the subreaper of everything the child started (PR_SET_CHILD_SUBREAPER), every
process left below it, in a new session or not, before it reports the end: nothing the implementation
started outlives its child. Only the child itself sends results: a fork of it that returns from a call
into the battery ends there (`os._exit`), and the calling process refuses messages from any other process.

This guards against accidents, not against an implementation written to fool the battery, which shares its
process. POSIX only (fork, rlimits, SIGALRM); the subreaper and /proc are Linux's.
"""

from __future__ import annotations

import array
import atexit
import codecs
import contextlib
import fcntl
import importlib
import mmap
import os
import pickle
import select
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import warnings
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pe_verify.inputs import TARGET_MEMORY_GIB, TIMEOUT_SECONDS

#: How long past its limit a call may run before its process is killed (at most; the limit if shorter).
GRACE_SECONDS = 2.0

#: How soon a `CallTimeout` that was swallowed (raised where Python ignores exceptions) is raised again.
RETRY_SECONDS = 0.01

#: prctl(2) options (linux/prctl.h).
_PR_SET_CHILD_SUBREAPER = 36

#: Heartbeat layout: the monotonic time the current call began (0 between calls), the length of the text
#: describing the latest call, then that text.
_SINCE, _LENGTH, _TEXT = struct.Struct("d"), struct.Struct("I"), 12
_HEARTBEAT_BYTES = 4096

_SERVER_CODE = (
    "import signal, sys\n"
    "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
    "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})\n"
    "if sys.path[:1] == ['']:\n"
    "    del sys.path[0]\n"  # the current folder: nothing there may shadow what the server imports
    "from pe_verify import isolated\n"
    "isolated.serve(int(sys.argv[1]), int(sys.argv[2]))\n"
)


@dataclass(frozen=True)
class Limits:
    """What one call of the implementation may take: seconds, and GiB of memory beyond what its process
    holds when it starts."""

    timeout: float = float(TIMEOUT_SECONDS)
    memory_gib: float = float(TARGET_MEMORY_GIB)


@dataclass(frozen=True)
class _Job:
    """What a child runs: the battery of `family` (defined in `module`, imported first) on `target` from
    step `first` on (the screen of each size, `battery.screen_sizes`, then each property, then the
    identification), the sizes already screened out (`failed`, their outcomes), with the calling process's
    folder, import path and environment."""

    family: str
    module: str
    target: str
    settings: Any
    backend: str
    first: int
    failed: tuple[Any, ...]
    limits: Limits
    cwd: str
    path: list[str]
    environ: dict[str, str]


class _RemoteTraceback(Exception):
    """The traceback of a failure inside the child, as its cause."""


# ------------------------------------------------------------------------------------------ framing


def _frame(message: object) -> bytes:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return struct.pack("<Q", len(data)) + data


class _Frames:
    """Messages read from a stream of length-prefixed pickles, in order."""

    def __init__(self) -> None:
        self.buffer = b""
        self.ready: deque[Any] = deque()

    def feed(self, data: bytes) -> None:
        self.buffer += data
        while len(self.buffer) >= 8:
            (size,) = struct.unpack_from("<Q", self.buffer)
            if len(self.buffer) < 8 + size:
                break
            self.ready.append(pickle.loads(self.buffer[8 : 8 + size]))
            self.buffer = self.buffer[8 + size :]


# --------------------------------------------------------------------------------- the fork server


def serve(control: int, heartbeat: int) -> None:
    """The fork server's loop: for each job received on `control` (with the child's message pipe, stdout
    and stderr), fork a child that runs it in a session of its own; reply ("forked", pid), kill the child
    when asked, and reply ("ended", wait status) once the child, its process group and every other process
    it started are gone. When the calling process is gone, kill them all and end."""
    _become_subreaper()
    importlib.import_module("pe_verify.check")  # numpy and Hypothesis, once
    from hypothesis import strategies

    from pe_verify.properties import battery

    for name in battery.family_names():  # and every family of the suite's battery
        battery.family_spec(name)

    battery.search(strategies.none(), lambda _: None, battery.Settings(examples=1))  # sets Hypothesis up
    channel = socket.socket(fileno=control)
    beat = mmap.mmap(heartbeat, _HEARTBEAT_BYTES)
    woken, wake = os.pipe()
    os.set_blocking(wake, False)
    signal.set_wakeup_fd(wake)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    frames, fds = _Frames(), []
    while True:
        while not frames.ready:
            data, more, _, _ = socket.recv_fds(channel, 1 << 16, 8)
            if not data:
                _end_descendants()
                return
            frames.feed(data)
            fds += more
        message = frames.ready.popleft()
        if message[0] != "job":  # a kill that came as its child ended
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # the idle BLAS threads: see the docstring
            pid = os.fork()
        if pid == 0:  # the child never returns into this loop, whatever happens
            status = 1
            try:
                os.setsid()  # its own session and process group, whose id is its pid
                for fd in (control, woken, wake):
                    os.close(fd)
                status = _child(message[1], fds, beat)
            finally:
                os._exit(status)
        for fd in fds:
            os.close(fd)
        fds = []
        channel.sendall(_frame(("forked", pid)))
        status = _reap(pid, channel, frames, woken)
        if status is None:
            return
        channel.sendall(_frame(("ended", status)))


def _reap(pid: int, channel: socket.socket, frames: _Frames, woken: int) -> int | None:
    """The child's wait status once it ends, killing it when asked; None (the child killed) when the
    calling process is gone. Either way its process group and every process it started are killed and
    reaped first: the group while the child, not yet reaped, still holds its id."""
    gone = False
    while os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
        readable, _, _ = select.select([channel, woken], [], [])
        if woken in readable:
            os.read(woken, 1 << 10)
        if channel in readable:
            data = channel.recv(1 << 16)
            frames.feed(data)
            if not data or frames.ready:  # gone, or ("kill",): the only request while a child runs
                frames.ready.clear()
                _kill_group(pid)
                if not data:
                    gone = True
                    break
    _kill_group(pid)
    _, status = os.waitpid(pid, 0)
    _end_descendants()
    return None if gone else status


def _become_subreaper() -> None:
    """Have the processes a child leaves behind (its orphans, in any session) become this server's
    children, so that `_end_descendants` finds them (Linux; elsewhere they go to init)."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _kill_group(pid: int) -> None:
    """SIGKILL to the process group of child `pid` (itself, if it has not made its session yet)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    except PermissionError:  # a member that changed its user: the others were signalled
        pass


def _end_descendants() -> None:
    """Kill and reap every process left below this server: as the subreaper, it inherits each orphan of a
    child, so killing its children until it has none ends every descendant, level by level."""
    while True:
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            return  # no child left: nothing below this server runs
        killed = 0
        for child in _children():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(child, signal.SIGKILL)
                killed += 1
        if not killed:  # none found, or none this process may signal: waiting could be forever
            return
        with contextlib.suppress(ChildProcessError):
            os.waitpid(-1, 0)


def _children() -> list[int]:
    """The pids of this process's children, read from /proc (none where there is no /proc)."""
    me, found = os.getpid(), []
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as stat:
                    parent = int(stat.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if parent == me:
                found.append(int(entry.name))
    return found


# ----------------------------------------------------------------------------------------- the child


def _child(job: _Job, fds: list[int], beat: mmap.mmap) -> int:
    """Run `job` in this forked child, sending ("prepared", the `battery.Backend` the implementation is
    called with or None, the settings the battery runs with), ("ready", count of sizes screened), ("start",
    i), ("done", i, outcome) (for a screen, the outcome of a size screened out, or None) and ("identified",
    identification, findings) to the calling process, ("usage", message) for a target that cannot be used,
    ("error", summary, traceback) for a failure of the battery itself; each message framed with this
    process's pid. The target is imported within the time limit of a call. A fork of this process that
    reaches `send` ends there, sending nothing."""
    import resource

    global _in_child
    _in_child = True
    messages, stdout, stderr = fds
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.dup2(stdout, 1)
    os.dup2(stderr, 2)
    os.close(stdout)
    os.close(stderr)
    channel = os.fdopen(messages, "wb")
    os.chdir(job.cwd)
    sys.path[:] = job.path
    os.environ.clear()
    os.environ.update(job.environ)
    importlib.invalidate_caches()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    wanted = _data_bytes() + int(job.limits.memory_gib * 2**30)
    resource.setrlimit(
        resource.RLIMIT_DATA, (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard), hard)
    )

    owner = os.getpid()

    def send(message: object) -> None:
        if os.getpid() != owner:  # a fork of the implementation that got this far
            os._exit(0)
        _flush_stdout()
        channel.write(_frame((owner, message)))
        channel.flush()

    try:
        from pe_verify import check
        from pe_verify.properties import battery

        watch = _Watch(beat, job.limits.timeout)
        try:
            importlib.import_module(job.module)
            with watch(f"importing {job.target.rpartition(':')[0]}"):
                function = check.load_target(job.target)
            chosen = check.backend(job.backend, function)
            prepared = battery.prepare(job.family, function, job.settings, chosen)
        except ValueError as exc:
            usage = str(exc) if isinstance(exc, check.TargetError) else f"{job.target}: {exc}"
            send(("usage", usage))
            return 0
        battery.guard_calls(watch)
        send(("prepared", prepared.handed, prepared.settings))
        sizes = battery.screen_sizes(prepared.spec, prepared.settings)
        send(("ready", len(sizes)))
        failed = list(job.failed)
        for index in range(job.first, len(sizes)):
            send(("start", index))
            screened_out = battery.screen(prepared, sizes[index])
            if screened_out is not None:
                failed.append(screened_out)
            send(("done", index, screened_out))
        prepared = battery.screened(prepared, failed)
        last = len(sizes) + len(prepared.properties)
        for index in range(max(job.first, len(sizes)), last):
            send(("start", index))
            send(("done", index, battery.check_property(prepared, index - len(sizes))))
        send(("start", last))
        send(("identified", *battery.identification(prepared)))
    except BaseException as exc:
        send(("error", f"{type(exc).__name__}: {exc}", traceback.format_exc()))
        return 1
    return 0


def _data_bytes() -> int:
    """The size of this process's data segment (0 where /proc does not say)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _flush_stdout() -> None:
    """Hand what the implementation printed to the pipe: Python's buffer and C's."""
    with contextlib.suppress(Exception):  # the implementation may have replaced or closed sys.stdout
        sys.stdout.flush()
    import ctypes

    ctypes.CDLL(None).fflush(None)


class _Watch:
    """The call guard of a child: SIGALRM at the time limit raises `CallTimeout` in the call, and the
    heartbeat tells the calling process when the current call began and what it is. A `CallTimeout` that
    Python swallows (raised in a gc callback or a `__del__`, where it reaches only `sys.unraisablehook`) is
    not printed, and is raised again `RETRY_SECONDS` later while the call runs. A fork of the child that
    enters or leaves a call ends there (`os._exit`), leaving the heartbeat alone."""

    def __init__(self, beat: mmap.mmap, seconds: float) -> None:
        self.beat, self.seconds, self.armed, self.inside, self.what = beat, seconds, False, False, ""
        self.owner = os.getpid()
        self.unraisable = sys.unraisablehook
        signal.signal(signal.SIGALRM, self._alarm)
        sys.unraisablehook = self._unraisable

    def __call__(self, what: str) -> _Watch:
        self.what = what
        return self

    def __enter__(self) -> None:
        if os.getpid() != self.owner:
            os._exit(0)
        self.inside = True
        text = self.what.encode("utf-8", "replace")[: _HEARTBEAT_BYTES - _TEXT]
        self.beat[_TEXT : _TEXT + len(text)] = text
        _LENGTH.pack_into(self.beat, _SINCE.size, len(text))
        _SINCE.pack_into(self.beat, 0, time.monotonic())
        self.armed = True
        signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *exc: object) -> None:
        if os.getpid() != self.owner:  # a fork of the implementation, returning from the call
            os._exit(0)
        try:  # the alarm may land here: the heartbeat is cleared whatever happens
            self.armed = self.inside = False
            signal.setitimer(signal.ITIMER_REAL, 0)
        finally:
            _SINCE.pack_into(self.beat, 0, 0.0)

    def _alarm(self, signum: int, frame: object) -> None:
        from pe_verify.properties.battery import CallTimeout

        if self.armed:
            self.armed = False
            raise CallTimeout(self.seconds)

    def _unraisable(self, unraisable: Any) -> None:
        """`sys.unraisablehook`: a swallowed `CallTimeout` is raised again soon (while the call runs), not
        printed; anything else goes to the hook there was before."""
        from pe_verify.properties.battery import CallTimeout

        if not isinstance(unraisable.exc_value, CallTimeout):
            self.unraisable(unraisable)
        elif self.inside and os.getpid() == self.owner:
            self.armed = True
            signal.setitimer(signal.ITIMER_REAL, RETRY_SECONDS)


# ------------------------------------------------------------------------------ the calling process


class _Server:
    """The fork server of this process, and the heartbeat its children write. It works whichever standard
    descriptors this process lacks: what it passes the server is numbered 3 or more (a closed stdin, stdout
    or stderr lets a file or a socket take that number, which the server's own stdin, stdout and stderr would
    replace), and the server's stderr is this process's only if it has one."""

    def __init__(self) -> None:
        self.heartbeat = tempfile.TemporaryFile()  # noqa: SIM115  (kept open with the server)
        self.heartbeat.truncate(_HEARTBEAT_BYTES)
        self.beat = mmap.mmap(self.heartbeat.fileno(), _HEARTBEAT_BYTES)
        ours, theirs = socket.socketpair()
        opened = (theirs.fileno(), self.heartbeat.fileno(), ours.fileno())
        fds = tuple(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3) for fd in opened[:2])
        theirs.close()
        # without a stderr (started so, or fd 2 was free just now and is one of ours) the server has none
        stderr = subprocess.DEVNULL if sys.__stderr__ is None or 2 in opened else None
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # so it starts ignoring SIGINT
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", _SERVER_CODE, *map(str, fds)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                pass_fds=fds,
            )
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
            for fd in fds:
                os.close(fd)
        self.channel, self.frames = ours, _Frames()
        self.running = False  # from sending a job to its ("ended")
        atexit.register(self.close)

    def close(self) -> None:
        """End the server: killed at once when no child runs (it may still be importing), else told to
        end, which it does after killing the child."""
        atexit.unregister(self.close)
        self.channel.close()
        if not self.running:
            self.process.kill()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.beat.close()
        self.heartbeat.close()

    def send(self, message: object, fds: tuple[int, ...] = ()) -> None:
        frame = _frame(message)
        rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
        self.channel.sendall(frame[self.channel.sendmsg([frame], rights) :])

    def receive(self) -> None:
        """Read what the server replied (`frames.ready`)."""
        data = self.channel.recv(1 << 16)
        if not data:
            raise RuntimeError("the fork server of `pe-verify check` ended unexpectedly")
        self.frames.feed(data)

    def reply(self) -> Any:
        """The server's next reply."""
        while not self.frames.ready:
            self.receive()
        return self.frames.ready.popleft()

    def since(self) -> float:
        """When the child's current call of the implementation began (0 when none is running)."""
        return _SINCE.unpack_from(self.beat, 0)[0]

    def latest_call(self) -> str:
        (length,) = _LENGTH.unpack_from(self.beat, _SINCE.size)
        return bytes(self.beat[_TEXT : _TEXT + length]).decode("utf-8", "replace")


_lock = threading.Lock()
_server: _Server | None = None
_in_child = False  # set in a child: an implementation that runs `check` when imported would fork without end


def start() -> None:
    """Start the fork server now (it takes about a second of imports), so that it imports while the caller
    does; `run` starts it otherwise."""
    with _lock:
        _started()


def _started() -> _Server:
    """The fork server, started anew when there is none or it has ended."""
    global _server
    if _in_child:
        raise RuntimeError("pe-verify check cannot run inside an implementation it is checking")
    if _server is not None and _server.process.poll() is not None:
        _discard()
    if _server is None:
        _server = _Server()
    return _server


def _discard() -> None:
    """End the server after a run that stopped midway (its replies are unknown): the next run starts one."""
    global _server
    if _server is not None:
        _server.close()
        _server = None


@dataclass
class _Ending:
    """How a child ended: its wait status, whether it was killed for running past the time limit, the
    latest call of the implementation and whether that call was still running."""

    status: int
    timed_out: bool
    call: str
    in_call: bool


class _Run:
    """The messages of one run's children, gathered into the parts of its report; what the children write
    to stdout is counted, what they write to stderr is shown on this process's stderr (`sys.stderr`, as
    UTF-8 text, dropped if it cannot be written). The steps are the screens of `screens` sizes (as many as
    the child says it screens when ready: an implementation may hold its own), then the properties `names`
    (each reported to `progress`), then the identification."""

    def __init__(self, screens: int, names: list[str], progress: Callable[[str], None] | None) -> None:
        self.screens, self.names, self.progress = screens, names, progress or (lambda step: None)
        self.outcomes: list[Any] = []
        self.failed: list[Any] = []  # the outcomes of the sizes screened out
        self.found: list[Any] | None = None
        self.identified: Any = None
        self.position = 0  # the step running, or the next one
        self.ready = False
        self.prepared: tuple[Any, Any] = (None, None)  # `battery.Prepared.handed` and `.settings`
        self.usage: str | None = None
        self.error: tuple[str, str] | None = None
        self.written = 0

    def handle(self, message: tuple) -> None:
        kind = message[0]
        if kind == "ready":  # with the count of sizes screened: those the implementation holds, if it does
            self.ready, self.screens = True, message[1]
        elif kind == "start":
            self.position = message[1]
        elif kind == "done":
            self.record(message[1], message[2])
            self.position = message[1] + 1
        elif kind == "identified":
            self.identified, self.found = message[1], list(message[2])
            self.progress("identification")
        elif kind == "prepared":
            self.prepared = message[1:]
        elif kind == "usage":
            self.usage = message[1]
        else:
            self.error = message[1:]

    def record(self, step: int, outcome: Any) -> None:
        """The outcome of step `step`: a property's, or a screen's (None for a size kept)."""
        if outcome is not None:
            self.outcomes.append(outcome)
        if step < self.screens:
            if outcome is not None:
                self.failed.append(outcome)
        else:
            self.progress(self.names[step - self.screens])

    def child(self, server: _Server, job: _Job) -> _Ending:
        """Run `job` in a new child, handling its messages (only those its own pid sent), counting what it
        writes to stdout and showing what it writes to stderr. The server reports its end only once
        everything the child started is gone, so the pipes are then read to their end."""
        pipes = [os.pipe() for _ in range(3)]  # messages, stdout, stderr: (ours, the child's)
        ours = {fd: kind for (fd, _), kind in zip(pipes, ("messages", "stdout", "stderr"), strict=True)}
        _SINCE.pack_into(server.beat, 0, 0.0)
        _LENGTH.pack_into(server.beat, _SINCE.size, 0)
        server.running = True
        try:
            server.send(("job", job), tuple(end for _, end in pipes))
        finally:
            for _, end in pipes:
                os.close(end)
        frames, killed, reading = _Frames(), False, set(ours)
        decoder = codecs.getincrementaldecoder("utf-8")("backslashreplace")
        tick, grace = min(0.1, job.limits.timeout / 4), min(GRACE_SECONDS, job.limits.timeout)
        try:
            with selectors.DefaultSelector() as selector:
                for fd in (*ours, server.channel):
                    selector.register(fd, selectors.EVENT_READ)
                _, pid = server.reply()  # ("forked", pid)
                while not server.frames.ready:  # until ("ended", status)
                    for key, _ in selector.select(tick):
                        if key.fileobj is server.channel:
                            server.receive()
                        elif not self._read(key.fd, ours[key.fd], pid, frames, decoder):
                            selector.unregister(key.fd)
                            reading.discard(key.fd)
                    since = server.since()
                    if since and not killed and time.monotonic() - since > job.limits.timeout + grace:
                        server.send(("kill",))
                        killed = True
            _, status = server.reply()
            server.running = False
            for fd in reading:  # what is left in the pipes: every writer is gone
                os.set_blocking(fd, False)
                while self._read(fd, ours[fd], pid, frames, decoder):
                    pass
            _show(decoder.decode(b"", True))
        finally:
            for fd in ours:
                os.close(fd)
        return _Ending(status, killed, server.latest_call(), server.since() != 0.0)

    def _read(
        self, fd: int, kind: str, pid: int, frames: _Frames, decoder: codecs.IncrementalDecoder
    ) -> bool:
        """Read from `fd`: stdout counted, stderr shown, messages handled when child `pid` sent them;
        False at its end (or nothing left)."""
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            return False
        if kind == "stdout":
            self.written += len(data)
        elif kind == "stderr":
            _show(decoder.decode(data))
        else:
            frames.feed(data)
            while frames.ready:
                sender, message = frames.ready.popleft()
                if sender == pid:
                    self.handle(message)
        return bool(data)


def _show(text: str) -> None:
    """Write `text` (what a child wrote to stderr) to this process's stderr; nothing when it cannot be."""
    if text and sys.stderr is not None:
        with contextlib.suppress(Exception):
            sys.stderr.write(text)
            sys.stderr.flush()


def _how(status: int) -> tuple[str, str]:
    """The label and the words for a wait status: an exit, or a signal."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        note = " (from outside, or by the system out of memory)" if number == signal.SIGKILL else ""
        return "target-crashed", f"crashed the process: killed by {name}{note}"
    return "target-exited", f"ended the process with exit status {os.WEXITSTATUS(status)}"


def _cause(ending: _Ending, limits: Limits) -> tuple[str, str]:
    """The label and detail of a child that ended before its job was done."""
    if ending.timed_out:
        detail = (
            f"ran past the time limit of {limits.timeout:g} s and did not stop, so its process was killed"
        )
        return "timeout", f"{ending.call} {detail}"
    label, how = _how(ending.status)
    if ending.in_call:
        return label, f"{ending.call} {how}"
    after = f"after {ending.call} returned" if ending.call else "before any call of the implementation"
    return label, f"the implementation {how} {after}"


def run(
    family: str,
    target: str,
    settings: Any,
    backend: str = "auto",
    limits: Limits | None = None,
    progress: Callable[[str], None] | None = None,
) -> Any:
    """The battery's `Report` on `target`, run in child processes (see the module docstring);
    `progress(step)` after each property and after the identification; `limits` default to `Limits()`.
    `TargetError` for a target that cannot be loaded or fits no contract."""
    from pe_verify.check import TargetError
    from pe_verify.properties import battery

    limits = limits or Limits()
    names = [p.name for p in battery.properties_of(family)]
    spec = battery.family_spec(family)
    sizes = battery.screen_sizes(spec, settings)
    state = _Run(len(sizes), names, progress)
    with _lock:
        while True:
            state.ready = False
            job = _Job(
                family,
                spec.module,
                target,
                settings,
                backend,
                state.position,
                tuple(state.failed),
                limits,
                os.getcwd(),
                [*sys.path],
                {**os.environ},
            )
            try:
                ending = state.child(_started(), job)
            except BaseException:
                _discard()
                raise
            if state.usage is not None:
                raise TargetError(state.usage)
            if state.error is not None:
                summary, text = state.error
                raise RuntimeError(
                    f"the battery failed in its child process: {summary}"
                ) from _RemoteTraceback(text)
            if state.found is not None:
                break
            if not state.ready:
                if ending.timed_out:  # its import ran on past the time limit and was killed
                    raise TargetError(f"{_cause(ending, limits)[1]} (--timeout)")
                raise TargetError(f"loading {target} {_how(ending.status)[1]}")
            label, detail = _cause(ending, limits)
            step = state.position
            if step < len(sizes) + len(names):
                state.record(
                    step,
                    battery.contract_outcome(spec, sizes[step], label, detail)
                    if step < len(sizes)
                    else battery.cut_short(names[step - len(sizes)], label, detail),
                )
                state.position += 1
            else:
                state.found = [battery.finding(label, detail)]
                state.progress("identification")
    found = state.found
    if state.written:
        found.append(battery.finding("writes-stdout", f"it wrote {state.written} bytes to stdout"))
    return battery.assemble(target, family, state.outcomes, state.identified, found, *state.prepared)
