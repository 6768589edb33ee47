"""The launcher when its host dies (workers end, output pipes drained), its ports reserved on every interface as
TensorFlow binds them, and its workers started without preexec_fn."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from tfnet_train import launch as launcher

ROOT = Path(__file__).resolve().parents[1]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"), env.get("PYTHONPATH")) if p)
    return env


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie has ended)."""
    return launcher.process_state(pid) not in (None, "Z")


HOST = """\
    import subprocess, sys, time
    launcher = subprocess.Popen(
        [sys.executable, "-m", "tfnet_train.launch", "--workers", "2", *sys.argv[1:], "--end-on-stdin-eof",
         "--timeout", "120", "--", sys.executable, "-c",
         "import os, sys\\nprint(os.getpid(), flush=True)\\nwhile True: print('x' * 1000, flush=True)"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    pids = set()
    while len(pids) < 2:
        line = launcher.stdout.readline().decode()
        if line.split()[-1].isdigit():
            pids.add(int(line.split()[-1]))
    print(launcher.pid, *sorted(pids), flush=True)
    time.sleep(600)
"""


@pytest.mark.parametrize("netns", [[], ["--no-netns"]], ids=["default", "no-netns"])
def test_workers_end_when_the_host_that_started_the_launcher_dies(tmp_path: Path, netns: list[str]) -> None:
    """The host (as C#'s Launcher starts it: input and output pipes) is killed with SIGKILL while the workers
    write without pause; the launcher sees its input end, ends the workers, and nothing is left blocked."""
    script = tmp_path / "host.py"
    script.write_text(textwrap.dedent(HOST))
    host = subprocess.Popen([sys.executable, str(script), *netns], stdout=subprocess.PIPE, text=True, env=_env())
    try:
        pids = [int(p) for p in host.stdout.readline().split()]
        assert len(pids) == 3 and all(_alive(pid) for pid in pids)
        time.sleep(0.5)  # the workers fill the launcher's pipes meanwhile
        host.kill()
        host.wait(30)
        deadline = time.monotonic() + 30
        while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in pids), f"launcher/workers {pids} outlived their host"
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()


def test_the_relay_drains_its_stream_after_the_target_breaks() -> None:
    read_end, write_end = os.pipe()

    class Broken:
        def write(self, text: str) -> None:
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    def write() -> None:
        with os.fdopen(write_end, "wb") as out:
            for _ in range(2000):  # 2 MB: far more than a pipe buffers
                out.write(b"y" * 999 + b"\n")

    writer = threading.Thread(target=write)
    writer.start()
    relay = threading.Thread(target=launcher._relay, args=(os.fdopen(read_end, "rb"), Broken(), "[w] "))
    relay.start()
    writer.join(20)
    relay.join(20)
    assert not writer.is_alive(), "the writer blocked on a pipe nobody drains"
    assert not relay.is_alive()


def test_ports_are_reserved_on_every_interface_until_released() -> None:
    with launcher.PortReservation(3) as reservation:
        assert len(set(reservation.ports)) == 3
        addresses = {sock.getsockname()[0] for sock in reservation.sockets}
        assert "0.0.0.0" in addresses and "127.0.0.1" not in addresses
        for port in reservation.ports:  # taken on the wildcard address, as TensorFlow will bind it
            probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            with pytest.raises(OSError):
                probe.bind(("0.0.0.0", port))
            probe.close()
        reservation.release()
        for port in reservation.ports:
            probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            probe.bind(("0.0.0.0", port))
            probe.close()


def test_workers_start_without_preexec_fn(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[dict] = []
    real = subprocess.Popen

    def popen(*args: object, **kwargs: object) -> subprocess.Popen:
        seen.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(launcher.subprocess, "Popen", popen)
    out = open(os.devnull, "w")  # noqa: SIM115
    try:
        status = launcher.launch([sys.executable, "-c", "print(1)"], 2, netns=False, timeout=60, stdout=out,
                                 stderr=out)
    finally:
        out.close()
    assert status == 0
    assert len(seen) == 2 and all(kwargs.get("preexec_fn") is None for kwargs in seen)


def test_a_worker_whose_launcher_already_died_does_not_start(tmp_path: Path) -> None:
    """The PR_SET_PDEATHSIG shim refuses to run a command whose starter is gone (the check after prctl)."""
    marker = tmp_path / "ran"
    shim = launcher._with_parent(sys.executable)
    if shim == [sys.executable]:
        pytest.fail("the parent-death shim is Linux-only and this suite runs on Linux")
    shim[shim.index(str(os.getpid()))] = "1"  # a parent pid that is not ours
    run = subprocess.run([*shim, "-c", f"open({str(marker)!r}, 'w')"], timeout=30)
    assert run.returncode == 128 + signal.SIGTERM
    assert not marker.exists()


#: A module planted in the current directory: it leaves a marker there and ends its interpreter with status 98.
PLANTED = """\
import os
open(os.path.join(os.getcwd(), "ran-{name}"), "w").close()
raise SystemExit(98)
"""


def _plant(folder: Path, names: tuple[str, ...] = ("ctypes", "json")) -> None:
    """`ctypes.py` (imported by the parent-death shim) and `json.py` (imported by the launcher itself)."""
    for name in names:
        (folder / f"{name}.py").write_text(PLANTED.format(name=name))


@pytest.mark.parametrize(("planted", "netns"), [("ctypes", False), ("ctypes", True), ("json", True)],
                         ids=["shim", "shim-netns", "relaunch-netns"])
def test_the_launchers_pythons_import_nothing_from_the_current_directory(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch,
                                                                        planted: str, netns: bool) -> None:
    """The shim that starts each worker (it imports ctypes), and the launcher run again inside the namespace (`-m`;
    it imports json), keep the current directory off sys.path: a module planted there is not run."""
    if netns and launcher.netns_command() is None:
        pytest.skip("no private network namespace here (unshare -n / -rn failed)")
    _plant(tmp_path, (planted,))
    monkeypatch.chdir(tmp_path)
    out = open(os.devnull, "w")  # noqa: SIM115
    try:
        status = launcher.launch(["true"], 1, netns=netns, timeout=60, stdout=out, stderr=out)
    finally:
        out.close()
    assert sorted(path.name for path in tmp_path.glob("ran-*")) == []
    assert status == 0


def test_the_console_script_runs_nothing_from_the_current_directory(tmp_path: Path) -> None:
    """`tfnet-train launch --workers 1 -- true` typed in a folder holding a planted `ctypes.py` / `json.py`."""
    script = Path(sys.executable).parent / "tfnet-train"
    assert script.is_file(), f"{script} missing: the project is installed with `make install` (pip install -e .)"
    _plant(tmp_path)
    run = subprocess.run([str(script), "launch", "--workers", "1", "--timeout", "60", "--", "true"], cwd=tmp_path,
                         capture_output=True, text=True, env=_env(), timeout=120)
    assert sorted(path.name for path in tmp_path.glob("ran-*")) == []
    assert run.returncode == 0, run.stderr
