"""A local multi-worker launcher: ``tfnet-train launch --workers N -- python script.py``.

Starts N copies of a command on 127.0.0.1, each with the ``TF_CONFIG`` that
``tf.distribute.MultiWorkerMirroredStrategy`` reads (``{"cluster": {"worker": [...]}, "task": {"type": "worker",
"index": i}}``), prints their output line by line prefixed ``[worker i] ``, ends every worker as soon as one fails,
and returns the first failure's exit status.

TensorFlow's gRPC server listens on every network interface, whatever address the cluster spec names. So that a
local run does not open its worker ports to the network, the launcher runs itself and its workers in one private
network namespace whose only interface is loopback (``unshare -n``, or ``unshare -rn`` without root) when the system
allows it, and warns, naming the ports, when it does not.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TextIO

__all__ = ["free_loopback_ports", "PortReservation", "tf_config", "netns_command", "launch", "main"]

#: Exit status when the launcher's own timeout ends the run (as coreutils' ``timeout``).
TIMEOUT_STATUS = 124
#: Seconds a worker gets to end after SIGTERM before SIGKILL.
TERMINATE_GRACE = 5.0
#: Set in the re-executed launcher inside the namespace, so it neither nests another one nor warns.
_INSIDE_ENV = "TFNET_TRAIN_LAUNCH_NETNS"
#: The caller's PYTHONPATH (JSON, null when unset), restored for the workers by the re-executed launcher.
_PATH_ENV = "TFNET_TRAIN_LAUNCH_PYTHONPATH"

_GRPC_NOTE = ("TensorFlow's gRPC server listens on every network interface, whatever address the cluster spec "
              "names")


def _bind_everywhere(port: int) -> list[socket.socket]:
    """Sockets bound to ``port`` on every interface, as TensorFlow's gRPC server binds it (``0.0.0.0``, and
    ``[::]`` where this system has IPv6): a port free on loopback alone may be taken on another interface."""
    sockets = []
    try:
        ipv4 = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sockets.append(ipv4)
        ipv4.bind(("0.0.0.0", port))
        if socket.has_ipv6:
            try:
                ipv6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            except OSError:  # no IPv6 in this kernel or namespace
                return sockets
            sockets.append(ipv6)
            ipv6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                ipv6.bind(("::", ipv4.getsockname()[1]))
            except OSError as error:
                if error.errno == errno.EADDRINUSE:
                    raise
                ipv6.close()  # IPv6 present but without an address to bind: nothing to collide with
                sockets.pop()
        return sockets
    except BaseException:
        for sock in sockets:
            sock.close()
        raise


class PortReservation:
    """``count`` distinct TCP ports held bound on every interface (as TensorFlow will bind them) until
    ``release()`` or the end of the ``with`` block. The launcher releases them just before starting the workers
    that bind them, so the window in which another program could take one is the workers' start-up alone (bound,
    never listening, the ports accept no connection meanwhile)."""

    def __init__(self, count: int) -> None:
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ValueError(f"count must be a positive int, got {count!r}")
        self._held: list[socket.socket] = []
        self.ports: list[int] = []
        try:
            attempts = 0
            while len(self.ports) < count:
                attempts += 1
                try:
                    sockets = _bind_everywhere(0)
                except OSError as error:
                    if error.errno != errno.EADDRINUSE or attempts > 100 * count:
                        raise
                    continue
                self._held += sockets
                self.ports.append(sockets[0].getsockname()[1])
        except BaseException:
            self.release()
            raise

    @property
    def sockets(self) -> list[socket.socket]:
        """The bound sockets (empty once released)."""
        return list(self._held)

    def release(self) -> None:
        for sock in self._held:
            sock.close()
        self._held = []

    def __enter__(self) -> PortReservation:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def free_loopback_ports(count: int) -> list[int]:
    """``count`` distinct TCP ports free now on every interface (bound together, then released; see
    ``PortReservation`` to hold them until the workers start)."""
    with PortReservation(count) as reservation:
        return list(reservation.ports)


def tf_config(ports: Sequence[int], index: int, host: str = "127.0.0.1") -> str:
    """The ``TF_CONFIG`` JSON of worker ``index`` in a cluster of workers at ``host:port`` for each port."""
    if not 0 <= index < len(ports):
        raise ValueError(f"index must be in [0, {len(ports)}), got {index}")
    workers = [f"{host}:{port}" for port in ports]
    return json.dumps({"cluster": {"worker": workers}, "task": {"type": "worker", "index": index}})


_netns_cache: list[str] | None = None


def netns_command() -> list[str] | None:
    """The ``unshare`` prefix that gives a process a private network namespace here (``unshare -n``, else ``unshare
    -rn`` through an unprivileged user namespace), checked once by bringing loopback up in one; None when neither
    works (no ``unshare``/``ip``, no privilege, or namespaces disabled)."""
    global _netns_cache
    if _netns_cache is None:
        _netns_cache = []
        unshare, ip = shutil.which("unshare"), shutil.which("ip")
        if unshare and ip:
            for flags in (["-n"], ["-r", "-n"]):
                try:
                    probe = subprocess.run([unshare, *flags, "--", ip, "link", "set", "lo", "up"],
                                           stdin=subprocess.DEVNULL, capture_output=True, timeout=10)
                except (OSError, subprocess.TimeoutExpired):
                    continue
                if probe.returncode == 0:
                    _netns_cache = [unshare, *flags, "--", "sh", "-c", f'"{ip}" link set lo up && exec "$@"', "sh"]
                    break
    return list(_netns_cache) or None


def launch(command: Sequence[str], workers: int, *, netns: bool | None = None, timeout: float | None = None,
           env: Mapping[str, str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Runs ``command`` as ``workers`` local workers and returns 0 when all succeed, else the first failure's status.

    netns: True requires a private network namespace (ValueError when none is available), False runs on the host's
    network (with a warning), None uses one when available and warns otherwise. timeout: seconds before every worker
    is ended and the run returns 124. env: the workers' base environment (default: this process's). Worker output
    goes to ``stdout`` prefixed ``[worker i] ``; the launcher's own messages go to ``stderr`` prefixed ``[launcher] ``.
    A worker killed by signal s counts as status 128 + s.
    """
    command = list(command)
    if not command or not all(isinstance(part, str) for part in command):
        raise ValueError(f"command must be a non-empty sequence of strings, got {command!r}")
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
    out, err = stdout or sys.stdout, stderr or sys.stderr
    base_env = dict(os.environ if env is None else env)
    inside = base_env.pop(_INSIDE_ENV, None) == "1"
    if inside and _PATH_ENV in base_env:  # the workers get the caller's PYTHONPATH, not the launcher's
        caller_path = json.loads(base_env.pop(_PATH_ENV))
        base_env.pop("PYTHONPATH", None)
        if caller_path is not None:
            base_env["PYTHONPATH"] = caller_path

    if netns is not False and not inside:
        prefix = netns_command()
        if prefix is not None:
            return _relaunch_in_namespace(prefix, command, workers, timeout, base_env, out, err)
        if netns:
            raise ValueError("netns=True but no private network namespace is available here (needs `unshare` and "
                             "`ip`, and root or unprivileged user namespaces)")
    with PortReservation(workers) as reservation:
        return _announce_and_run(command, reservation, inside, timeout, base_env, out, err)


def _announce_and_run(command: list[str], reservation: PortReservation, inside: bool, timeout: float | None,
                      base_env: dict[str, str], out: TextIO, err: TextIO) -> int:
    ports = reservation.ports
    if inside:
        _say(err, f"{_GRPC_NOTE}; the workers run in a private network namespace whose only interface is loopback, "
                  "so their ports are not reachable from the network.")
    else:
        _say(err, f"warning: {_GRPC_NOTE}: while the workers run, ports {', '.join(map(str, ports))} are open on "
                  "every interface of this machine. Firewall them, or run where `unshare -n` works (root, or "
                  "unprivileged user namespaces) so the launcher confines the workers to loopback.")
    return _run_workers(command, ports, timeout, base_env, out, err, release=reservation.release)


def _relaunch_in_namespace(prefix: list[str], command: list[str], workers: int, timeout: float | None,
                           env: dict[str, str], out: TextIO, err: TextIO) -> int:
    """Runs this launcher again inside one fresh network namespace (so all workers share it and reach each other on
    its loopback) and relays its output."""
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(env)
    env[_INSIDE_ENV] = "1"
    env[_PATH_ENV] = json.dumps(env.get("PYTHONPATH"))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    inner = [sys.executable, "-m", "tfnet_train.launch", "--workers", str(workers), "--no-netns", "--end-on-stdin-eof"]
    if timeout is not None:
        inner += ["--timeout", repr(float(timeout))]
    process = subprocess.Popen([*_with_parent(prefix[0]), *prefix[1:], *inner, "--", *command], env=env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)  # its input ends when this launcher does, however it ends
    relays = [threading.Thread(target=_relay, args=(process.stdout, out, ""), daemon=True),
              threading.Thread(target=_relay, args=(process.stderr, err, ""), daemon=True)]
    for relay in relays:
        relay.start()
    try:
        status = process.wait()
    except BaseException:
        _end_all([process], grace=2 * TERMINATE_GRACE)  # the inner launcher ends its workers first
        raise
    for relay in relays:
        relay.join()
    process.stdin.close()
    return _status(status)


def _run_workers(command: list[str], ports: list[int], timeout: float | None, env: dict[str, str], out: TextIO,
                 err: TextIO, release: Callable[[], None] = lambda: None) -> int:
    lock = threading.Lock()
    processes: list[subprocess.Popen] = []
    relays: list[threading.Thread] = []
    try:
        release()  # the reserved ports, just before the workers that bind them start
        for index in range(len(ports)):
            worker_env = dict(env, TF_CONFIG=tf_config(ports, index))
            process = subprocess.Popen([*_with_parent(command[0]), *command[1:]], env=worker_env,
                                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       start_new_session=True)
            processes.append(process)
            relay = threading.Thread(target=_relay, args=(process.stdout, out, f"[worker {index}] ", lock),
                                     daemon=True)
            relay.start()
            relays.append(relay)
        _say(err, f"started {len(ports)} workers: " + ", ".join(
            f"worker {i} pid {p.pid} at 127.0.0.1:{port}" for i, (p, port) in enumerate(zip(processes, ports))))
        status = _wait_all(processes, timeout, lambda message: _say(err, message))
    except BaseException:
        _end_all(processes)
        raise
    for relay in relays:
        relay.join(TERMINATE_GRACE)  # a process a worker left behind may hold its output open
    return status


def _wait_all(processes: list[subprocess.Popen], timeout: float | None, say: Callable[[str], None]) -> int:
    """Waits until all end; at the first failure (or the timeout) ends the others. Returns the first failure's
    status, TIMEOUT_STATUS, or 0."""
    deadline = None if timeout is None else time.monotonic() + timeout
    running = dict(enumerate(processes))
    while running:
        for index, process in list(running.items()):
            code = process.poll()
            if code is None:
                continue
            del running[index]
            if code != 0:
                status = _status(code)
                say(f"worker {index} (pid {process.pid}) failed with status {status}; ending the others")
                _end_all(list(running.values()))
                return status
        if deadline is not None and time.monotonic() > deadline:
            say(f"timeout after {timeout:g} s; ending {len(running)} running worker(s)")
            _end_all(list(running.values()))
            return TIMEOUT_STATUS
        time.sleep(0.05)
    return 0


def _end_all(processes: list[subprocess.Popen], grace: float = TERMINATE_GRACE) -> None:
    """SIGTERM to each worker's process group (its pid), then SIGKILL to those still running after the grace."""
    for process in processes:
        _end(process, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for process in processes:
        try:
            process.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _end(process, signal.SIGKILL)
            process.wait()


def _end(process: subprocess.Popen, sig: int) -> None:
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, sig)  # the worker started its own session: its group id is its pid
    except ProcessLookupError:
        pass


# Run in the child by ``_with_parent``: SIGTERM it when the process that started it dies (PR_SET_PDEATHSIG, kept
# across exec), then exec the command; exits at once when that process already died. A separate interpreter, not
# subprocess's preexec_fn, which is unsafe once this process runs threads (the relays, a caller's own).
_PDEATHSIG_SHIM = (
    "import ctypes, os, signal, sys\n"
    "ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)\n"
    "if os.getppid() != int(sys.argv[1]): sys.exit(128 + signal.SIGTERM)\n"
    "os.execvp(sys.argv[2], sys.argv[2:])\n"
)


def _with_parent(program: str) -> list[str]:
    """The prefix that starts ``program`` so that it ends with this process (Linux: PR_SET_PDEATHSIG), even when
    this process is killed by SIGKILL; elsewhere ``program`` itself (the launcher ends its workers when it can)."""
    if not sys.platform.startswith("linux"):
        return [program]
    return [sys.executable, "-S", "-c", _PDEATHSIG_SHIM, str(os.getpid()), program]


def _relay(stream, target: TextIO, prefix: str, lock: threading.Lock | None = None) -> None:
    """Copies lines of ``stream`` to ``target`` with ``prefix``; once ``target`` fails (the host that reads it
    died: BrokenPipeError), keeps reading ``stream`` to its end and drops the lines, so the writer never blocks
    on a full pipe."""
    lock = lock or threading.Lock()
    writing = True
    for raw in iter(stream.readline, b""):
        if not writing:
            continue
        line = raw.decode("utf-8", errors="replace")
        try:
            with lock:
                target.write(prefix + line if line.endswith("\n") else prefix + line + "\n")
                target.flush()
        except (OSError, ValueError):  # BrokenPipeError, or a closed target
            writing = False
    stream.close()


def _say(err: TextIO, message: str) -> None:
    try:
        err.write(f"[launcher] {message}\n")
        err.flush()
    except (OSError, ValueError):  # nobody reads the launcher's messages any more
        pass


def _status(code: int) -> int:
    return 128 - code if code < 0 else code


def add_arguments(parser) -> None:
    """The ``launch`` options, shared by ``tfnet-train launch`` and ``python -m tfnet_train.launch``."""
    parser.add_argument("--workers", type=int, required=True, help="number of local workers (>= 1)")
    parser.add_argument("--no-netns", action="store_true",
                        help="run on the host's network even where a private network namespace is available "
                             "(the worker ports are then open on every interface)")
    parser.add_argument("--timeout", type=float, default=None, help="end every worker after this many seconds")
    parser.add_argument("--end-on-stdin-eof", action="store_true",
                        help="end every worker when standard input reaches its end (the program that started the "
                             "launcher with a pipe as its input exited or died)")
    parser.add_argument("command", nargs="+", help="the worker command, after `--`")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tfnet_train.launch --workers N [--no-netns] [--timeout S] -- CMD...``"""
    import argparse

    parser = argparse.ArgumentParser(prog="tfnet-train launch", description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    return run_cli(args)


def run_cli(args) -> int:
    """Runs parsed ``launch`` arguments; SIGTERM and Ctrl-C end every worker before the launcher exits."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    if getattr(args, "end_on_stdin_eof", False):
        threading.Thread(target=_end_on_eof, args=(sys.stdin.fileno(),), daemon=True).start()
    try:
        return launch(args.command, args.workers, netns=False if args.no_netns else None, timeout=args.timeout)
    except ValueError as error:
        print(f"tfnet-train: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("[launcher] interrupted; workers ended", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)


def _end_on_eof(fd: int) -> None:
    """Reads file descriptor ``fd`` to its end, then SIGTERMs this process (whose handler ends every worker): the
    host that started the launcher holds the other end of the pipe, and the kernel closes it when the host dies.
    Raw reads, not ``sys.stdin``: a daemon thread inside a buffered read aborts the interpreter's exit."""
    try:
        while os.read(fd, 65536):
            pass
    except OSError:
        pass
    os.kill(os.getpid(), signal.SIGTERM)


if __name__ == "__main__":
    raise SystemExit(main())
