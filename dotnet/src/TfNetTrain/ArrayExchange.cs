using System;
using System.Runtime.InteropServices;
using Python.Runtime;

[assembly: System.Runtime.CompilerServices.InternalsVisibleTo("TfNetTrain.Tests")]

namespace TfNetTrain
{
    /// <summary>
    /// Moves arrays between <see cref="NDArray"/> and numpy with one memcpy each way: C# to numpy fills a fresh
    /// np.empty through its buffer; numpy to C# reads a C-contiguous buffer with Marshal.Copy. Every method needs
    /// the GIL.
    /// </summary>
    internal static class ArrayExchange
    {
        private static PyObject _numpyEmpty;
        private static PyObject _numpyAsarray;
        private static PyObject[] _dtypes;
        private static PyObject _ndarrayType;
        private static PyObject _exchangeArray;

        /// <summary>A new numpy array holding a copy of <paramref name="array"/>.</summary>
        public static PyObject ToNumpy(NDArray array)
        {
            if (array == null) throw new ArgumentNullException(nameof(array));
            EnsureNumpy();
            using (PyObject python = array.PythonArrayOrNull())
            {
                if (python != null) return python.InvokeMethod("copy"); // a Python-backed array: copied in Python
            }
            int[] shape = array.ShapeNoCopy;
            PyObject result;
            using (var pyShape = ShapeTuple(shape))
            {
                result = _numpyEmpty.Invoke(pyShape, _dtypes[(int)array.DType]);
            }
            if (array.Size > 0)
            {
                try
                {
                    using (var buffer = result.GetBuffer(PyBUF.CONTIG))
                    {
                        CopyToNative(array.Data, array.DType, buffer.Buffer, array.Size);
                    }
                }
                catch
                {
                    result.Dispose();
                    throw;
                }
            }
            return result;
        }

        /// <summary>
        /// A numpy view over the array's own memory, without a copy: pythonnet exports .NET primitive arrays through
        /// the buffer protocol and keeps them pinned for as long as the view lives. For inputs Python reads during
        /// the call (the engine copies them into tensors); the caller must not change the array meanwhile.
        /// </summary>
        public static PyObject ViewAsNumpy(NDArray array)
        {
            if (array == null) throw new ArgumentNullException(nameof(array));
            EnsureNumpy();
            PyObject python = array.PythonArrayOrNull();
            if (python != null) return python; // a Python-backed array is its own view
            using (var exported = array.Data.ToPython())
            using (var flat = _numpyAsarray.Invoke(exported))
            using (var pyShape = ShapeTuple(array.ShapeNoCopy))
            {
                return flat.InvokeMethod("reshape", new PyObject[] { pyShape }); // the shape as one argument (a rank-0 shape is an empty tuple)
            }
        }

        /// <summary>
        /// A list of new numpy arrays, one per item (with <paramref name="view"/>, zero-copy views as
        /// <see cref="ViewAsNumpy"/> makes).
        /// </summary>
        public static PyList ToNumpyList(System.Collections.Generic.IList<NDArray> arrays, string paramName,
                                         bool view = false)
        {
            var list = new PyList();
            try
            {
                for (int i = 0; i < arrays.Count; i++)
                {
                    if (arrays[i] == null) throw new ArgumentNullException(paramName, $"{paramName}[{i}] is null");
                    using (var item = view ? ViewAsNumpy(arrays[i]) : ToNumpy(arrays[i])) list.Append(item);
                }
            }
            catch
            {
                list.Dispose();
                throw;
            }
            return list;
        }

        /// <summary>
        /// A new NDArray copied from <paramref name="value"/>: a C-contiguous numpy array of an exchange dtype is read
        /// directly; anything else goes through tfnet_train.bridge.exchange_array first.
        /// </summary>
        public static NDArray FromNumpy(PyObject value)
        {
            if (value == null) throw new ArgumentNullException(nameof(value));
            using (ExchangeBuffer buffer = ExchangeBufferOf(value))
            {
                int[] shape = ReadShape(buffer.Buffer);
                long size = 1;
                foreach (int d in shape) size *= d;
                Array data = Array.CreateInstance(buffer.DType.ClrType(), checked((int)size));
                if (size > 0) CopyFromNative(buffer.Buffer.Buffer, data, buffer.DType, (int)size);
                return NDArray.Wrap(data, buffer.DType, shape);
            }
        }

        /// <summary>
        /// Copies <paramref name="value"/> into <paramref name="destination"/>, which must already have its dtype and
        /// shape (output buffers are reused this way, without allocating).
        /// </summary>
        public static void CopyInto(PyObject value, NDArray destination, string paramName)
        {
            using (ExchangeBuffer buffer = ExchangeBufferOf(value))
            {
                int[] shape = ReadShape(buffer.Buffer);
                if (buffer.DType != destination.DType || !SameShape(shape, destination.ShapeNoCopy))
                {
                    throw new TfNetTrainArgumentException(paramName,
                        $"the result is {buffer.DType.NumpyName()} {NDArray.FormatShape(shape)} but the output array is " +
                        $"{destination.DType.NumpyName()} {NDArray.FormatShape(destination.ShapeNoCopy)}");
                }
                if (destination.Size > 0) CopyFromNative(buffer.Buffer.Buffer, destination.Data, buffer.DType, destination.Size);
            }
        }

        /// <summary>
        /// Copies <paramref name="source"/> into an existing writable, C-contiguous numpy array of the same dtype and
        /// shape (no allocation on either side).
        /// </summary>
        public static void CopyToExisting(NDArray source, PyObject destination, string paramName)
        {
            EnsureNumpy();
            DType dtype;
            if (!IsExactNdarray(destination) || !TryDType(destination, out dtype) || dtype != source.DType)
                throw new TfNetTrainArgumentException(paramName, $"must be a numpy {source.DType.NumpyName()} array");
            PyBuffer buffer;
            try
            {
                buffer = destination.GetBuffer(PyBUF.CONTIG);
            }
            catch (PythonException)
            {
                throw new TfNetTrainArgumentException(paramName, "must be a writable C-contiguous numpy array");
            }
            using (buffer)
            {
                int[] shape = ReadShape(buffer);
                if (!SameShape(shape, source.ShapeNoCopy))
                {
                    throw new TfNetTrainArgumentException(paramName,
                        $"has shape {NDArray.FormatShape(shape)} but the source array is {NDArray.FormatShape(source.ShapeNoCopy)}");
                }
                if (source.Size > 0) CopyToNative(source.Data, source.DType, buffer.Buffer, source.Size);
            }
        }

        /// <summary>True for a numpy ndarray (exactly; not a subclass).</summary>
        public static bool IsNdarray(PyObject value)
        {
            EnsureNumpy();
            return IsExactNdarray(value);
        }

        /// <summary><paramref name="array"/> C-contiguous: a new reference to it, or a contiguous copy made in numpy.</summary>
        public static PyObject Contiguous(PyObject array)
        {
            EnsureNumpy();
            using (var flags = array.GetAttr("flags"))
            using (var c = flags.GetAttr("c_contiguous"))
            {
                if (c.IsTrue()) return array.NewReference();
            }
            using (var numpy = Py.Import("numpy")) return numpy.InvokeMethod("ascontiguousarray", array);
        }

        /// <summary>Releases cached numpy objects (with the GIL, before the interpreter shuts down).</summary>
        public static void Reset()
        {
            _numpyEmpty?.Dispose();
            _numpyAsarray?.Dispose();
            _ndarrayType?.Dispose();
            _exchangeArray?.Dispose();
            if (_dtypes != null) foreach (var d in _dtypes) d.Dispose();
            _numpyEmpty = null;
            _numpyAsarray = null;
            _ndarrayType = null;
            _dtypes = null;
            _exchangeArray = null;
        }

        private static ExchangeBuffer ExchangeBufferOf(PyObject value)
        {
            ExchangeBuffer buffer = TryExchangeBuffer(value);
            if (buffer != null) return buffer;
            using (var converted = ExchangeArray(value))
            {
                buffer = TryExchangeBuffer(converted);
                if (buffer == null)
                    throw new TfNetTrainException("tfnet_train.bridge.exchange_array returned something other than a C-contiguous exchange array");
                return buffer;
            }
        }

        /// <summary>
        /// The buffer and dtype of a C-contiguous numpy array of an exchange dtype, or null when the value is
        /// anything else. The dtype comes from the array's dtype object (numpy's built-in dtypes are singletons),
        /// not from the buffer's format string: asking pythonnet for PyBUF.FORMATS makes the marshaller free
        /// numpy's format string, which crashes the process.
        /// </summary>
        private static ExchangeBuffer TryExchangeBuffer(PyObject value)
        {
            EnsureNumpy();
            DType dtype;
            if (!IsExactNdarray(value) || !TryDType(value, out dtype)) return null;
            PyBuffer buffer;
            try
            {
                buffer = value.GetBuffer(PyBUF.C_CONTIGUOUS);
            }
            catch (PythonException)
            {
                return null; // not C-contiguous: let exchange_array copy it
            }
            return new ExchangeBuffer(buffer, dtype);
        }

#pragma warning disable 612 // PyObject.Handle: identity checks need the raw pointer
        private static bool IsExactNdarray(PyObject value)
        {
            using (var type = value.GetPythonType()) return type.Handle == _ndarrayType.Handle;
        }

        /// <summary>The exchange dtype of an ndarray (numpy's built-in dtypes are singletons, so identity decides).</summary>
        private static bool TryDType(PyObject array, out DType dtype)
        {
            using (var dt = array.GetAttr("dtype"))
            {
                int index = Array.FindIndex(_dtypes, d => d.Handle == dt.Handle);
                dtype = (DType)Math.Max(index, 0);
                return index >= 0;
            }
        }
#pragma warning restore 612

        private static int[] ReadShape(PyBuffer buffer)
        {
            long[] shape = buffer.Shape ?? new long[0];
            var result = new int[buffer.Dimensions];
            for (int i = 0; i < result.Length; i++) result[i] = checked((int)shape[i]);
            return result;
        }

        private static PyObject ExchangeArray(PyObject value)
        {
            if (_exchangeArray == null)
            {
                using (var module = Py.Import("tfnet_train.bridge.arrays"))
                {
                    _exchangeArray = module.GetAttr("exchange_array");
                }
            }
            return _exchangeArray.Invoke(value);
        }

        private static void EnsureNumpy()
        {
            if (_numpyEmpty != null) return;
            using (var numpy = Py.Import("numpy"))
            {
                var dtypes = new PyObject[4];
                using (var dtypeFactory = numpy.GetAttr("dtype"))
                {
                    foreach (DType d in new[] { DType.Float32, DType.Float64, DType.Int32, DType.Int64 })
                    {
                        using (var name = new PyString(d.NumpyName())) dtypes[(int)d] = dtypeFactory.Invoke(name);
                    }
                }
                _dtypes = dtypes;
                _ndarrayType = numpy.GetAttr("ndarray");
                _numpyEmpty = numpy.GetAttr("empty");
                _numpyAsarray = numpy.GetAttr("asarray");
            }
        }

        private static PyTuple ShapeTuple(int[] shape)
        {
            var items = new PyObject[shape.Length];
            try
            {
                for (int i = 0; i < shape.Length; i++) items[i] = PyConvert.Int(shape[i]);
                return new PyTuple(items);
            }
            finally
            {
                foreach (var item in items) item?.Dispose();
            }
        }

        /// <summary>A buffer with its dtype; disposing releases the buffer (and the array it keeps alive).</summary>
        private sealed class ExchangeBuffer : IDisposable
        {
            public ExchangeBuffer(PyBuffer buffer, DType dtype)
            {
                Buffer = buffer;
                DType = dtype;
            }

            public PyBuffer Buffer { get; }
            public DType DType { get; }

            public void Dispose() => Buffer.Dispose();
        }

        private static bool SameShape(int[] a, int[] b)
        {
            if (a.Length != b.Length) return false;
            for (int i = 0; i < a.Length; i++) if (a[i] != b[i]) return false;
            return true;
        }

        internal static void CopyToNative(Array source, DType dtype, IntPtr destination, int count)
        {
            ExchangeCounters.ToPython((long)count * dtype.ElementSize());
            switch (dtype)
            {
                case DType.Float32: Marshal.Copy((float[])source, 0, destination, count); break;
                case DType.Float64: Marshal.Copy((double[])source, 0, destination, count); break;
                case DType.Int32: Marshal.Copy((int[])source, 0, destination, count); break;
                default: Marshal.Copy((long[])source, 0, destination, count); break;
            }
        }

        private static void CopyFromNative(IntPtr source, Array destination, DType dtype, int count)
        {
            ExchangeCounters.ToCSharp((long)count * dtype.ElementSize());
            switch (dtype)
            {
                case DType.Float32: Marshal.Copy(source, (float[])destination, 0, count); break;
                case DType.Float64: Marshal.Copy(source, (double[])destination, 0, count); break;
                case DType.Int32: Marshal.Copy(source, (int[])destination, 0, count); break;
                default: Marshal.Copy(source, (long[])destination, 0, count); break;
            }
        }
    }
}
