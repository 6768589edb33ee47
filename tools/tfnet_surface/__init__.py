"""TensorFlow.NET's public surface as C# declarations implemented by rule over one bridge call (see README.md)."""
