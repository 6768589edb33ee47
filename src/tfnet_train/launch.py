"""A local multi-worker launcher: ``tfnet-train launch --workers N -- python script.py``.

Starts N copies of a command on 127.0.0.1, each with the ``TF_CONFIG`` that
``tf.distribute.MultiWorkerMirroredStrategy`` reads (``{"cluster": {"worker": [...]}, "task": {"type": "worker",
"index": i}}``), prints their output line by line prefixed ``[worker i] ``, ends every worker as soon as one fails,
and returns the first failure's exit status. It says which worker failed and how (its exit status, the signal that
killed it, or that it stopped responding: a worker stopped by SIGSTOP or a debugger while the others failed).

``--hosts``/``--cluster-spec`` name the workers' addresses instead of local ports: ``--print-tf-config`` then prints
(and checks) the ``TF_CONFIG`` of every worker for a cluster, and ``launch(..., hosts=..., prefixes=...)`` runs each
worker through its own command prefix (``ip netns exec NS``: one that passes the environment on) at its own address.

TensorFlow's gRPC server listens on every network interface, whatever address the cluster spec names. So that a
local run does not open its worker ports to the network, the launcher runs itself and its workers in one private
network namespace whose only interface is loopback (``unshare -n``, or ``unshare -rn`` without root) when the system
allows it, and warns, naming the ports, when it does not.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TextIO

__all__ = ["free_loopback_ports", "PortReservation", "tf_config", "cluster_tf_configs", "parse_hosts",
           "communication_options", "netns_command", "launch", "main", "COLLECTIVE_TIMEOUT_ENV"]

#: Exit status when the launcher's own timeout ends the run (as coreutils' ``timeout``).
TIMEOUT_STATUS = 124
#: Seconds a worker gets to end after SIGTERM before SIGKILL.
TERMINATE_GRACE = 5.0
#: Set in the re-executed launcher inside the namespace, so it neither nests another one nor warns.
_INSIDE_ENV = "TFNET_TRAIN_LAUNCH_NETNS"
#: The caller's PYTHONPATH (JSON, null when unset), restored for the workers by the re-executed launcher.
_PATH_ENV = "TFNET_TRAIN_LAUNCH_PYTHONPATH"

#: The workers' collective timeout in seconds (``launch(collective_timeout=...)``, ``--collective-timeout``), read by
#: ``communication_options()``.
COLLECTIVE_TIMEOUT_ENV = "TFNET_TRAIN_COLLECTIVE_TIMEOUT"

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
    return _worker_config([f"{host}:{port}" for port in ports], index)


def _worker_config(addresses: list[str], index: int) -> str:
    return json.dumps({"cluster": {"worker": addresses}, "task": {"type": "worker", "index": index}})


#: The largest cluster spec file ``--hosts @FILE`` reads (a spec names addresses: far below this).
CLUSTER_SPEC_MAX_BYTES = 1 << 20


def parse_hosts(hosts: str | Sequence[str]) -> list[str]:
    """Worker addresses ``host:port`` from a comma-separated string, a list of them, or a cluster spec (JSON text of
    ``{"worker": [...]}`` or of a whole ``TF_CONFIG``, or ``@FILE`` holding it); checks each address (a host, a port
    in 1..65535, IPv6 hosts in brackets) and that no two are equal."""
    if isinstance(hosts, str):
        text = hosts.strip()
        if text.startswith("@"):
            path = text[1:]
            try:
                with open(path, "rb") as file:
                    data = file.read(CLUSTER_SPEC_MAX_BYTES + 1)
            except OSError as error:
                raise ValueError(f"cluster spec file {path!r} cannot be read: {error.strerror}") from None
            if len(data) > CLUSTER_SPEC_MAX_BYTES:
                raise ValueError(f"cluster spec file {path!r} must be at most {CLUSTER_SPEC_MAX_BYTES} bytes, "
                                 "got more")
            try:
                text = data.decode("utf-8").strip()
            except UnicodeDecodeError:
                raise ValueError(f"cluster spec file {path!r} must be UTF-8 text") from None
        if text.startswith("{"):
            try:
                spec = json.loads(text)
            except json.JSONDecodeError as error:
                raise ValueError(f"cluster spec is not valid JSON: {error}") from None
            spec = spec.get("cluster", spec) if isinstance(spec, dict) else spec
            if not isinstance(spec, dict) or set(spec) != {"worker"} or not isinstance(spec["worker"], list):
                raise ValueError(f'cluster spec must be {{"worker": ["host:port", ...]}} (the only job '
                                 f"MultiWorkerMirroredStrategy needs here), got {text!r}")
            addresses = spec["worker"]
        else:
            addresses = [part.strip() for part in text.split(",")]
    else:
        addresses = list(hosts)
    if not addresses:
        raise ValueError("hosts must name at least one worker address host:port, got none")
    for address in addresses:
        if not isinstance(address, str):
            raise ValueError(f"hosts must be strings host:port, got {address!r}")
        host, sep, port = address.rpartition(":")
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        if not sep or not host or ":" in host and not address.startswith("[") or not port.isdigit() or \
                not 1 <= int(port) <= 65535:
            raise ValueError(f"hosts: each address must be host:port with a port in 1..65535 (IPv6 as [addr]:port), "
                             f"got {address!r}")
    if len(set(addresses)) != len(addresses):
        raise ValueError(f"hosts: each worker needs its own address, got {addresses!r}")
    return addresses


def cluster_tf_configs(hosts: str | Sequence[str]) -> list[str]:
    """The ``TF_CONFIG`` JSON of every worker of a cluster at ``hosts`` (see ``parse_hosts``), worker 0 first."""
    addresses = parse_hosts(hosts)
    return [_worker_config(addresses, i) for i in range(len(addresses))]


def communication_options(timeout_seconds: float | None = None) -> object:
    """``tf.distribute.experimental.CommunicationOptions`` whose ``timeout_seconds`` is ``timeout_seconds``, else
    the launcher's ``--collective-timeout`` (``TFNET_TRAIN_COLLECTIVE_TIMEOUT``), else none (TensorFlow's default:
    a collective waits for its peers without a bound of its own)."""
    import tensorflow as tf

    if timeout_seconds is None and os.environ.get(COLLECTIVE_TIMEOUT_ENV):
        text = os.environ[COLLECTIVE_TIMEOUT_ENV]
        try:
            timeout_seconds = float(text)
        except ValueError:
            raise ValueError(f"{COLLECTIVE_TIMEOUT_ENV} must be a number of seconds, got {text!r}") from None
    if timeout_seconds is not None and not timeout_seconds > 0:
        raise ValueError(f"timeout_seconds must be a positive number of seconds or None, got {timeout_seconds!r}")
    return tf.distribute.experimental.CommunicationOptions(timeout_seconds=timeout_seconds)


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
           env: Mapping[str, str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None,
           hosts: str | Sequence[str] | None = None, prefixes: Sequence[Sequence[str]] | None = None,
           collective_timeout: float | None = None) -> int:
    """Runs ``command`` as ``workers`` local workers and returns 0 when all succeed, else the first failure's status.

    netns: True requires a private network namespace (ValueError when none is available), False runs on the host's
    network (with a warning), None uses one when available and warns otherwise. timeout: seconds before every worker
    is ended and the run returns 124. env: the workers' base environment (default: this process's). Worker output
    goes to ``stdout`` prefixed ``[worker i] ``; the launcher's own messages go to ``stderr`` prefixed ``[launcher] ``.
    A worker killed by signal s counts as status 128 + s.

    hosts: the workers' addresses (``host:port`` each, see ``parse_hosts``) instead of free local ports; the
    launcher then neither reserves ports nor makes a namespace (the workers' own network is the caller's choice).
    prefixes: with hosts, per worker a command prefix it runs through (``["ip", "netns", "exec", "ns0"]``); the
    prefix must pass the environment (``TF_CONFIG``) on to the command.
    collective_timeout: seconds, passed to the workers as ``TFNET_TRAIN_COLLECTIVE_TIMEOUT`` for
    ``communication_options()``.
    """
    command = list(command)
    if not command or not all(isinstance(part, str) for part in command):
        raise ValueError(f"command must be a non-empty sequence of strings, got {command!r}")
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds or None, got {timeout!r}")
    if collective_timeout is not None and not collective_timeout > 0:
        raise ValueError(f"collective_timeout must be a positive number of seconds or None, got {collective_timeout!r}")
    addresses = None if hosts is None else parse_hosts(hosts)
    if addresses is not None and len(addresses) != workers:
        raise ValueError(f"hosts must name one address per worker ({workers}), got {len(addresses)}: {addresses!r}")
    if addresses is not None and netns:
        raise ValueError("netns=True does not apply with hosts: the workers' addresses, and so their network, are "
                         "the caller's")
    if prefixes is not None:
        if addresses is None:
            raise ValueError("prefixes needs hosts: each worker's address where its prefix runs it")
        prefixes = [list(prefix) for prefix in prefixes]
        if len(prefixes) != workers or not all(prefix and all(isinstance(p, str) for p in prefix)
                                               for prefix in prefixes):
            raise ValueError(f"prefixes must hold one non-empty list of strings per worker ({workers}), "
                             f"got {prefixes!r}")
    out, err = stdout or sys.stdout, stderr or sys.stderr
    base_env = dict(os.environ if env is None else env)
    inside = base_env.pop(_INSIDE_ENV, None) == "1"
    if inside and _PATH_ENV in base_env:  # the workers get the caller's PYTHONPATH, not the launcher's
        caller_path = json.loads(base_env.pop(_PATH_ENV))
        base_env.pop("PYTHONPATH", None)
        if caller_path is not None:
            base_env["PYTHONPATH"] = caller_path
    if collective_timeout is not None:
        base_env[COLLECTIVE_TIMEOUT_ENV] = repr(float(collective_timeout))
    if addresses is not None:
        _say(err, f"workers at {', '.join(addresses)}; {_GRPC_NOTE}: keep these ports off other networks.")
        return _run_workers(command, addresses, timeout, base_env, out, err, prefixes=prefixes)

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
    return _run_workers(command, [f"127.0.0.1:{port}" for port in ports], timeout, base_env, out, err,
                        release=reservation.release)


def _relaunch_in_namespace(prefix: list[str], command: list[str], workers: int, timeout: float | None,
                           env: dict[str, str], out: TextIO, err: TextIO) -> int:
    """Runs this launcher again inside one fresh network namespace (so all workers share it and reach each other on
    its loopback) and relays its output."""
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(env)
    env[_INSIDE_ENV] = "1"
    env[_PATH_ENV] = json.dumps(env.get("PYTHONPATH"))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    # -P: the current directory stays off sys.path, so a json.py there is not imported. Not -I, which would drop the
    # PYTHONPATH that finds the package (and the caller's own) and the user's site-packages.
    inner = [sys.executable, "-P", "-m", "tfnet_train.launch", "--workers", str(workers), "--no-netns",
             "--end-on-stdin-eof"]
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


def _run_workers(command: list[str], addresses: list[str], timeout: float | None, env: dict[str, str], out: TextIO,
                 err: TextIO, release: Callable[[], None] = lambda: None,
                 prefixes: list[list[str]] | None = None) -> int:
    lock = threading.Lock()
    processes: list[subprocess.Popen] = []
    relays: list[threading.Thread] = []
    try:
        release()  # the reserved ports, just before the workers that bind them start
        configs = cluster_tf_configs(addresses)
        watchers = [_PeerReports() for _ in addresses]
        for index in range(len(addresses)):
            worker_env = dict(env, TF_CONFIG=configs[index])
            argv = [*(prefixes[index] if prefixes else []), *command]
            process = subprocess.Popen([*_with_parent(argv[0]), *argv[1:]], env=worker_env,
                                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       start_new_session=True)
            processes.append(process)
            relay = threading.Thread(target=_relay, args=(process.stdout, out, f"[worker {index}] ", lock,
                                                          watchers[index].see), daemon=True)
            relay.start()
            relays.append(relay)
        _say(err, f"started {len(addresses)} workers: " + ", ".join(
            f"worker {i} pid {p.pid} at {address}" for i, (p, address) in enumerate(zip(processes, addresses))))
        status = _wait_all(processes, timeout, lambda message: _say(err, message), relays, watchers)
    except BaseException:
        _end_all(processes)
        raise
    for relay in relays:
        relay.join(TERMINATE_GRACE)  # a process a worker left behind may hold its output open
    return status


class _PeerReports:
    """The peers a worker's output names as down: TensorFlow's coordination service prints "The following tasks
    are unhealthy (stopped sending heartbeats):" and then one ``/job:worker/replica:0/task:i`` per line."""

    _TASK = re.compile(r"^/job:worker/replica:\d+/task:(\d+)\s*$")

    def __init__(self) -> None:
        self.unhealthy: list[int] = []
        self._listing = False

    def see(self, line: str) -> None:
        match = self._TASK.match(line.strip()) if self._listing else None
        if match:
            if int(match.group(1)) not in self.unhealthy:
                self.unhealthy.append(int(match.group(1)))
            return
        self._listing = "tasks are unhealthy" in line


def _wait_all(processes: list[subprocess.Popen], timeout: float | None, say: Callable[[str], None],
              relays: Sequence[threading.Thread] = (), watchers: Sequence[_PeerReports] = ()) -> int:
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
                if index < len(relays):
                    relays[index].join(2.0)  # its last lines, which may name the peer it lost
                say(f"worker {index} (pid {process.pid}) failed with status {status} ({_how(code)}); ending the "
                    "others")
                for peer in (watchers[index].unhealthy if index < len(watchers) else []):
                    say(f"worker {index} reported worker {peer} unhealthy: it stopped sending heartbeats (dead, "
                        "stopped, or cut off from the network)")
                for other, peer in running.items():
                    if _stopped(peer.pid):
                        say(f"worker {other} (pid {peer.pid}) stopped responding: it is stopped (SIGSTOP, SIGTSTP "
                            "or a debugger), so its peers' collectives could not complete")
                _end_all(list(running.values()))
                return status
        if deadline is not None and time.monotonic() > deadline:
            say(f"timeout after {timeout:g} s; ending {len(running)} running worker(s)")
            _end_all(list(running.values()))
            return TIMEOUT_STATUS
        time.sleep(0.05)
    return 0


def _how(code: int) -> str:
    """How a worker ended, from its ``Popen.returncode``."""
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    if code > 128:  # a shell or a shim that reports a signal as 128 + s
        try:
            return f"it exited with that status: 128 + {signal.Signals(code - 128).name}"
        except ValueError:
            pass
    return "it exited with that status"


def process_state(pid: int) -> str | None:
    """Process ``pid``'s state letter in /proc (``R``, ``S``, ``T`` stopped, ``Z`` ended but not reaped, ...); None
    when there is no such process (or no /proc)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def _stopped(pid: int) -> bool:
    """Whether process ``pid`` is stopped (state T or t: SIGSTOP, SIGTSTP, a tracer)."""
    return process_state(pid) in ("T", "t")


def _end_all(processes: list[subprocess.Popen], grace: float = TERMINATE_GRACE) -> None:
    """SIGTERM to each worker's process group (its pid) and SIGCONT (a stopped worker handles SIGTERM only once it
    runs), then SIGKILL to those still running after the grace."""
    for process in processes:
        _end(process, signal.SIGTERM)
        _end(process, signal.SIGCONT)
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
# subprocess's preexec_fn, which is unsafe once this process runs threads (the relays, a caller's own). Isolated
# (-I: no current directory on sys.path, no PYTHON* variables, no user site-packages) and without site (-S): it
# imports four standard modules and needs nothing else; the command it execs gets the environment unchanged.
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
    return [sys.executable, "-I", "-S", "-c", _PDEATHSIG_SHIM, str(os.getpid()), program]


def _relay(stream, target: TextIO, prefix: str, lock: threading.Lock | None = None,
           watch: Callable[[str], None] | None = None) -> None:
    """Copies lines of ``stream`` to ``target`` with ``prefix``; once ``target`` fails (the host that reads it
    died: BrokenPipeError), keeps reading ``stream`` to its end and drops the lines, so the writer never blocks
    on a full pipe."""
    lock = lock or threading.Lock()
    writing = True
    for raw in iter(stream.readline, b""):
        line = raw.decode("utf-8", errors="replace")
        if watch is not None:
            watch(line)
        if not writing:
            continue
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
    parser.add_argument("--workers", type=int, default=None,
                        help="number of local workers (>= 1); with --hosts, the number of addresses")
    parser.add_argument("--hosts", "--cluster-spec", dest="hosts", default=None,
                        help="the workers' addresses: host:port,host:port,... or a cluster spec "
                             '(JSON {"worker": [...]} or a whole TF_CONFIG, or @FILE holding it)')
    parser.add_argument("--print-tf-config", action="store_true",
                        help="check the --hosts spec and print the TF_CONFIG of every worker, one line each "
                             "(`worker i: TF_CONFIG='...'`), without running anything")
    parser.add_argument("--collective-timeout", type=float, default=None,
                        help="seconds a collective may wait for its peers, passed to the workers as "
                             f"{COLLECTIVE_TIMEOUT_ENV} (read by tfnet_train.launch.communication_options())")
    parser.add_argument("--no-netns", action="store_true",
                        help="run on the host's network even where a private network namespace is available "
                             "(the worker ports are then open on every interface)")
    parser.add_argument("--timeout", type=float, default=None, help="end every worker after this many seconds")
    parser.add_argument("--end-on-stdin-eof", action="store_true",
                        help="end every worker when standard input reaches its end (the program that started the "
                             "launcher with a pipe as its input exited or died)")
    parser.add_argument("command", nargs="*", help="the worker command, after `--`")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tfnet_train.launch --workers N [--no-netns] [--timeout S] [--collective-timeout S] -- CMD...``, or
    ``--hosts SPEC --print-tf-config``"""
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
        hosts = getattr(args, "hosts", None)
        if getattr(args, "print_tf_config", False):
            if hosts is None:
                raise ValueError("--print-tf-config needs --hosts (or --cluster-spec)")
            configs = cluster_tf_configs(hosts)
            if args.workers is not None and args.workers != len(configs):
                raise ValueError(f"--workers {args.workers} but --hosts names {len(configs)} addresses")
            for index, config in enumerate(configs):
                print(f"worker {index}: TF_CONFIG='{config}'")
            return 0
        if not args.command:
            raise ValueError("a worker command is needed after `--`")
        workers = args.workers
        if workers is None:
            if hosts is None:
                raise ValueError("--workers N is needed (or --hosts)")
            workers = len(parse_hosts(hosts))
        return launch(args.command, workers, netns=False if args.no_netns else None, timeout=args.timeout,
                      hosts=hosts, collective_timeout=getattr(args, "collective_timeout", None))
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
