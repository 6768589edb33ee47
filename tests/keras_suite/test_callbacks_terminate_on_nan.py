"""Keras 3's keras/src/callbacks/terminate_on_nan_test.py from the installed wheel (harness: conftest.py)."""

from keras_suite.substitution import export

export("keras.src.callbacks.terminate_on_nan_test", globals())
