"""The one place where numerical parity is defined: tolerances per dtype and the comparison that uses them."""

from __future__ import annotations

import numpy as np

# (rtol, atol) per floating dtype. float32 is the default for every parity test and conformance case.
TOLERANCES: dict[str, tuple[float, float]] = {
    "float16": (1e-3, 1e-3),
    "float32": (1e-5, 1e-6),
    "float64": (1e-12, 1e-14),
}
RTOL, ATOL = TOLERANCES["float32"]


def tolerance_for(dtype: object = "float32") -> tuple[float, float]:
    """Return (rtol, atol) for a dtype name or numpy dtype; integer and bool dtypes compare exactly."""
    name = np.dtype(dtype).name
    if name in TOLERANCES:
        return TOLERANCES[name]
    return (0.0, 0.0)


def allclose(actual: object, expected: object, rtol: float = RTOL, atol: float = ATOL) -> bool:
    """True when |actual - expected| <= atol + rtol * |expected| everywhere (NaNs equal)."""
    a, e = np.asarray(actual), np.asarray(expected)
    return a.shape == e.shape and bool(np.allclose(a, e, rtol=rtol, atol=atol, equal_nan=True))


def assert_close(actual: object, expected: object, rtol: float = RTOL, atol: float = ATOL, what: str = "") -> None:
    """Assert closeness with the project's tolerance; the message names the worst element."""
    a, e = np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    label = f"{what}: " if what else ""
    if a.shape != e.shape:
        raise AssertionError(f"{label}shape {a.shape} != expected shape {e.shape}")
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True, err_msg=label)
