"""The local multi-worker launcher (`tfnet-train launch`): TF_CONFIG per worker, prefixed output, every worker ended at
the first failure, and worker ports confined to loopback. Everything runs on 127.0.0.1; the only other address used
is this machine's own, for one connect attempt that must fail."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tfnet_train import launch as launcher

ROOT = Path(__file__).resolve().parents[1]
#: Bound on every launched run, so no worker outlives a test.
RUN_TIMEOUT = 120.0


def _script(tmp_path: Path, name: str, body: str) -> list[str]:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return [sys.executable, str(path)]


def _launch(command: list[str], workers: int = 2, **kwargs) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    kwargs.setdefault("timeout", RUN_TIMEOUT)
    status = launcher.launch(command, workers, stdout=out, stderr=err, **kwargs)
    return status, out.getvalue(), err.getvalue()


def _env_with_package() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"), env.get("PYTHONPATH")) if p)
    return env


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie has ended)."""
    return launcher.process_state(pid) not in (None, "Z")


def _own_non_loopback_ipv4() -> str | None:
    """This machine's first global IPv4 address, read from `ip` (no traffic)."""
    try:
        listing = subprocess.run(["ip", "-o", "-4", "addr", "show", "scope", "global"], capture_output=True,
                                 text=True, timeout=10).stdout
    except OSError:
        return None
    for line in listing.splitlines():
        fields = line.split()
        if "inet" in fields:
            return fields[fields.index("inet") + 1].split("/")[0]
    return None


PRINT_CONFIG = """\
    import json, os
    config = json.loads(os.environ["TF_CONFIG"])
    print("task", config["task"]["type"], config["task"]["index"], json.dumps(config["cluster"]), flush=True)
    print("second line")
"""


@pytest.mark.parametrize("netns", [None, False], ids=["default", "no-netns"])
def test_each_worker_gets_its_tf_config_and_prefixed_output(tmp_path: Path, netns: bool | None) -> None:
    status, out, err = _launch(_script(tmp_path, "w.py", PRINT_CONFIG), 2, netns=netns)
    assert status == 0, out + err
    lines = out.splitlines()
    clusters = set()
    for index in range(2):
        mine = [line for line in lines if line.startswith(f"[worker {index}] ")]
        assert len(mine) == 2, out
        assert mine[0].split()[2:5] == ["task", "worker", str(index)], out
        assert mine[1] == f"[worker {index}] second line"
        clusters.add(mine[0].split(" ", 5)[5])
    assert len(clusters) == 1, f"workers disagree on the cluster: {clusters}"
    workers = json.loads(clusters.pop())["worker"]
    assert len(workers) == 2 and len(set(workers)) == 2
    assert all(address.startswith("127.0.0.1:") for address in workers), workers
    assert len(lines) == 4, out


@pytest.mark.parametrize("python_path", [None, "/nonexistent/a"], ids=["unset", "set"])
def test_workers_get_the_callers_environment(tmp_path: Path, python_path: str | None) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["TFNET_TEST_MARK"] = "mark"
    if python_path is not None:
        env["PYTHONPATH"] = python_path
    command = _script(tmp_path, "w.py", """\
        import json, os
        print(json.dumps({k: v for k, v in os.environ.items()
                          if k in ("PYTHONPATH", "TFNET_TEST_MARK") or k.startswith("TFNET_TRAIN_LAUNCH")}))
    """)
    status, out, err = _launch(command, 1, env=env)
    assert status == 0, out + err
    expected = {"TFNET_TEST_MARK": "mark"} | ({} if python_path is None else {"PYTHONPATH": python_path})
    assert json.loads(out.split("] ", 1)[1]) == expected


def test_output_without_final_newline_keeps_its_prefix(tmp_path: Path) -> None:
    status, out, _ = _launch(_script(tmp_path, "w.py", "import sys; sys.stdout.write('a\\nb')\n"), 1)
    assert status == 0
    assert out.splitlines() == ["[worker 0] a", "[worker 0] b"]


def test_one_failing_worker_ends_the_others(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    command = _script(tmp_path, "w.py", f"""\
        import json, os, sys, time
        index = json.loads(os.environ["TF_CONFIG"])["task"]["index"]
        open(os.path.join({str(pids)!r}, str(index)), "w").write(str(os.getpid()))
        if index == 1:
            while len(os.listdir({str(pids)!r})) < 3:
                time.sleep(0.05)
            print("failing", flush=True)
            sys.exit(3)
        print("waiting", flush=True)
        time.sleep(600)
    """)
    start = time.monotonic()
    status, out, err = _launch(command, 3)
    elapsed = time.monotonic() - start
    assert status == 3, out + err
    assert elapsed < 60, f"the others were not ended promptly ({elapsed:.1f} s)"
    assert "worker 1 (pid" in err and "failed with status 3" in err, err
    for index in (0, 2):
        pid = int((pids / str(index)).read_text())
        assert not _alive(pid), f"worker {index} (pid {pid}) still runs"


def test_a_worker_killed_by_a_signal_reports_128_plus_the_signal(tmp_path: Path) -> None:
    command = _script(tmp_path, "w.py", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)\n")
    status, _, _ = _launch(command, 2)
    assert status == 128 + 9


def test_the_launcher_says_how_a_worker_failed_and_which_stopped_responding(tmp_path: Path) -> None:
    """Worker 1 stops itself (SIGSTOP); worker 0 then fails naming it as TensorFlow's coordination service does. The
    launcher reports worker 0's status, the peer it named, and that worker 1 is stopped, and ends it (SIGTERM and
    SIGCONT)."""
    command = _script(tmp_path, "w.py", """\
        import json, os, signal, sys, time
        index = json.loads(os.environ["TF_CONFIG"])["task"]["index"]
        if index == 1:
            os.kill(os.getpid(), signal.SIGSTOP)
            time.sleep(600)
        time.sleep(1.0)
        print("The following tasks are unhealthy (stopped sending heartbeats):")
        print("/job:worker/replica:0/task:1")
        print("The tasks have crashed.", flush=True)
        sys.exit(1)
    """)
    start = time.monotonic()
    status, out, err = _launch(command, 2)
    assert status == 1, out + err
    assert time.monotonic() - start < 30, "the stopped worker was not ended promptly"
    assert "worker 0 (pid" in err and "failed with status 1 (it exited with that status)" in err, err
    assert "worker 0 reported worker 1 unhealthy" in err, err
    assert "worker 1 (pid" in err and "stopped responding" in err, err
    killed = _script(tmp_path, "k.py", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)\n")
    status, _, err = _launch(killed, 1)
    assert status == 137 and "failed with status 137 (killed by SIGKILL)" in err, err


def test_timeout_ends_every_worker(tmp_path: Path) -> None:
    status, _, err = _launch(_script(tmp_path, "w.py", "import time; time.sleep(600)\n"), 2, timeout=2.0)
    assert status == launcher.TIMEOUT_STATUS
    assert "timeout after 2 s" in err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_ending_the_launcher_ends_its_workers(sig: int) -> None:
    """SIGTERM: the launcher ends the workers and exits 130; SIGKILL: the workers get SIGTERM as their parent dies."""
    process = subprocess.Popen([sys.executable, "-m", "tfnet_train.cli", "launch", "--workers", "2", "--timeout", "90",
                                "--", sys.executable, "-c", "import os, time; print(os.getpid(), flush=True); "
                                "time.sleep(600)"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                               env=_env_with_package())
    try:
        pids = [int(process.stdout.readline().split()[-1]) for _ in range(2)]
        assert all(_alive(pid) for pid in pids)
        process.send_signal(sig)
        status = process.wait(RUN_TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert status == (130 if sig == signal.SIGTERM else -signal.SIGKILL)
    deadline = time.monotonic() + 20
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in pids), f"workers {pids} outlived their launcher"


def test_bad_arguments_name_the_argument() -> None:
    with pytest.raises(ValueError, match="workers must be a positive int, got 0"):
        launcher.launch(["true"], 0)
    with pytest.raises(ValueError, match="command must be a non-empty sequence of strings"):
        launcher.launch([], 2)
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        launcher.launch(["true"], 1, timeout=0)
    with pytest.raises(ValueError, match="count must be a positive int"):
        launcher.free_loopback_ports(0)
    with pytest.raises(ValueError, match=r"index must be in \[0, 2\), got 2"):
        launcher.tf_config([1, 2], 2)


def test_cli_launch_returns_the_failing_status_and_rejects_bad_arguments() -> None:
    run = subprocess.run([sys.executable, "-m", "tfnet_train.cli", "launch", "--workers", "2", "--timeout", "60",
                          "--", sys.executable, "-c", "import sys; sys.exit(5)"], capture_output=True, text=True,
                         env=_env_with_package(), timeout=RUN_TIMEOUT)
    assert run.returncode == 5, run.stderr
    bad = subprocess.run([sys.executable, "-m", "tfnet_train.cli", "launch", "--workers", "0", "--", "true"],
                         capture_output=True, text=True, env=_env_with_package(), timeout=RUN_TIMEOUT)
    assert bad.returncode == 2
    assert "workers must be a positive int, got 0" in bad.stderr


def test_without_a_namespace_the_launcher_warns_naming_the_ports(tmp_path: Path) -> None:
    status, out, err = _launch(_script(tmp_path, "w.py", PRINT_CONFIG), 2, netns=False)
    assert status == 0
    ports = [address.split(":")[1] for address in json.loads(out.splitlines()[0].split(" ", 5)[5])["worker"]]
    assert "listens on every network interface" in err and "Firewall them" in err
    assert all(port in err for port in ports), err


needs_netns = pytest.mark.skipif(launcher.netns_command() is None,
                                 reason="no private network namespace here (unshare -n / -rn failed)")


@needs_netns
def test_workers_share_one_namespace_whose_only_interface_is_loopback(tmp_path: Path) -> None:
    command = _script(tmp_path, "w.py", """\
        import json, os, socket
        names = sorted(name for _, name in socket.if_nameindex())
        print(json.dumps({"interfaces": names, "netns": os.readlink("/proc/self/ns/net")}), flush=True)
    """)
    status, out, err = _launch(command, 2)
    assert status == 0, out + err
    assert "private network namespace" in err
    reports = [json.loads(line.split("] ", 1)[1]) for line in out.splitlines()]
    assert len(reports) == 2, out
    assert [report["interfaces"] for report in reports] == [["lo"], ["lo"]], out
    namespaces = {report["netns"] for report in reports}
    assert len(namespaces) == 1, f"workers in different namespaces: {namespaces}"
    assert namespaces != {os.readlink("/proc/self/ns/net")}, "workers run in the launcher's own namespace"


@needs_netns
def test_worker_ports_are_not_reachable_on_this_machines_network_address(tmp_path: Path) -> None:
    """A worker listens on 0.0.0.0 at its TF_CONFIG port, as TensorFlow's gRPC server does; it reaches itself on
    127.0.0.1, and one connect to the same port on this machine's own non-loopback address fails."""
    address = _own_non_loopback_ipv4()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address to test against")
    go_on = tmp_path / "go_on"
    command = _script(tmp_path, "w.py", f"""\
        import json, os, socket, time
        config = json.loads(os.environ["TF_CONFIG"])
        port = int(config["cluster"]["worker"][config["task"]["index"]].rsplit(":", 1)[1])
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("0.0.0.0", port))
        server.listen()
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
        print("listening", port, flush=True)
        deadline = time.monotonic() + 60
        while not os.path.exists({str(go_on)!r}) and time.monotonic() < deadline:
            time.sleep(0.05)
    """)
    process = subprocess.Popen([sys.executable, "-m", "tfnet_train.cli", "launch", "--workers", "1", "--timeout",
                                "90", "--", *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=_env_with_package())
    try:
        line = process.stdout.readline()
        assert line.startswith("[worker 0] listening "), line + process.stderr.read()
        port = int(line.split()[-1])
        with socket.socket() as probe:
            probe.settimeout(2.0)
            reachable = probe.connect_ex((address, port)) == 0
        assert not reachable, f"worker port {port} is reachable on {address}"
    finally:
        go_on.touch()
        try:
            process.wait(RUN_TIMEOUT)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert process.returncode == 0, process.stderr.read()


TF_WORKER = """\
    import json, os
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    index = json.loads(os.environ["TF_CONFIG"])["task"]["index"]
    value = strategy.run(lambda: tf.constant(float(index + 1)))
    total = strategy.reduce(tf.distribute.ReduceOp.SUM, value, axis=None)
    print("replicas", strategy.num_replicas_in_sync, "sum", float(total), flush=True)
"""


def test_tensorflow_workers_form_a_cluster_through_the_launcher(tmp_path: Path) -> None:
    status, out, err = _launch(_script(tmp_path, "w.py", TF_WORKER), 2)
    assert status == 0, out[-3000:] + err[-3000:]
    for index in range(2):
        assert f"[worker {index}] replicas 2 sum 3.0" in out.splitlines(), out[-3000:]


def test_csharp_launcher_runs_the_same_launcher(tmp_path: Path, dotnet_bin: Path) -> None:
    """`Launcher.Run` from C# (the LaunchWorkers example): prefixed TF_CONFIG per worker, and the failing status."""
    exe = dotnet_bin / "LaunchWorkers.exe"
    assert exe.is_file(), f"{exe} missing: build with dotnet/build.sh"
    env = _env_with_package()
    if sys.prefix != sys.base_prefix:
        env["TFNET_TRAIN_VENV"] = sys.prefix
    command = _script(tmp_path, "w \"quoted\" \\ name.py", PRINT_CONFIG)
    run = subprocess.run(["mono", str(exe), "--workers", "2", "--timeout", "60", "--", *command], capture_output=True,
                         text=True, env=env, timeout=RUN_TIMEOUT)
    assert run.returncode == 0, run.stdout + run.stderr
    for index in range(2):
        assert f"[worker {index}] task worker {index} " in run.stdout, run.stdout
        assert f"[worker {index}] second line" in run.stdout.splitlines()
    assert "[launcher] started 2 workers" in run.stderr
    failing = subprocess.run(["mono", str(exe), "--workers", "2", "--timeout", "60", "--", sys.executable, "-c",
                              "import sys; sys.exit(7)"], capture_output=True, text=True, env=env,
                             timeout=RUN_TIMEOUT)
    assert failing.returncode == 7, failing.stdout + failing.stderr
