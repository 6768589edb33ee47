"""Keras 3's keras/src/callbacks/learning_rate_scheduler_test.py from the installed wheel (harness: conftest.py)."""

from keras_suite.substitution import export

export("keras.src.callbacks.learning_rate_scheduler_test", globals())
