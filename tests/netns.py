"""A virtual network for multi-worker tests: each worker in a network namespace of its own, with its own address,
joined to the others by a veth pair to one bridge inside a hub namespace the test makes.

    with Network(2) as net:            # namespaces tfnet-<pid>-<n>-hub, -w0, -w1; 10.77.0.1/24, 10.77.0.2/24
        net.prefix(0)                  # ["ip", "netns", "exec", "tfnet-...-w0"]: run a command as worker 0
        net.link_down(1)               # worker 1's link cut (its veth down)
        net.drop(1, 30)                # 30 % of worker 1's packets dropped (tc netem, else an nft rule)

Every link lives in the test's own namespaces (none in the caller's), so deleting the namespaces removes them all:
``close()`` does, and runs again at interpreter exit for a network a failed test left open; namespaces of an
earlier run whose process is gone are removed on the next start. Needs root (``ip netns add``).
"""

from __future__ import annotations

import atexit
import itertools
import os
import shutil
import subprocess

__all__ = ["Network", "unavailable", "drop_mechanism"]

PREFIX = "tfnet-"
SUBNET = "10.77.0"  # a private /24 of the test's own: each network is isolated in its own namespaces
_counter = itertools.count()
_open: list[Network] = []


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30, check=check)


def unavailable() -> str | None:
    """Why a Network cannot be made here (None when it can): root, `ip`, and a namespace with a veth pair."""
    if shutil.which("ip") is None:
        return "the `ip` command (iproute2) is missing"
    if os.geteuid() != 0:
        return ("worker network namespaces need root (`ip netns add`); this run is not root, so the network "
                "separation tests cannot make their namespaces")
    name = f"{PREFIX}{os.getpid()}-probe"
    try:
        made = _ip("netns", "add", name, check=False)
        if made.returncode != 0:
            return f"`ip netns add` failed: {made.stderr.strip()}"
        veth = _ip("-n", name, "link", "add", "p0", "type", "veth", "peer", "name", "p1", check=False)
        if veth.returncode != 0:
            return f"veth pairs cannot be made here: {veth.stderr.strip()}"
        bridge = _ip("-n", name, "link", "add", "b0", "type", "bridge", check=False)
        if bridge.returncode != 0:
            return f"bridges cannot be made here: {bridge.stderr.strip()}"
    finally:
        _ip("netns", "del", name, check=False)
    return None


def drop_mechanism() -> tuple[str | None, str]:
    """("netem", "") when ``tc qdisc ... netem`` works in a namespace here, else ("nft", "") when an nftables rule
    ``numgen random mod 100 < P drop`` does, else (None, why neither works)."""
    name = f"{PREFIX}{os.getpid()}-dprobe"
    reasons = []
    try:
        _ip("netns", "add", name)
        _ip("-n", name, "link", "set", "lo", "up")
        if shutil.which("tc"):
            netem = subprocess.run(["ip", "netns", "exec", name, "tc", "qdisc", "add", "dev", "lo", "root", "netem",
                                    "loss", "30%"], capture_output=True, text=True, timeout=30)
            if netem.returncode == 0:
                return "netem", ""
            reasons.append(f"tc netem: {netem.stderr.strip()}")
        else:
            reasons.append("tc netem: `tc` is missing")
        if shutil.which("nft"):
            nft = subprocess.run(["ip", "netns", "exec", name, "nft", "-f", "-"], input=_nft_rules("lo", 30),
                                 capture_output=True, text=True, timeout=30)
            if nft.returncode == 0:
                return "nft", ""
            reasons.append(f"nft: {nft.stderr.strip()}")
        else:
            reasons.append("nft: `nft` is missing (Debian package nftables)")
    finally:
        _ip("netns", "del", name, check=False)
    return None, "; ".join(reasons)


def _nft_rules(device: str, percent: int) -> str:
    return (f"table inet tfnet_drop {{\n"
            f"  chain in {{ type filter hook input priority 0; policy accept; "
            f"iifname \"{device}\" numgen random mod 100 < {percent} counter drop; }}\n"
            f"  chain out {{ type filter hook output priority 0; policy accept; "
            f"oifname \"{device}\" numgen random mod 100 < {percent} counter drop; }}\n"
            f"}}\n")


def _remove_stale() -> None:
    """Deletes namespaces named tfnet-<pid>-... whose process no longer runs (a run killed before its cleanup)."""
    listing = _ip("netns", "list", check=False).stdout
    for line in listing.splitlines():
        name = line.split()[0] if line.split() else ""
        if not name.startswith(PREFIX):
            continue
        pid = name[len(PREFIX):].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not os.path.exists(f"/proc/{pid}"):
            _ip("netns", "del", name, check=False)


class Network:
    """``workers`` namespaces on one bridge, worker i at ``address(i)`` (10.77.0.<i + 1>) on its interface eth0."""

    def __init__(self, workers: int) -> None:
        if not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a positive int, got {workers!r}")
        _remove_stale()
        tag = f"{PREFIX}{os.getpid()}-{next(_counter)}"
        self.hub = f"{tag}-hub"
        self.names = [f"{tag}-w{i}" for i in range(workers)]
        self._made: list[str] = []
        _open.append(self)
        try:
            self._make()
        except BaseException:
            self.close()
            raise

    def _make(self) -> None:
        _ip("netns", "add", self.hub)
        self._made.append(self.hub)
        _ip("-n", self.hub, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.hub, "link", "set", "br0", "up")
        for index, name in enumerate(self.names):
            _ip("netns", "add", name)
            self._made.append(name)
            _ip("-n", name, "link", "set", "lo", "up")
            # Made inside the hub, its peer moved into the worker's namespace: no link ever in the caller's.
            _ip("-n", self.hub, "link", "add", f"v{index}", "type", "veth", "peer", "name", "eth0", "netns", name)
            _ip("-n", self.hub, "link", "set", f"v{index}", "master", "br0")
            _ip("-n", self.hub, "link", "set", f"v{index}", "up")
            _ip("-n", name, "addr", "add", f"{self.address(index)}/24", "dev", "eth0")
            _ip("-n", name, "link", "set", "eth0", "up")

    def address(self, index: int) -> str:
        return f"{SUBNET}.{index + 1}"

    def prefix(self, index: int) -> list[str]:
        """The command prefix that runs a program in worker ``index``'s namespace."""
        return ["ip", "netns", "exec", self.names[index]]

    def run(self, index: int, *command: str, **kwargs) -> subprocess.CompletedProcess:
        kwargs.setdefault("capture_output", True)
        kwargs.setdefault("text", True)
        kwargs.setdefault("timeout", 30)
        return subprocess.run([*self.prefix(index), *command], **kwargs)

    def link_down(self, index: int) -> None:
        """Cuts worker ``index`` off: its veth (both ends) down."""
        _ip("-n", self.names[index], "link", "set", "eth0", "down")
        _ip("-n", self.hub, "link", "set", f"v{index}", "down")

    def drop(self, index: int, percent: int, mechanism: str) -> None:
        """Drops ``percent`` % of the packets worker ``index`` sends or receives on eth0, with "netem" (tc) or
        "nft" (an nftables rule in its namespace)."""
        if mechanism == "netem":
            self.run(index, "tc", "qdisc", "add", "dev", "eth0", "root", "netem", "loss", f"{percent}%", check=True)
        elif mechanism == "nft":
            self.run(index, "nft", "-f", "-", input=_nft_rules("eth0", percent), check=True)
        else:
            raise ValueError(f"mechanism must be 'netem' or 'nft', got {mechanism!r}")

    def dropped(self, index: int, mechanism: str) -> int:
        """Packets dropped so far on worker ``index`` (nft counters; netem's statistics)."""
        if mechanism == "nft":
            listing = self.run(index, "nft", "list", "table", "inet", "tfnet_drop", check=True).stdout
            return sum(int(part.split()[0]) for part in listing.split("counter packets ")[1:])
        stats = self.run(index, "tc", "-s", "qdisc", "show", "dev", "eth0", check=True).stdout
        return int(stats.split("dropped ")[1].split(",")[0]) if "dropped " in stats else 0

    def close(self) -> None:
        """Deletes every namespace (and with them every veth and the bridge); safe to call twice."""
        for name in reversed(self._made):
            _ip("netns", "del", name, check=False)
        self._made = []
        if self in _open:
            _open.remove(self)

    def __enter__(self) -> Network:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@atexit.register
def _close_all() -> None:
    for network in list(_open):
        network.close()
