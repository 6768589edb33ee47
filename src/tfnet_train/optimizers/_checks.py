"""Argument checks shared by the optimizers and schedules: each error names the argument, what it
expects and what it got."""

from __future__ import annotations

import math
import numbers


def as_float(name: str, value: object) -> float:
    """``value`` as a finite Python float; TypeError for non-numbers (bool included), ValueError for NaN/inf."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"Argument `{name}` must be a float, got {type(value).__name__}: {value!r}")
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"Argument `{name}` must be a finite float, got {name}={value!r}")
    return result


def positive(name: str, value: object) -> float:
    """A float > 0."""
    result = as_float(name, value)
    if result <= 0.0:
        raise ValueError(f"Argument `{name}` must be > 0, got {name}={value!r}")
    return result


def non_negative(name: str, value: object) -> float:
    """A float >= 0."""
    result = as_float(name, value)
    if result < 0.0:
        raise ValueError(f"Argument `{name}` must be >= 0, got {name}={value!r}")
    return result


def in_range(name: str, value: object, low: float, high: float, *, high_inclusive: bool) -> float:
    """A float in [low, high] or [low, high)."""
    result = as_float(name, value)
    above = result > high if high_inclusive else result >= high
    if result < low or above:
        bracket = "]" if high_inclusive else ")"
        raise ValueError(f"Argument `{name}` must be in [{low}, {high}{bracket}, got {name}={value!r}")
    return result


def optional_positive(name: str, value: object) -> float | None:
    """None, or a float > 0."""
    return None if value is None else positive(name, value)


def boolean(name: str, value: object) -> bool:
    """A bool (numpy bools accepted)."""
    if value is True or value is False or type(value).__name__ == "bool_":
        return bool(value)
    raise TypeError(f"Argument `{name}` must be a bool, got {type(value).__name__}: {value!r}")


def positive_int_or_float(name: str, value: object) -> float | int:
    """A number > 0, kept as given (steps may be int or float)."""
    positive(name, value)
    return value  # type: ignore[return-value]
