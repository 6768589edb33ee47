"""Keras 3's keras/src/callbacks/early_stopping_test.py from the installed wheel (harness: conftest.py)."""

from keras_suite.substitution import export

export("keras.src.callbacks.early_stopping_test", globals())
