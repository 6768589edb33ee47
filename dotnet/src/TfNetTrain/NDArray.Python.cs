using System;
using System.Runtime.InteropServices;
using Python.Runtime;
using TfNetTrain.TensorFlowNet;

namespace TfNetTrain
{
    /// <summary>
    /// Python-backed NDArrays: the storage is a numpy array held from C#. Shape and dtype are read once, when the
    /// array is wrapped; the elements cross to C# once, when C# reads them (<see cref="Data"/>/<see cref="GetData{T}"/>
    /// switch the array to C# storage; <see cref="ToArray{T}"/> copies without switching).
    /// </summary>
    public sealed partial class NDArray
    {
        private PyObject _py;
        private readonly PythonRuntime _runtime;
        private readonly string _npDtype;
        private readonly bool _exchangeDtype;
        private readonly object _materializeLock = new object();
        private readonly object _lendLock = new object(); // never held across a Python call
        private int _lent;            // batch passes holding the Python array's address for the Python side (_lendLock)
        private PyObject _lentAway;   // the Python array after C# read it while lent: alive until the last return

        private NDArray(PythonRuntime runtime, PyObject array, int[] shape, string npDtype)
        {
            _runtime = runtime;
            _py = array;
            _shape = shape;
            _npDtype = npDtype;
            DType d;
            _exchangeDtype = DTypes.TryFromNumpyName(npDtype, out d);
            _dtype = d;
        }

        /// <summary>True while the elements live in Python (not yet read into C#).</summary>
        public bool IsPythonBacked => _py != null;

        /// <summary>The numpy name of the element type ("float32", "uint8", ...).</summary>
        public string DTypeName => _npDtype != null ? _npDtype : _dtype.NumpyName();

        /// <summary>Wraps a numpy array (or anything np.asarray takes) without copying; GIL held.</summary>
        internal static NDArray WrapPython(PythonRuntime runtime, PyObject value)
        {
            PyObject array = value;
            if (!ArrayExchange.IsNdarray(value))
            {
                using (var np = Py.Import("numpy")) array = np.InvokeMethod("asarray", value);
                value.Dispose();
            }
            int[] shape;
            string dtype;
            using (var s = array.GetAttr("shape")) shape = PyConvert.ToInts(s);
            using (var dt = array.GetAttr("dtype"))
            using (var n = dt.GetAttr("name"))
            {
                dtype = n.As<string>();
            }
            return new NDArray(runtime, array, shape, dtype);
        }

        /// <summary>
        /// The numpy array behind this NDArray (a new reference; GIL held): the Python-backed array itself, or a
        /// zero-copy view over C# storage (pythonnet exports .NET arrays through the buffer protocol).
        /// </summary>
        internal PyObject PythonView()
        {
            PyObject py = _py;
            if (py != null) return py.NewReference();
            return ArrayExchange.ViewAsNumpy(this);
        }

        /// <summary>The Python-backed array (a new reference), or null for C# storage; GIL held.</summary>
        internal PyObject PythonArrayOrNull() => _py?.NewReference();

        private Array Materialize()
        {
            if (_data != null) return _data;
            lock (_materializeLock)
            {
                if (_data != null) return _data;
                if (!_exchangeDtype)
                    throw new TfNetTrainArgumentException("T", $"this array holds {_npDtype}; C# storage takes float32, float64, int32 or int64: convert it with astype");
                PyObject py = _py;
                Array data = _runtime.Run(() => ArrayExchange.FromNumpy(py).Data);
                bool lent;
                lock (_lendLock)
                {
                    _data = data;
                    _py = null;
                    lent = _lent > 0;
                    if (lent) _lentAway = py;
                }
                if (!lent) _runtime.Run(() => py.Dispose());
                return data;
            }
        }

        /// <summary>
        /// For a batch producer thread, which must not wait for the Python thread: the address of the Python array
        /// behind this NDArray, kept alive until <see cref="ReturnPython"/> (the Python side takes its own reference
        /// while it reads the batch); IntPtr.Zero when the elements are in C# storage (<see cref="LocalData"/>).
        /// No GIL, no Python call.
        /// </summary>
        internal IntPtr LendPython()
        {
            lock (_lendLock)
            {
                if (_py == null) return IntPtr.Zero;
                _lent++;
#pragma warning disable 612 // PyObject.Handle: the Python side needs the raw pointer
                return _py.Handle;
#pragma warning restore 612
            }
        }

        /// <summary>Ends one <see cref="LendPython"/>. No GIL: an array C# read meanwhile goes to the .NET finalizer.</summary>
        internal void ReturnPython()
        {
            lock (_lendLock)
            {
                if (--_lent == 0 && _lentAway != null) _lentAway = null;
            }
        }

        /// <summary>The C# storage, which <see cref="LendPython"/> returning IntPtr.Zero guarantees; never a Python call.</summary>
        internal Array LocalData => _data ?? throw new InvalidOperationException("the elements of this NDArray are held in Python");

        private T[] PythonToArray<T>()
        {
            PyObject py = _py;
            if (py == null) return ((T[])Storage<T>()).Clone() as T[];
            Type element = typeof(T);
            bool match = element == typeof(byte) ? _npDtype == "uint8" : element == typeof(bool) ? _npDtype == "bool"
                : element == typeof(short) ? _npDtype == "int16" : _exchangeDtype && _dtype.ClrType() == element;
            if (!match)
                throw new TfNetTrainArgumentException("T", $"this array holds {_npDtype}; asked for {element.Name}");
            int size = Size;
            var result = new T[size];
            if (size == 0) return result;
            _runtime.Run(() =>
            {
                using (var contiguous = ArrayExchange.Contiguous(py))
                using (var buffer = contiguous.GetBuffer(PyBUF.C_CONTIGUOUS))
                {
                    CopyFromPointer(buffer.Buffer, result, size);
                    ExchangeCounters.ToCSharp(buffer.Length);
                }
                return 0;
            });
            return result;
        }

        private static void CopyFromPointer<T>(IntPtr source, T[] destination, int count)
        {
            Array d = destination;
            if (d is float[] f) Marshal.Copy(source, f, 0, count);
            else if (d is double[] db) Marshal.Copy(source, db, 0, count);
            else if (d is int[] i32) Marshal.Copy(source, i32, 0, count);
            else if (d is long[] i64) Marshal.Copy(source, i64, 0, count);
            else if (d is byte[] u8) Marshal.Copy(source, u8, 0, count);
            else if (d is short[] i16) Marshal.Copy(source, i16, 0, count);
            else if (d is bool[] bools)
            {
                var bytes = new byte[count];
                Marshal.Copy(source, bytes, 0, count);
                for (int i = 0; i < count; i++) bools[i] = bytes[i] != 0;
            }
            else throw new TfNetTrainArgumentException("T", $"cannot read elements as {typeof(T).Name}");
        }
    }
}
