"""Semantics profiles: ``keras`` (Keras 3 numbers) and ``tfnet`` (what TensorFlow.NET's Keras 0.15 computes)."""

from __future__ import annotations

KERAS = "keras"
TFNET = "tfnet"
PROFILES = (KERAS, TFNET)


def check_semantics(value: object) -> str:
    """Validate a semantics argument and return it."""
    if value not in PROFILES:
        raise ValueError(f"semantics must be one of {PROFILES}, got {value!r}")
    return str(value)
