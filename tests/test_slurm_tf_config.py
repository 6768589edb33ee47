"""The same job past one machine, on paper: the TF_CONFIG that `tfnet-train launch --hosts ... --print-tf-config`
prints for a cluster, what a Kubernetes TFJob gives each replica (read by TensorFlow's TFConfigClusterResolver), and
what TensorFlow's SlurmClusterResolver resolves from a SLURM environment this test writes (as `srun` sets it on
each task) all name the same cluster and the same task for each worker."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tfnet_train import launch as launcher

SRC = str(Path(__file__).resolve().parents[1] / "src")

def _slurm_env(monkeypatch: pytest.MonkeyPatch, procid: int, ntasks: int, nodelist: str,
               tasks_per_node: str) -> None:
    """The variables `srun` sets on task ``procid`` of a job step (those SlurmClusterResolver reads, and their
    job-wide twins)."""
    for name in [n for n in os.environ if n.startswith("SLURM_")]:
        monkeypatch.delenv(name)
    for name, value in {"SLURM_PROCID": procid, "SLURM_STEP_NUM_TASKS": ntasks, "SLURM_NTASKS": ntasks,
                        "SLURM_STEP_NODELIST": nodelist, "SLURM_JOB_NODELIST": nodelist,
                        "SLURM_STEP_TASKS_PER_NODE": tasks_per_node, "SLURM_TASKS_PER_NODE": tasks_per_node}.items():
        monkeypatch.setenv(name, str(value))


def _printed(hosts: str) -> list[dict]:
    run = subprocess.run([sys.executable, "-m", "tfnet_train.cli", "launch", "--hosts", hosts, "--print-tf-config"],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": SRC}, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert [line.split(":", 1)[0] for line in lines] == [f"worker {i}" for i in range(len(lines))], run.stdout
    return [json.loads(line.split("TF_CONFIG='", 1)[1].rstrip("'")) for line in lines]


@pytest.mark.parametrize("nodelist, tasks_per_node, per_node, hosts", [
    ("node[01-02]", "1(x2)", 1, ["node01:12345", "node02:12345"]),
    ("gpu-a,gpu-b[7,9]", "2(x3)", 2, ["gpu-a:12345", "gpu-a:12346", "gpu-b7:12345", "gpu-b7:12346", "gpu-b9:12345",
                                      "gpu-b9:12346"]),
], ids=["2 nodes", "3 nodes x 2 tasks"])
def test_slurm_resolver_names_the_cluster_the_launcher_prints(monkeypatch: pytest.MonkeyPatch, nodelist: str,
                                                              tasks_per_node: str, per_node: int,
                                                              hosts: list[str]) -> None:
    """As docs/distributed.md runs it: CPU nodes have no GPU for the resolver to count (it would call nvidia-smi),
    so it is given one slot per task and told not to set CUDA_VISIBLE_DEVICES."""
    import tensorflow as tf

    expected = _printed(",".join(hosts))
    assert len(expected) == len(hosts)
    for rank in range(len(hosts)):
        _slurm_env(monkeypatch, rank, len(hosts), nodelist, tasks_per_node)
        resolver = tf.distribute.cluster_resolver.SlurmClusterResolver(
            port_base=12345, gpus_per_node=per_node, gpus_per_task=1, auto_set_gpu=False)
        resolved = {"cluster": resolver.cluster_spec().as_dict(),
                    "task": {"type": resolver.task_type, "index": resolver.task_id}}
        assert resolved == expected[rank], f"rank {rank}"


def test_a_kubeflow_tfjob_tf_config_is_the_launchers_for_the_same_services(monkeypatch: pytest.MonkeyPatch) -> None:
    """A TFJob named `train` in namespace `ml` with 2 worker replicas: the operator gives replica i this TF_CONFIG
    (services `train-worker-i.ml.svc:2222`); TensorFlow's TFConfigClusterResolver reads it as the launcher's."""
    import tensorflow as tf

    services = [f"train-worker-{i}.ml.svc:2222" for i in range(2)]
    printed = _printed(",".join(services))
    for index in range(2):
        tfjob = {"cluster": {"worker": services}, "task": {"type": "worker", "index": index}}
        assert printed[index] == tfjob
        monkeypatch.setenv("TF_CONFIG", json.dumps(printed[index]))
        resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
        assert resolver.cluster_spec().as_dict() == {"worker": services}
        assert (resolver.task_type, resolver.task_id) == ("worker", index)


def test_print_tf_config_checks_the_spec(tmp_path: Path) -> None:
    assert launcher.cluster_tf_configs('{"worker": ["a:1", "b:2"]}') == launcher.cluster_tf_configs("a:1,b:2")
    whole = json.loads(launcher.cluster_tf_configs("a:1,b:2")[1])
    assert launcher.parse_hosts(json.dumps(whole)) == ["a:1", "b:2"]  # a whole TF_CONFIG's cluster
    for spec, message in [("a:1,a:1", "each worker needs its own address"), ("a", "must be host:port"),
                          ("a:70000", "must be host:port"), ("::1:5", "IPv6 as"), ("{", "not valid JSON"),
                          ('{"chief": ["a:1"], "worker": ["b:2"]}', 'must be {"worker"')]:
        with pytest.raises(ValueError, match=message):
            launcher.parse_hosts(spec)
    assert launcher.parse_hosts("[::1]:5,b:6") == ["[::1]:5", "b:6"]
    run = subprocess.run([sys.executable, "-m", "tfnet_train.cli", "launch", "--hosts", "a:1,a:1",
                          "--print-tf-config"], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": SRC}, timeout=120)
    assert run.returncode == 2 and "each worker needs its own address" in run.stderr
    with pytest.raises(ValueError, match="one address per worker"):
        launcher.launch(["true"], 3, hosts="a:1,b:2")
    with pytest.raises(ValueError, match="prefixes needs hosts"):
        launcher.launch(["true"], 1, prefixes=[["env"]])
    with pytest.raises(ValueError, match="netns=True does not apply with hosts"):
        launcher.launch(["true"], 1, hosts="a:1", netns=True)
    with pytest.raises(ValueError, match="cannot be read"):
        launcher.parse_hosts("@/nonexistent/spec.json")
    spec = tmp_path / "spec.json"
    spec.write_text('{"worker": ["a:1", "b:2"]}')
    assert launcher.parse_hosts(f"@{spec}") == ["a:1", "b:2"]
    spec.write_bytes(b" " * launcher.CLUSTER_SPEC_MAX_BYTES + b"a:1")
    with pytest.raises(ValueError, match=r"spec.json' must be at most 1048576 bytes"):
        launcher.parse_hosts(f"@{spec}")
    spec.write_bytes(b"\xff\xfe")
    with pytest.raises(ValueError, match=r"spec.json' must be UTF-8 text"):
        launcher.parse_hosts(f"@{spec}")
    with pytest.raises(ValueError, match="collective_timeout must be a positive"):
        launcher.launch(["true"], 1, collective_timeout=0)


def test_launch_with_hosts_gives_each_worker_its_address_and_the_collective_timeout(tmp_path: Path) -> None:
    ports = launcher.free_loopback_ports(2)
    hosts = ",".join(f"127.0.0.1:{port}" for port in ports)
    script = tmp_path / "w.py"
    script.write_text("import json, os\nfrom tfnet_train.launch import communication_options\n"
                      "print(os.environ['TF_CONFIG'], communication_options().timeout_seconds, flush=True)\n")
    run = subprocess.run([sys.executable, "-m", "tfnet_train.cli", "launch", "--hosts", hosts, "--collective-timeout",
                          "12.5", "--timeout", "120", "--", sys.executable, str(script)], capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": SRC}, timeout=180)
    assert run.returncode == 0, run.stdout + run.stderr
    expected = launcher.cluster_tf_configs(hosts)
    for index in range(2):
        assert f"[worker {index}] {expected[index]} 12.5" in run.stdout.splitlines(), run.stdout
    assert "[launcher] workers at " + ", ".join(hosts.split(",")) in run.stderr, run.stderr
