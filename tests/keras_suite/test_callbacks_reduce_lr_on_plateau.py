"""Keras 3's keras/src/callbacks/reduce_lr_on_plateau_test.py from the installed wheel (harness: conftest.py)."""

from keras_suite.substitution import export

export("keras.src.callbacks.reduce_lr_on_plateau_test", globals())
