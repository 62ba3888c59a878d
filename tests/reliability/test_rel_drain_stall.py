"""`traductor serve` as a process, stopped with things a deployment leaves open (issue 47): idle
connections do not hold the stop for its grace period; a stop or a start that overruns says where it
waits (service/stall.py); engine processes left alive after the stop do not keep the process from
exiting."""

from __future__ import annotations

import http.client
import os
import re
import signal
import socket
import time

from rel_harness import stub_of
from rel_process import ServeProcess
from server_harness import free_port
from test_rel_drain import STUCK_LOADING

from traductor_client.v1 import translator_pb2 as pb

H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"  # + empty SETTINGS
GRACE = 60.0  # longer than any of these tests waits: a stop that waits for it fails them

# Put first on the server's PYTHONPATH: shutdown blocks in Registry.stop (the event loop's thread)
# until the test opens the FIFO for writing: a stop that never finishes, for as long as the test wants.
STUCK_STOPPING = """
import os
import traductor.service.registry as registry

_stop = registry.Registry.stop


def blocked_stop(self):
    with open(os.environ["REL_TEST_STOP_FIFO"]):
        pass
    _stop(self)


registry.Registry.stop = blocked_stop
"""

# Shutdown forgets the engines: Registry.stop stops none of them, as a restart or a reload cut
# short by the stop would leave one.
ENGINES_FORGOTTEN = """
import traductor.service.registry as registry

registry.Registry.stop = lambda self: None
"""


# In each engine process (a spawned child: --multiprocessing-fork), its exit waits until every
# engine process has begun to exit (a file per process in REL_TEST_BARRIER): if the front waited
# for one before telling the next to stop, the first would wait in vain and be killed at 10 s.
ENGINES_EXIT_TOGETHER = """
import os
import sys
import time

if "--multiprocessing-fork" in sys.argv:
    import traductor.engine.process as process

    _exit_now = process.exit_now

    def exit_now():
        folder = os.environ["REL_TEST_BARRIER"]
        open(os.path.join(folder, str(os.getpid())), "w").close()
        end = time.monotonic() + 60
        while len(os.listdir(folder)) < int(os.environ["REL_TEST_ENGINES"]) and time.monotonic() < end:
            time.sleep(0.01)
        _exit_now()

    process.exit_now = exit_now
"""


def _hooked(tmp_path, monkeypatch, code: str) -> None:
    (tmp_path / "sitecustomize.py").write_text(code)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))


def _wait_for_log(path, pattern: str, p: ServeProcess, timeout: float = 60) -> str:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        text = path.read_text(errors="replace")
        if re.search(pattern, text):
            return text
        if p.proc.poll() is not None:
            break
        time.sleep(0.05)
    raise AssertionError(f"{pattern!r} not in the log:\n{path.read_text(errors='replace')[-3000:]}")


def _alive(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(") ", 1)[1][0]
    except (OSError, IndexError):
        return False
    return state not in "ZX"


def _serving(tiny_bundle, log, *flags) -> ServeProcess:
    p = ServeProcess(tiny_bundle, log, *flags)
    assert p.wait_status("SERVING", timeout=180), log.read_text()[-3000:]
    return p


def test_idle_connections_do_not_hold_the_stop(tiny_bundle, tmp_path):
    """What a balancer, a scraper and a slow peer keep open (an idle gRPC channel, an HTTP/2
    connection that never answers GOAWAY, a bare TCP connection, keep-alive HTTP connections to
    the HTTP API and /metrics) does not keep a stop with nothing in flight waiting for its grace
    period: exit 0 long before it. (gRPC's own stop waits for every connection to close.)"""
    http_port = free_port()
    log = tmp_path / "serve.log"
    p = _serving(tiny_bundle, log, "--drain-seconds", str(GRACE), "--http-port", str(http_port))
    held = []
    try:
        assert stub_of(p.channel).Translate(pb.TranslateRequest(text="uno dos"), timeout=30).text
        for payload in (H2_PREFACE, b""):
            s = socket.create_connection(("127.0.0.1", p.port))
            s.sendall(payload)
            held.append(s)
        for port, path in ((http_port, "/languages"), (p.metrics_port, "/metrics")):
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            c.request("GET", path)
            assert c.getresponse().read()
            held.append(c)
        p.proc.send_signal(signal.SIGTERM)
        assert p.proc.wait(timeout=GRACE / 3) == 0, log.read_text()[-3000:]
        assert re.search(r"stopped: drained in \d+\.\d+ s", log.read_text())
    finally:
        for h in held:
            h.close()
        p.close()


def test_a_stuck_stop_writes_where_it_waits(tiny_bundle, tmp_path, monkeypatch):
    """A stop still running after the pre-stop window, the grace period and the margin writes every
    thread's stack (the stuck one in the hook), the asyncio tasks, and the engine processes still
    alive with their own threads' stacks (SIGUSR1: faulthandler) to the log; released, it exits 0."""
    fifo = tmp_path / "stop.fifo"
    os.mkfifo(fifo)
    monkeypatch.setenv("REL_TEST_STOP_FIFO", str(fifo))
    _hooked(tmp_path, monkeypatch, STUCK_STOPPING)
    log = tmp_path / "serve.log"
    p = _serving(tiny_bundle, log, "--drain-seconds", "1")
    try:
        engine = p.engine_processes()
        assert len(engine) == 1
        p.proc.send_signal(signal.SIGTERM)
        text = _wait_for_log(log, r"engine process \d+: its threads' stacks follow", p)
        assert "stop (SIGTERM) not done after 3.0 s: where it waits" in text
        assert re.search(r"--- thread MainThread .*\n(.*\n)*.*in blocked_stop", text)
        assert re.search(r"--- task .*\n(.*\n)*.*in serve\n", text)  # the main task, in Service.drain
        assert f"--- engine process {engine[0]} (traductor-engine) alive" in text
        _wait_for_log(log, r"stacks follow \(faulthandler, SIGUSR1\)\n(.*\n)*.*engine/process\.py", p)  # its dump
        assert p.proc.poll() is None  # the report does not stop the process
        with open(fifo, "w"):
            pass
        assert p.proc.wait(timeout=30) == 0, log.read_text()[-3000:]
    finally:
        p.close()


def test_a_stuck_start_writes_where_it_waits(tiny_bundle, tmp_path, monkeypatch):
    """A start not SERVING after --start-report-seconds writes where it waits (here: loading the
    bundle, blocked on a FIFO) and goes on waiting; SIGTERM still stops it at once with status 0."""
    fifo = tmp_path / "load.fifo"
    os.mkfifo(fifo)
    monkeypatch.setenv("REL_TEST_LOAD_FIFO", str(fifo))
    _hooked(tmp_path, monkeypatch, STUCK_LOADING)
    log = tmp_path / "serve.log"
    p = ServeProcess(tiny_bundle, log, "--start-report-seconds", "1")
    try:
        text = _wait_for_log(log, r"start \(SERVING\) not done after 1\.0 s: where it waits", p)
        text = _wait_for_log(log, r"--- engine processes: none alive", p)
        assert re.search(r"--- thread traductor-load .*\n(.*\n)*.*in read_config", text), text[-3000:]
        assert re.search(r"--- task .*\n(.*\n)*.*in start\n", text)
        assert p.proc.poll() is None
        p.proc.send_signal(signal.SIGTERM)
        assert p.proc.wait(timeout=30) == 0, log.read_text()[-3000:]
    finally:
        p.close()


def test_engines_left_alive_are_killed_not_waited_for(tiny_bundle, tmp_path, monkeypatch):
    """An engine process still alive after the models were stopped (one a restart or a reload was
    starting when the stop came) is killed, with a warning: it ignores SIGTERM, so multiprocessing's
    exit (SIGTERM, then wait) would wait for it for ever."""
    _hooked(tmp_path, monkeypatch, ENGINES_FORGOTTEN)
    log = tmp_path / "serve.log"
    p = _serving(tiny_bundle, log, "--drain-seconds", str(GRACE))
    try:
        engine = p.engine_processes()
        assert len(engine) == 1
        p.proc.send_signal(signal.SIGTERM)
        assert p.proc.wait(timeout=GRACE / 3) == 0, log.read_text()[-3000:]
        assert (
            f"engine process {engine[0]} (traductor-engine) still alive after the stop: killing it" in log.read_text()
        )
        assert not _alive(engine[0])
    finally:
        p.close()


def test_engines_are_told_to_stop_together(tiny_bundle, tmp_path, monkeypatch):
    """The stop tells every engine process to stop before it waits for any: two engines whose exits
    each wait for the other's both end by themselves (none killed after 10 s), exit 0."""
    repository, barrier = tmp_path / "models", tmp_path / "barrier"
    repository.mkdir(), barrier.mkdir()
    for name in ("a", "b"):
        (repository / name).symlink_to(tiny_bundle, target_is_directory=True)
    monkeypatch.setenv("REL_TEST_BARRIER", str(barrier))
    monkeypatch.setenv("REL_TEST_ENGINES", "2")
    _hooked(tmp_path, monkeypatch, ENGINES_EXIT_TOGETHER)
    log = tmp_path / "serve.log"
    p = _serving(repository, log, "--default-model", "a")
    try:
        engines = p.engine_processes()
        assert len(engines) == 2
        p.proc.send_signal(signal.SIGTERM)
        assert p.proc.wait(timeout=GRACE) == 0, log.read_text()[-3000:]
        assert sorted(int(f.name) for f in barrier.iterdir()) == sorted(engines)
        assert "killing it" not in log.read_text()
    finally:
        p.close()
