"""Certified separation in chunks when things go wrong: every wait has a bound. An address that is not a Dask
scheduler's (a listener that never answers, an HTTP server, ucx:// without UCX, tls:// without TLS settings,
ws:// to another server) is exit 2 in one line naming it, within the handshake's deadline; a worker that is
stopped, killed, restarted by its nanny or paused, locally or on a Dask cluster, is noticed, and the run gives
the single run's answer or is refused in one line within a stated bound; a lost scheduler is one line, with
none of Dask's log; and a run killed by SIGTERM, SIGHUP or SIGKILL leaves no worker or resource tracker.

Every cluster, server and process of these tests is bounded by timeouts and stopped by its pid at the end."""

from __future__ import annotations

import contextlib
import http.server
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pe_verify import cli
from pe_verify.properties.analyses import separation_chunks
from pe_verify.properties.analyses.separation import certified_separation
from pe_verify.properties.analyses.separation_chunks import chunked_separation
from pe_verify.properties.encodings.sinusoidal import Sinusoidal

#: Where the command's processes start: a folder without a `pe_verify` of its own to shadow the installed one.
HERE = Path(__file__).resolve().parent

#: A run of some seconds: d = 512 beyond its longest wavelength, screened offset by offset (about 6 s on two
#: workers here), long enough for a fault to land in the middle of it.
LONG = [
    "--d",
    "512",
    "--from-offset",
    "60612",
    "--max-offset",
    "2147483648",
    "--max-minutes",
    "1000",
    "--quiet",
]


# ------------------------------------------------------------------------------------------- helpers


def _bounded(function: Callable[[], object], seconds: float) -> tuple[object, float]:
    """`function()` in a thread, waited for `seconds` at most: its value and the seconds it took. A call that
    is still running then fails the test (it is left behind in a daemon thread); an exception it raised is
    raised here."""
    outcome: dict[str, object] = {}

    def call() -> None:
        try:
            outcome["value"] = function()
        except BaseException as exc:
            outcome["error"] = exc

    started = time.monotonic()
    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(seconds)
    elapsed = time.monotonic() - started
    assert not thread.is_alive(), f"still waiting after {seconds} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value"), elapsed


try:
    import psutil
except ImportError:  # the test extra alone: read /proc
    psutil = None


def _state(pid: int) -> str:
    """A process's one-letter state (R, S, T for stopped, Z for a zombie, ...), or "" when there is none."""
    if psutil is not None:
        try:
            status = psutil.Process(pid).status()
        except psutil.NoSuchProcess:
            return ""
        return {psutil.STATUS_ZOMBIE: "Z", psutil.STATUS_STOPPED: "T", psutil.STATUS_TRACING_STOP: "t"}.get(
            status, "R"
        )
    try:
        return Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()[0].decode()
    except (OSError, IndexError):
        return ""


def _alive(pid: int) -> bool:
    """Whether a process exists and is not a zombie (a zombie has ended; only its exit status is left)."""
    return _state(pid) not in ("", "Z")


def _stopped(pid: int) -> bool:
    return _state(pid) in ("T", "t")


def _children(pid: int | None = None) -> dict[int, str]:
    """The live descendants of a process (this one by default), pid: command line (psutil's, else /proc's)."""
    root = os.getpid() if pid is None else pid
    if psutil is not None:
        found = {}
        with contextlib.suppress(psutil.NoSuchProcess):
            for child in psutil.Process(root).children(recursive=True):
                with contextlib.suppress(psutil.NoSuchProcess):
                    if child.status() != psutil.STATUS_ZOMBIE:
                        found[child.pid] = " ".join(child.cmdline())
        return found
    table: dict[int, tuple[int, str]] = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = Path(f"/proc/{entry}/stat").read_bytes().rpartition(b")")[2].split()
            command = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if fields[0] != b"Z":
            table[int(entry)] = (int(fields[1]), command)
    found, parents = {}, {root}
    while parents:
        parents = {pid for pid, (ppid, _) in table.items() if ppid in parents and pid not in found}
        found.update({pid: table[pid][1] for pid in parents})
    return found


def _started_here(before: set[int]) -> set[int]:
    """The processes under this one that were not there `before`, but for this process's multiprocessing
    resource tracker (started once, on its first spawn, and kept for the life of the process)."""
    return {
        pid for pid, command in _children().items() if pid not in before and "resource_tracker" not in command
    }


def _kill(pids: Iterator[int] | set[int]) -> None:
    """SIGKILL each process (a stopped one too) by its pid; one already gone is passed over."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def _workers(pid: int | None = None) -> list[int]:
    """The multiprocessing worker processes among a process's descendants (not its resource tracker)."""
    return sorted(pid for pid, command in _children(pid).items() if "spawn_main" in command)


def _wait_for(predicate: Callable[[], object], seconds: float, what: str) -> object:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"{what} did not happen within {seconds} s")


@pytest.fixture
def leave_no_process() -> Iterator[None]:
    """Every process this test started that is still alive at its end is killed by pid; and the environment a
    LocalCluster's nannies write into this process is restored."""
    before, saved = set(_children()), dict(os.environ)
    try:
        yield
    finally:
        _kill(_started_here(before))
        os.environ.clear()
        os.environ.update(saved)


#: `pe-verify` with some of `separation_chunks`' constants set first (a JSON object in argv[1]); run with -c,
#: so that spawned workers do not run it again.
PATCHED = (
    "import json, sys\n"
    "from pe_verify.properties.analyses import separation_chunks\n"
    "for name, value in json.loads(sys.argv[1]).items():\n"
    "    setattr(separation_chunks, name, value)\n"
    "from pe_verify.cli import main\n"
    "sys.exit(main(sys.argv[2:]))\n"
)


def _command(
    argv: list[str], constants: dict[str, float], seconds: float, started: Callable[[int], None] | None = None
) -> tuple[int, str, str, float]:
    """`pe-verify *argv` in a process of its own, `constants` set: its exit status, stdout, stderr and the
    seconds it took, waited for `seconds` at most (else the test fails). `started(pid)` is called once it
    runs. The process and every process under it are killed by pid at the end."""
    command = [sys.executable, "-c", PATCHED, json.dumps(constants), *argv]
    run = subprocess.Popen(command, cwd=HERE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    begun, tracked = time.monotonic(), {run.pid}
    try:
        if started is not None:
            started(run.pid)
        tracked |= set(_children(run.pid))
        try:
            out, err = run.communicate(timeout=seconds)
        except subprocess.TimeoutExpired:
            tracked |= set(_children(run.pid))
            raise AssertionError(f"pe-verify {' '.join(argv)} still ran after {seconds} s") from None
        return run.returncode, out, err, time.monotonic() - begun
    finally:
        _kill(pid for pid in tracked if _alive(pid))
        with contextlib.suppress(subprocess.TimeoutExpired):
            run.communicate(timeout=10)


def _one_line(capfd: pytest.CaptureFixture[str]) -> str:
    """The one line the command wrote on stderr (nothing else, on stdout or stderr)."""
    out, err = capfd.readouterr()
    assert out == "" and len(err.splitlines()) == 1, err
    return err


# ---------------------------------------------------------------------------------- scheduler addresses


@pytest.fixture
def silent_listener() -> Iterator[int]:
    """A TCP port on 127.0.0.1 that accepts connections and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.settimeout(0.05)
    held: list[socket.socket] = []
    done = threading.Event()

    def accept() -> None:
        while not done.is_set():
            with contextlib.suppress(TimeoutError, socket.timeout):
                held.append(server.accept()[0])

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        done.set()
        thread.join(5)
        server.close()
        for connection in held:
            connection.close()


class _Quiet(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"<html>a dashboard</html>")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def http_server() -> Iterator[int]:
    """A tiny HTTP server on 127.0.0.1 (like a Dask dashboard's port)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Quiet)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _refused(address: str, capfd: pytest.CaptureFixture[str], bound: float) -> str:
    """Run the command against `address`: exit 2 within `bound` seconds, one line naming the address."""
    pytest.importorskip("distributed")
    argv = [
        "separation",
        "--d",
        "6",
        "--max-offset",
        "1000",
        "--chunks",
        "2",
        "--scheduler",
        address,
        "--quiet",
    ]
    status, elapsed = _bounded(lambda: cli.main(argv), bound + 10)
    err = _one_line(capfd)
    assert status == 2 and elapsed < bound, (status, elapsed, err)
    assert f"the Dask cluster at {address}: " in err
    return err


def test_a_listener_that_never_answers_is_refused_within_the_handshake_deadline(
    silent_listener: int, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(separation_chunks, "CONNECT_SECONDS", 1)
    err = _refused(f"tcp://127.0.0.1:{silent_listener}", capfd, bound=6)
    assert "no Dask scheduler answered there within 1 s" in err


@pytest.mark.parametrize("scheme", ["tcp", "ws"])
def test_an_http_server_is_not_taken_for_a_scheduler(
    scheme: str, http_server: int, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(separation_chunks, "CONNECT_SECONDS", 1)
    _refused(f"{scheme}://127.0.0.1:{http_server}", capfd, bound=6)


@pytest.mark.parametrize(("scheme", "needs"), [("ucx", "UCX"), ("tls", "TLS settings")])
def test_a_scheme_dask_cannot_use_here_is_a_usage_error(
    scheme: str,
    needs: str,
    http_server: int,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(separation_chunks, "CONNECT_SECONDS", 1)
    err = _refused(f"{scheme}://127.0.0.1:{http_server}", capfd, bound=6)
    if scheme != "ucx" or importlib.util.find_spec("distributed_ucxx") is None:
        assert needs in err


# ------------------------------------------------------------------------------------ local processes


def _spawned(signum: int, before: set[int]) -> Callable[[object], None]:
    """An `on_chunk` that sends `signum` once, after the first chunk is done, to one of the run's worker
    processes (started since `before`); the pid it chose is appended to the returned function's `pids`."""
    pids: list[int] = []

    def on_chunk(_: object) -> None:
        if not pids:
            pids.append(next(pid for pid in _workers() if pid not in before))
            os.kill(pids[0], signum)

    on_chunk.pids = pids  # type: ignore[attr-defined]
    return on_chunk


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGSTOP, signal.SIGKILL], ids=["SIGSTOP", "SIGKILL"])
def test_a_local_worker_stopped_or_killed_mid_run_is_noticed_and_its_chunk_runs_again(
    signum: int, leave_no_process: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(separation_chunks, "STOPPED_SECONDS", 1, raising=False)
    encoding, first, stop = Sinusoidal(512, "10000"), 1, 2**34
    on_chunk = _spawned(signum, set(_children()))
    run = lambda: chunked_separation(encoding, stop, first, chunks=8, workers=2, on_chunk=on_chunk)  # noqa: E731
    found, _ = _bounded(run, 60)
    assert found.audit == () and certified_separation(encoding, stop, first).same_answer(found.separation)
    assert on_chunk.pids and not _alive(on_chunk.pids[0])  # the stopped worker was ended, not waited for


@pytest.mark.slow
def test_a_local_worker_stopped_past_its_last_try_is_one_line_and_exit_3() -> None:
    workers: list[int] = []

    def stop_one(pid: int) -> None:
        workers.extend(_wait_for(lambda: _workers(pid), 30, "a worker process"))
        os.kill(workers[0], signal.SIGSTOP)

    argv = ["separation", *LONG, "--workers", "2", "--chunks", "8"]
    status, out, err, took = _command(argv, {"STOPPED_SECONDS": 1, "ATTEMPTS": 1}, 60, stop_one)
    assert status == 3 and out == "" and len(err.splitlines()) == 1, err
    assert "stayed stopped" in err and "(try 1 of 1)" in err and took < 30
    assert not any(_alive(pid) for pid in workers)


def _killed_run(signum: int) -> None:
    """`pe-verify separation --workers 2` in a process of its own, sent `signum` once its two workers and its
    resource tracker run: it ends by that signal within 10 s, and none of them survives it by 10 s."""
    argv = [sys.executable, "-m", "pe_verify.cli", "separation", *LONG, "--workers", "2", "--chunks", "8"]
    # the signal's default action, whatever this process inherited (under nohup SIGHUP is ignored, and a
    # command started so rightly keeps running)
    run = subprocess.Popen(
        argv,
        cwd=HERE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=None if signum == signal.SIGKILL else lambda: signal.signal(signum, signal.SIG_DFL),
    )
    tracked: set[int] = set()
    try:

        def started() -> dict[int, str]:
            found = _children(run.pid)
            workers = [pid for pid, command in found.items() if "spawn_main" in command]
            return found if len(workers) == 2 and any("resource_tracker" in c for c in found.values()) else {}

        tracked = set(_wait_for(started, 60, "two workers and a resource tracker"))
        run.send_signal(signum)
        assert run.wait(timeout=10) == -signum, run.stderr.read() if run.stderr else ""
        _wait_for(lambda: not any(_alive(pid) for pid in tracked), 10, "every worker and the tracker ending")
    finally:
        _kill(pid for pid in tracked | {run.pid} if _alive(pid))
        with contextlib.suppress(subprocess.TimeoutExpired):
            run.wait(timeout=5)
        if run.stderr:
            run.stderr.close()


@pytest.mark.parametrize(
    "signum",
    [
        signal.SIGTERM,
        pytest.param(signal.SIGHUP, marks=pytest.mark.slow),
        pytest.param(signal.SIGKILL, marks=pytest.mark.slow),
    ],
    ids=["SIGTERM", "SIGHUP", "SIGKILL"],
)
def test_a_killed_run_leaves_no_worker_and_no_resource_tracker(signum: int) -> None:
    _killed_run(signum)


# ---------------------------------------------------------------------------------------- Dask cluster


@contextlib.contextmanager
def _cluster(**kwargs: object) -> Iterator[object]:
    """A LocalCluster of worker processes in this process (no dashboard), closed within 30 s; the processes
    it started are killed by pid (a stopped one before it closes, any other left after)."""
    distributed = pytest.importorskip("distributed")
    kwargs = {"n_workers": 1, "threads_per_worker": 1, "processes": True, "dashboard_address": ":0", **kwargs}
    before = set(_children())
    cluster = distributed.LocalCluster(**kwargs)
    try:
        yield cluster
    finally:
        _kill(pid for pid in _started_here(before) if _stopped(pid))
        with contextlib.suppress(Exception):
            cluster.close(timeout=30)
        _kill(_started_here(before))


def _when_a_chunk_runs(cluster: object, then: Callable[[int, str], None]) -> threading.Thread:
    """A thread that waits (30 s at most) until the scheduler of `cluster` has a chunk of the run processing
    on a worker, then calls `then(pid, address)` of that worker."""

    def watch() -> None:
        def processing() -> tuple[int, str] | None:
            for task in list(cluster.scheduler.tasks.values()):
                where = task.processing_on
                if "chunk" in str(task.key) and where is not None:
                    return where.pid, where.address
            return None

        with contextlib.suppress(AssertionError):
            then(*_wait_for(processing, 30, "a chunk running"))

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


@pytest.mark.slow
def test_the_only_dask_worker_stopped_mid_run_is_refused_in_one_line(leave_no_process: None) -> None:
    stopped: list[float] = []

    def stop(pid: int, _: str) -> None:
        os.kill(pid, signal.SIGSTOP)
        stopped.append(time.monotonic())

    with _cluster() as cluster:
        address = cluster.scheduler_address
        _when_a_chunk_runs(cluster, stop)
        constants = {"SILENT_SECONDS": 2, "REJOIN_SECONDS": 2}
        status, out, err, _ = _command(["separation", *LONG, "--scheduler", address], constants, 90)
        took = time.monotonic() - stopped[0]
    assert status == 3 and out == "" and len(err.splitlines()) == 1, err
    assert f"the Dask cluster at {address}: worker tcp://" in err
    assert "was not heard from for 2 s (stopped or cut off)" in err and "no other worker" in err
    assert took < 20  # 2 s unheard, 2 s for another worker, a look at the workers each second


@pytest.mark.slow
def test_the_only_dask_worker_killed_mid_run_is_restarted_checked_and_used(leave_no_process: None) -> None:
    encoding, first, stop = Sinusoidal(512, "10000"), 1, 2**34
    with _cluster() as cluster:
        address = cluster.scheduler_address
        _when_a_chunk_runs(cluster, lambda pid, _: os.kill(pid, signal.SIGKILL))
        run = lambda: chunked_separation(encoding, stop, first, chunks=8, scheduler=address)  # noqa: E731
        found, _ = _bounded(run, 120)
        assert len(cluster.scheduler.workers) == 1  # the nanny's new worker, at a new address
    assert found.audit == () and certified_separation(encoding, stop, first).same_answer(found.separation)


@pytest.mark.slow
def test_a_dask_worker_restarted_by_its_nanny_is_checked_again_and_used(leave_no_process: None) -> None:
    distributed = pytest.importorskip("distributed")
    encoding, first, stop = Sinusoidal(512, "10000"), 1, 2**34
    with _cluster() as cluster, distributed.Client(cluster, timeout=30, set_as_default=False) as client:
        address = cluster.scheduler_address
        restarted: list[str] = []

        def restart(_: int, worker: str) -> None:
            client.restart_workers([worker], timeout=30)
            restarted.append(worker)

        _when_a_chunk_runs(cluster, restart)
        run = lambda: chunked_separation(encoding, stop, first, chunks=8, scheduler=address)  # noqa: E731
        found, _ = _bounded(run, 120)
        assert restarted and restarted[0] not in cluster.scheduler.workers
    assert found.audit == () and certified_separation(encoding, stop, first).same_answer(found.separation)


@pytest.mark.slow
def test_the_only_dask_worker_lost_without_a_nanny_is_refused_in_one_line(leave_no_process: None) -> None:
    with _cluster(n_workers=0) as cluster:
        address = cluster.scheduler_address
        argv = [sys.executable, "-m", "distributed.cli.dask_worker", address, "--no-nanny", "--nthreads", "1"]
        worker = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait_for(lambda: cluster.scheduler.workers, 60, "the worker joining")
            _when_a_chunk_runs(cluster, lambda pid, _: os.kill(pid, signal.SIGKILL))
            command = ["separation", *LONG, "--scheduler", address]
            status, out, err, took = _command(command, {"REJOIN_SECONDS": 2}, 90)
        finally:
            worker.kill()
            worker.wait(timeout=10)
    assert status == 3 and out == "" and len(err.splitlines()) == 1, err
    assert "left the cluster while certifying chunk" in err and "no other worker" in err and took < 40


@pytest.mark.slow
def test_the_only_dask_worker_paused_by_its_memory_limit_is_refused_in_one_line(
    leave_no_process: None,
) -> None:
    dask = pytest.importorskip("dask")
    paused = {
        "distributed.worker.memory.target": False,
        "distributed.worker.memory.spill": False,
        "distributed.worker.memory.pause": 0.01,
        "distributed.worker.memory.terminate": False,
        "distributed.worker.memory.monitor-interval": "20ms",
    }
    with dask.config.set(paused), _cluster(memory_limit="2 GiB") as cluster:
        address = cluster.scheduler_address
        _wait_for(
            lambda: [w for w in cluster.scheduler.workers.values() if w.status.name == "paused"],
            30,
            "a pause",
        )
        command = ["separation", *LONG, "--scheduler", address]
        status, out, err, took = _command(command, {"REJOIN_SECONDS": 2}, 60)
    assert status == 2 and out == "" and len(err.splitlines()) == 1, err
    assert "paused (Dask's memory limit)" in err and took < 20


@pytest.mark.slow
def test_a_lost_scheduler_is_one_line_with_none_of_dasks_log(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    script = (
        "import time\n"
        "import distributed\n"
        "if __name__ == '__main__':\n"
        "    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=':0')\n"
        "    print(cluster.scheduler_address, flush=True)\n"
        "    while not any(\n"
        "        'chunk' in str(task.key) and task.processing_on\n"
        "        for task in list(cluster.scheduler.tasks.values())\n"
        "    ):\n"
        "        time.sleep(0.02)\n"
        "    print('a chunk runs', flush=True)\n"
        "    time.sleep(600)\n"
    )
    (tmp_path / "cluster.py").write_text(script)
    host = subprocess.Popen(
        [sys.executable, "cluster.py"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    lost: list[float] = []
    try:
        address = _bounded(host.stdout.readline, 60)[0].strip()

        def kill_the_scheduler(_: int) -> None:
            assert _bounded(host.stdout.readline, 60)[0] == "a chunk runs\n"
            _kill({host.pid, *_children(host.pid)})
            lost.append(time.monotonic())

        command = ["separation", *LONG, "--scheduler", address]
        status, out, err, _ = _command(command, {}, 90, kill_the_scheduler)
        took = time.monotonic() - lost[0]
    finally:
        _kill(pid for pid in {host.pid, *_children(host.pid)} if _alive(pid))
        with contextlib.suppress(subprocess.TimeoutExpired):
            host.communicate(timeout=10)
    assert status == 3 and out == "" and len(err.splitlines()) == 1, err
    assert f"the Dask cluster at {address}: the connection to its scheduler was lost" in err and took < 15
