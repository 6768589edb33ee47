"""The errors that mean a fit's data went wrong while it was read (what a failed fit over such data puts back)."""

from __future__ import annotations

import tensorflow as tf


class BatchSourceError(RuntimeError):
    """A source of batches failed while a fit read it (e.g. the C# side of a batch stream)."""


#: A data error: TensorFlow's (a failing map, a batch of the wrong shape), a bad value or type, a failed source.
DATA_ERRORS: tuple[type[BaseException], ...] = (tf.errors.OpError, ValueError, TypeError, BatchSourceError)
