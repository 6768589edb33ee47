"""Multi-worker training over a real (virtual) network, and the faults of real clusters.

Each worker runs in a network namespace of its own at its own address (tests/netns.py: veth pairs to a bridge in a
namespace the test makes, 10.77.0.0/24), so workers reach each other through network interfaces, not one loopback.
The faults: a worker frozen (SIGSTOP), a worker's link cut (its veth down), 30 % of a worker's packets dropped (tc
netem, else an nftables rule). Each time no worker waits forever: the coordination service's heartbeat (or, for a
step that only stalls, the collective timeout) ends the step with an error within the bound docs/distributed.md
gives, the launcher ends the job, says which worker failed and how, and leaves no process behind; the chief's backup
is whole, and the job started again (one worker joining late) resumes from it and ends within 1e-6 of an
uninterrupted fit. With TFNET_TEST_LOG_DIR set, each launched run's whole output is written there (a failure message
shows only its end).
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from tfnet_train import launch as launcher
from tfnet_train.callbacks.backup_and_restore import parse_metadata
from tfnet_train.tolerances import assert_close

sys.path.insert(0, str(Path(__file__).parent))
import distributed_cases  # noqa: E402
import netns  # noqa: E402

WORKER = Path(__file__).with_name("distributed_worker.py")
SRC = str(Path(__file__).resolve().parents[1] / "src")
PORT = 23456  # every worker at its own address, so one port for all
#: The workers' collective timeout (launch(collective_timeout=...)): above the slowest healthy step on a loaded
#: machine (the first epoch-end backup takes over 10 s there).
COLLECTIVE_TIMEOUT = 60.0
#: docs/distributed.md's bounds from a fault to the launcher's return, each the time to detect it plus the failing
#: worker's exit and the launcher's grace for the others (TERMINATE_GRACE), with room for a loaded machine: a frozen
#: or cut-off worker misses the coordination service's heartbeats (10 s); a step that merely stalls waits out the
#: collective timeout.
HEARTBEAT_BOUND = 30.0
STALL_BOUND = COLLECTIVE_TIMEOUT + 30.0
RUN_TIMEOUT = 240.0

_why = netns.unavailable()
pytestmark = pytest.mark.skipif(_why is not None, reason=f"no worker network namespaces here: {_why}")


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": SRC, **extra}
    env.pop("TF_CONFIG", None)
    return env


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie has ended)."""
    return launcher.process_state(pid) not in (None, "Z")


def _launch(net: netns.Network, command: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    workers = len(net.names)
    status = launcher.launch(command, workers, hosts=[f"{net.address(i)}:{PORT}" for i in range(workers)],
                             prefixes=[net.prefix(i) for i in range(workers)], collective_timeout=COLLECTIVE_TIMEOUT,
                             timeout=RUN_TIMEOUT, env=env, stdout=out, stderr=err)
    if os.environ.get("TFNET_TEST_LOG_DIR"):
        with open(Path(os.environ["TFNET_TEST_LOG_DIR"]) / f"{time.time():.0f}.log", "w") as log:
            log.write(out.getvalue() + err.getvalue())
    return status, out.getvalue(), err.getvalue()


CLUSTER_WORKER = """\
    import json, os, socket
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    from tfnet_train.launch import communication_options
    config = json.loads(os.environ["TF_CONFIG"])
    index = config["task"]["index"]
    strategy = tf.distribute.MultiWorkerMirroredStrategy(communication_options=communication_options())
    total = strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(lambda: tf.constant(float(index + 1))), axis=None)
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.connect((config["cluster"]["worker"][0].rsplit(":", 1)[0], 9))  # no traffic: picks the source address
    print(json.dumps({"index": index, "sum": float(total), "replicas": strategy.num_replicas_in_sync,
                      "interfaces": sorted(name for _, name in socket.if_nameindex()),
                      "source": probe.getsockname()[0], "netns": os.readlink("/proc/self/ns/net")}), flush=True)
"""


@pytest.mark.parametrize("workers", [2, 4])
def test_workers_each_in_their_own_namespace_form_one_cluster_over_the_network(tmp_path: Path,
                                                                              workers: int) -> None:
    script = tmp_path / "cluster.py"
    script.write_text(textwrap.dedent(CLUSTER_WORKER))
    with netns.Network(workers) as net:
        status, out, err = _launch(net, [sys.executable, str(script)], _env())
    assert status == 0, out[-3000:] + err[-3000:]
    reports = sorted((json.loads(line.split("] ", 1)[1]) for line in out.splitlines() if '"sum"' in line),
                     key=lambda report: report["index"])
    assert [r["index"] for r in reports] == list(range(workers)), out[-3000:]
    for report in reports:
        assert report["sum"] == workers * (workers + 1) / 2 and report["replicas"] == workers
        assert report["interfaces"] == ["eth0", "lo"], report
        expected = "127.0.0.1" if report["index"] == 0 else net.address(0)  # worker 0 reaches itself on lo
        assert report["source"] in (expected, net.address(report["index"])), report
    assert len({r["netns"] for r in reports}) == workers, "workers share a namespace"
    assert os.readlink("/proc/self/ns/net") not in {r["netns"] for r in reports}
    for index in range(workers):
        assert f"worker {index} pid" in err and f"at {net.address(index)}:{PORT}" in err, err


@pytest.fixture(scope="module")
def uninterrupted() -> dict[str, np.ndarray]:
    """The resumable fit on one device (tests/test_distributed.py checks it equals two workers)."""
    return distributed_cases.resumable()


def _assert_backup_whole(backup: Path, epochs: tuple[int, ...] = (1, 2)) -> int:
    """The chief's backup as the callback writes it: the metadata and the one weights file it names, no part files;
    the epoch it resumes at, one of ``epochs`` (by default an epoch-end backup from before the fault at epoch 2,
    step 1)."""
    metadata = parse_metadata((backup / "training_metadata.json").read_text(), "metadata")
    assert metadata["epoch"] in epochs, metadata
    assert sorted(p.name for p in backup.iterdir()) == sorted(["training_metadata.json", metadata["weights"]])
    import h5py

    with h5py.File(backup / metadata["weights"], "r") as weights:
        assert len(weights.keys()) > 0
    return metadata["epoch"]


def _assert_resumed(out: Path, uninterrupted: dict[str, np.ndarray], epochs: list[int]) -> None:
    expected = dict(uninterrupted)
    assert list(expected.pop("resume/epochs")) == [0, 1, 2, 3]
    for index in (0, 1):
        resumed = dict(np.load(f"{out}_{index}.npz"))
        assert list(resumed.pop("resume/epochs")) == epochs, f"worker {index}"
        assert sorted(resumed) == sorted(expected)
        for key, value in expected.items():
            assert_close(resumed[key], value, rtol=0.0, what=f"worker {index}: {key}")


def _run_with_fault(tmp_path: Path, inject: Callable[[netns.Network, int], None],
                    after: Callable[[netns.Network], None] = lambda net: None) -> tuple[int, str, str, float | None]:
    """The resumable fit on two workers; when worker 1 reaches epoch 2 step 1, ``inject(net, its pid)`` and the
    seconds from then to the launcher's return (None if the fault point was never reached)."""
    out, backup, marker = tmp_path / "run", tmp_path / "backup", tmp_path / "fault"
    injected: list[float] = []

    def watch() -> None:
        deadline = time.monotonic() + RUN_TIMEOUT
        while not marker.exists() and time.monotonic() < deadline and not done.is_set():
            time.sleep(0.02)
        if marker.exists():
            inject(net, json.loads(marker.read_text())["pid"])
            injected.append(time.monotonic())
            Path(f"{marker}.injected").touch()

    done = threading.Event()
    with netns.Network(2) as net:
        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        try:
            status, stdout, stderr = _launch(net, [sys.executable, str(WORKER), "--fault", str(out), str(backup),
                                                   str(marker)], _env())
        finally:
            ended = time.monotonic()
            done.set()
            watcher.join(30)
        after(net)
    pids = [int(p.read_text()) for p in tmp_path.glob("run.pid*")]
    assert len(pids) == 2, stdout[-3000:] + stderr[-3000:]
    assert not [pid for pid in pids if _alive(pid)], "a worker outlived the job"
    return status, stdout, stderr, (ended - injected[0]) if injected else None


def _restart(tmp_path: Path, **env: str) -> tuple[int, str, str]:
    out, backup, marker = tmp_path / "run", tmp_path / "backup", tmp_path / "fault"
    with netns.Network(2) as net:
        return _launch(net, [sys.executable, str(WORKER), "--fault", str(out), str(backup), str(marker)], _env(**env))


def test_a_frozen_worker_ends_the_step_and_the_job_restarted_with_a_late_worker_resumes(
        tmp_path: Path, uninterrupted: dict) -> None:
    frozen: list[int] = []

    def freeze(net: netns.Network, pid: int) -> None:
        os.kill(pid, signal.SIGSTOP)
        frozen.append(pid)

    status, out, err, elapsed = _run_with_fault(tmp_path, freeze)
    assert elapsed is not None, out[-3000:] + err[-3000:]
    assert status != 0 and elapsed < HEARTBEAT_BOUND, f"status {status} after {elapsed:.1f} s\n{err[-3000:]}"
    assert f"worker 1 (pid {frozen[0]}) stopped responding" in err, err[-3000:]
    assert "worker 0 (pid" in err and "failed with status 1" in err, err[-3000:]
    assert "Collective has timed out" in out or "unhealthy" in out, out[-3000:]
    assert not any(tmp_path.glob("run_*.npz"))
    _assert_backup_whole(tmp_path / "backup")
    status, out, err = _restart(tmp_path, TFNET_TEST_LATE="1:5")  # worker 1 rejoins 5 s after the others
    assert status == 0, out[-3000:] + err[-3000:]
    _assert_resumed(tmp_path / "run", uninterrupted, [2, 3])


def test_a_worker_whose_link_is_cut_ends_the_job_which_resumes(tmp_path: Path, uninterrupted: dict) -> None:
    status, out, err, elapsed = _run_with_fault(tmp_path, lambda net, pid: net.link_down(1))
    assert elapsed is not None, out[-3000:] + err[-3000:]
    assert status != 0 and elapsed < HEARTBEAT_BOUND, f"status {status} after {elapsed:.1f} s\n{err[-3000:]}"
    assert re.search(r"worker 1 \(pid \d+\) failed with status|worker 0 reported worker 1 unhealthy", err), err[-3000:]
    _assert_backup_whole(tmp_path / "backup")
    status, out, err = _restart(tmp_path)
    assert status == 0, out[-3000:] + err[-3000:]
    _assert_resumed(tmp_path / "run", uninterrupted, [2, 3])


def test_a_worker_losing_30_percent_of_its_packets_finishes_or_fails_within_the_bound(
        tmp_path: Path, uninterrupted: dict) -> None:
    """TCP retransmits what is lost: the fit may finish (slower) and then equals an uninterrupted one; if a step
    waits past the collective timeout, the job fails within the bound of the last step that finished, and resumes.
    (The link only slows steps, so the stall may come epochs after the loss began: the bound runs from the last
    step, not from the fault.)"""
    mechanism, why = netns.drop_mechanism()
    if mechanism is None:
        pytest.skip(f"no packet-drop mechanism on this kernel: {why}")
    dropped: list[int] = []
    ended: list[float] = []

    def after(net: netns.Network) -> None:
        ended.append(time.time())
        dropped.append(net.dropped(1, mechanism))

    status, out, err, elapsed = _run_with_fault(tmp_path, lambda net, pid: net.drop(1, 30, mechanism), after=after)
    assert elapsed is not None, out[-3000:] + err[-3000:]
    assert dropped[0] > 0, f"{mechanism} dropped no packet"
    if status == 0:
        _assert_resumed(tmp_path / "run", uninterrupted, [0, 1, 2, 3])
        return
    last_step = max(float(at) for at in re.findall(r"epoch \d+ step \d+ at ([\d.]+)", out))
    stalled = ended[0] - last_step
    assert stalled < STALL_BOUND, f"status {status} {stalled:.1f} s after the last step\n{err[-3000:]}"
    assert "failed with status" in err, err[-3000:]
    # A lossy link only slows steps: epoch 2 may still end (and back up) before one waits out the timeout.
    resume_at = _assert_backup_whole(tmp_path / "backup", epochs=(1, 2, 3))
    status, out, err = _restart(tmp_path)
    assert status == 0, out[-3000:] + err[-3000:]
    _assert_resumed(tmp_path / "run", uninterrupted, list(range(resume_at, 4)))


def test_the_network_leaves_nothing_behind_even_after_a_killed_run() -> None:
    """close() deletes every namespace, no link is ever made in ours, and the namespaces of a run whose process is
    gone (killed before its cleanup) are deleted when the next network is made."""
    links = netns._ip("-o", "link").stdout.count("\n")
    dead = 2**22 + 1  # above any pid this kernel hands out (pid_max is at most 2**22)
    stale = f"{netns.PREFIX}{dead}-0-hub"
    netns._ip("netns", "add", stale)
    with netns.Network(2) as net:
        names = [net.hub, *net.names]
        assert netns._ip("-o", "link").stdout.count("\n") == links
        listed = netns._ip("netns", "list").stdout
        assert stale not in listed and all(name in listed for name in names), listed
    listed = netns._ip("netns", "list").stdout
    assert not [name for name in names if name in listed], listed
    assert netns._ip("-o", "link").stdout.count("\n") == links
