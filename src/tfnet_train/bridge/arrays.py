"""Array exchange with the C# host: every array crossing the bridge is C-contiguous and of one of four dtypes.

C# copies its buffers into arrays made by `empty` and reads arrays returned by `exchange_array` through the
buffer protocol (one memcpy each way). Narrow or unusual dtypes are widened to the nearest exchange dtype so the
host only has to know four element types.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

#: The element types C# understands, by numpy name.
EXCHANGE_DTYPES: tuple[str, ...] = ("float32", "float64", "int32", "int64")

_WIDENED: dict[str, str] = {
    "float16": "float32",
    "bfloat16": "float32",
    "bool": "int32",
    "int8": "int32",
    "int16": "int32",
    "uint8": "int32",
    "uint16": "int32",
    "uint32": "int64",
}


def exchange_dtype(dtype: Any) -> np.dtype:
    """The exchange dtype an array of `dtype` travels as; TypeError when it has none (e.g. complex, uint64)."""
    name = np.dtype(dtype).name
    if name in EXCHANGE_DTYPES:
        return np.dtype(name)
    if name in _WIDENED:
        return np.dtype(_WIDENED[name])
    raise TypeError(
        f"array dtype must be one of {', '.join(EXCHANGE_DTYPES)} (or a narrower int/float/bool type); got {name}"
    )


def exchange_array(value: Any) -> np.ndarray:
    """`value` (ndarray, tensor, variable or scalar) as a C-contiguous ndarray of an exchange dtype."""
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
        value = value.numpy()
    array = np.asarray(value)
    target = exchange_dtype(array.dtype)
    if array.dtype == target and array.flags.c_contiguous:
        return array
    return np.asarray(array, dtype=target, order="C")


def exchange_list(values: Iterable[Any]) -> list[np.ndarray]:
    """Every item of `values` through `exchange_array`."""
    return [exchange_array(v) for v in values]


def empty(shape: Sequence[int], dtype: str) -> np.ndarray:
    """A new C-contiguous array for the host to fill; `dtype` must be an exchange dtype name."""
    if dtype not in EXCHANGE_DTYPES:
        raise TypeError(f"dtype must be one of {', '.join(EXCHANGE_DTYPES)}; got {dtype!r}")
    return np.empty(tuple(shape), dtype=dtype)


def echo(value: Any) -> np.ndarray:
    """A copy of `value` as an exchange array (round-trip checks and exchange benchmarks use it)."""
    return np.array(exchange_array(value), copy=True)


def describe(value: Any) -> dict[str, Any]:
    """Dtype name, shape and a float64 checksum of `value`: lets the host check what arrived without copying back."""
    array = np.asarray(value)
    return {
        "dtype": array.dtype.name,
        "shape": list(array.shape),
        "sum": float(np.sum(array, dtype=np.float64)),
        "c_contiguous": bool(array.flags.c_contiguous),
    }
