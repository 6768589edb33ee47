"""`HostCallback`: a tfnet_train Callback that forwards training hooks to an object of the C# host."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tfnet_train.callbacks import BATCH_HOOKS, Callback
from tfnet_train.callbacks.callback_list import check_batch_mode

#: The hooks a host callback can receive.
HOST_HOOKS: tuple[str, ...] = (
    "on_train_begin",
    "on_train_end",
    "on_epoch_begin",
    "on_epoch_end",
    "on_train_batch_begin",
    "on_train_batch_end",
)


class HostCallback(Callback):
    """Calls ``host.Dispatch(hook, index, logs)`` for each hook in ``hooks`` (index -1 for begin/end of training).

    Hooks the host does not implement are not forwarded, and batch hooks are skipped entirely by the engine when
    the host implements none of them.
    """

    def __init__(self, host: Any, hooks: Iterable[str] = HOST_HOOKS) -> None:
        super().__init__()
        hooks = frozenset(hooks)
        unknown = sorted(hooks - set(HOST_HOOKS))
        if unknown:
            raise ValueError(f"hooks must be among {HOST_HOOKS}; got {unknown}")
        self._host = host
        self._hooks = hooks

    def needs_batch_hooks(self, mode: str) -> bool:
        check_batch_mode(mode)
        return not self._hooks.isdisjoint(BATCH_HOOKS[mode])

    def _send(self, hook: str, index: int, logs: dict | None) -> None:
        if hook in self._hooks:
            self._host.Dispatch(hook, index, {} if logs is None else logs)

    def on_train_begin(self, logs: dict | None = None) -> None:
        self._send("on_train_begin", -1, logs)

    def on_train_end(self, logs: dict | None = None) -> None:
        self._send("on_train_end", -1, logs)

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        self._send("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        self._send("on_epoch_end", epoch, logs)

    def on_train_batch_begin(self, batch: int, logs: dict | None = None) -> None:
        self._send("on_train_batch_begin", batch, logs)

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        self._send("on_train_batch_end", batch, logs)


def host_callback(host: Any, hooks: Iterable[str] = HOST_HOOKS) -> HostCallback:
    """A HostCallback for ``host`` (see HostCallback)."""
    return HostCallback(host, hooks)
