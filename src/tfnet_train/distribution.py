"""Which process writes files in a multi-worker run."""

from __future__ import annotations

from typing import Any


def is_chief(model: Any) -> bool:
    """Whether this process writes the files of a multi-worker run (always, on one worker)."""
    return bool(model.distribute_strategy.extended.should_checkpoint)
