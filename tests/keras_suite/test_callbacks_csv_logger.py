"""Keras 3's keras/src/callbacks/csv_logger_test.py from the installed wheel (harness: conftest.py)."""

from keras_suite.substitution import export

export("keras.src.callbacks.csv_logger_test", globals())
