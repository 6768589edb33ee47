using System;
using System.Collections;
using System.Collections.Generic;
using System.Linq;
using Python.Runtime;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>TensorFlow.NET's element types (the common ones), mapped to NumPy/TensorFlow names.</summary>
    public enum TF_DataType
    {
        /// <summary>No dtype given: the operation's default.</summary>
        DtInvalid = 0,
        TF_FLOAT = 1,
        TF_DOUBLE = 2,
        TF_INT32 = 3,
        TF_UINT8 = 4,
        TF_INT16 = 5,
        TF_INT8 = 6,
        TF_STRING = 7,
        TF_INT64 = 9,
        TF_BOOL = 10,
        TF_HALF = 19,
    }

    /// <summary>A tensor shape (TF.NET's <c>Shape</c>); converts from an int, int[] or long[]; -1 is unknown.</summary>
    public sealed class Shape
    {
        private readonly long[] _dims;

        /// <summary>A shape of the given dimensions.</summary>
        public Shape(params long[] dims)
        {
            _dims = (long[])(dims ?? throw new ArgumentNullException(nameof(dims))).Clone();
        }

        /// <summary>A shape of the given dimensions.</summary>
        public Shape(params int[] dims) : this((dims ?? throw new ArgumentNullException(nameof(dims))).Select(d => (long)d).ToArray())
        {
        }

        /// <summary>The dimensions.</summary>
        public long[] dims => (long[])_dims.Clone();

        /// <summary>The rank.</summary>
        public int ndim => _dims.Length;

        /// <summary>Number of elements (-1 when a dimension is unknown).</summary>
        public long size => _dims.Any(d => d < 0) ? -1 : _dims.Aggregate(1L, (a, b) => a * b);

        /// <summary>Dimension <paramref name="i"/>.</summary>
        public long this[int i] => _dims[i];

        /// <summary>The dimensions as ints.</summary>
        public int[] as_int_list() => _dims.Select(d => (int)d).ToArray();

        /// <summary>The rank (TF.NET's <c>rank</c>).</summary>
        public int rank => _dims.Length;

        /// <summary>The dimensions as ints (TF.NET's <c>(int[])shape</c>).</summary>
        public static explicit operator int[](Shape shape) => shape?.as_int_list();

        /// <summary>The dimensions (TF.NET's <c>(long[])shape</c>).</summary>
        public static explicit operator long[](Shape shape) => shape?.dims;

        // TF.NET's tuple shapes: (28, 28, 1), (-1, 784).
        public static implicit operator Shape((int, int) dims) => new Shape(dims.Item1, dims.Item2);
        public static implicit operator Shape((int, int, int) dims) => new Shape(dims.Item1, dims.Item2, dims.Item3);
        public static implicit operator Shape((int, int, int, int) dims) => new Shape(dims.Item1, dims.Item2, dims.Item3, dims.Item4);
        public static implicit operator Shape((int, int, int, int, int) dims) => new Shape(dims.Item1, dims.Item2, dims.Item3, dims.Item4, dims.Item5);
        public static implicit operator Shape((long, long) dims) => new Shape(dims.Item1, dims.Item2);
        public static implicit operator Shape((long, long, long) dims) => new Shape(dims.Item1, dims.Item2, dims.Item3);
        public static implicit operator Shape((long, long, long, long) dims) => new Shape(dims.Item1, dims.Item2, dims.Item3, dims.Item4);
        public static implicit operator Shape(long dim) => new Shape(dim);

        public static implicit operator Shape(int dim) => new Shape(dim);
        public static implicit operator Shape(int[] dims) => dims == null ? null : new Shape(dims);
        public static implicit operator Shape(long[] dims) => dims == null ? null : new Shape(dims);

        /// <summary>"(None, 8)".</summary>
        public override string ToString() => "(" + string.Join(", ", _dims.Select(d => d < 0 ? "None" : d.ToString())) + ")";

        /// <summary>Same dimensions.</summary>
        public override bool Equals(object obj) => obj is Shape other && other._dims.SequenceEqual(_dims);

        public override int GetHashCode() => _dims.Aggregate(17, (h, d) => h * 31 + d.GetHashCode());
    }

    /// <summary>Runtime access and value conversion shared by the TensorFlow.NET-shaped classes.</summary>
    internal static class Face
    {
        private static readonly object StartLock = new object();

        /// <summary>
        /// The running Python runtime; started on first use (with default options) when none is, so a TF.NET
        /// program needs no start-up call. A runtime started here lives until the process exits (shutting Python down
        /// from an exit handler races Mono's own shutdown); start one in a using block to control its lifetime.
        /// </summary>
        public static PythonRuntime Runtime
        {
            get
            {
                PythonRuntime runtime = PythonRuntime.Current;
                if (runtime != null) return runtime;
                lock (StartLock)
                {
                    runtime = PythonRuntime.Current;
                    if (runtime != null) return runtime;
                    runtime = PythonRuntime.Start();
                    return runtime;
                }
            }
        }

        /// <summary>Runs <paramref name="body"/> on the Python thread.</summary>
        public static T Run<T>(PythonRuntime runtime, Func<BridgeFacade, T> body)
        {
            return runtime.Run(() => body(runtime.Facade));
        }

        /// <summary>Calls tfnet_train.bridge.&lt;module&gt;.&lt;name&gt;(*args, **kwargs) (GIL held).</summary>
        public static PyObject Invoke(BridgeFacade f, string module, string name, object[] args,
                                      IEnumerable<KeyValuePair<string, object>> kwargs = null)
        {
            var pyArgs = new PyObject[args.Length];
            try
            {
                for (int i = 0; i < args.Length; i++) pyArgs[i] = ToPython(args[i]);
                PyObject fn = f.Function(module, name); // cached by the facade: not disposed here
                if (kwargs == null) return fn.Invoke(pyArgs);
                using (var pyKwargs = Kwargs(kwargs))
                {
                    return fn.Invoke(pyArgs, pyKwargs);
                }
            }
            finally
            {
                foreach (var a in pyArgs) a?.Dispose();
            }
        }

        /// <summary>Like <see cref="Invoke"/>, dropping the result.</summary>
        public static void Call(BridgeFacade f, string module, string name, object[] args,
                                IEnumerable<KeyValuePair<string, object>> kwargs = null)
        {
            Invoke(f, module, name, args, kwargs).Dispose();
        }

        private static PyDict Kwargs(IEnumerable<KeyValuePair<string, object>> kwargs)
        {
            var dict = new PyDict();
            if (kwargs == null) return dict;
            foreach (var pair in kwargs)
            {
                if (pair.Value == null) continue;
                using (var v = ToPython(pair.Value)) dict[pair.Key] = v;
            }
            return dict;
        }

        /// <summary>Tensors and handles by reference, shapes as tuples, dtypes by name, the rest as PyConvert does.</summary>
        public static PyObject ToPython(object value)
        {
            var handle = value as PythonHandle;
            if (handle != null) return handle.Handle.NewReference();
            var array = value as NDArray;
            if (array != null && array.IsPythonBacked) return array.PythonView();
            var shape = value as Shape;
            if (shape != null) return PyConvert.ToPython(shape.as_int_list());
            if (value is TF_DataType) return DTypeName((TF_DataType)value) is string name ? new PyString(name) : PyObject.None;
            if (value is IDictionary<string, object> dictionary)
            {
                var dict = new PyDict();
                foreach (var pair in dictionary)
                {
                    using (var v = ToPython(pair.Value)) dict[pair.Key] = v;
                }
                return dict;
            }
            if (value is IEnumerable && !(value is string) && !(value is IDictionary) && !(value is int[]) && !(value is long[])
                && !(value is float[]) && !(value is double[]))
            {
                var list = new PyList();
                foreach (object item in (IEnumerable)value)
                {
                    using (var p = ToPython(item)) list.Append(p);
                }
                return list;
            }
            return PyConvert.ToPython(value);
        }

        /// <summary>The TensorFlow name of a dtype, null for <see cref="TF_DataType.DtInvalid"/>.</summary>
        public static string DTypeName(TF_DataType dtype)
        {
            switch (dtype)
            {
                case TF_DataType.TF_FLOAT: return "float32";
                case TF_DataType.TF_DOUBLE: return "float64";
                case TF_DataType.TF_INT32: return "int32";
                case TF_DataType.TF_INT64: return "int64";
                case TF_DataType.TF_UINT8: return "uint8";
                case TF_DataType.TF_INT8: return "int8";
                case TF_DataType.TF_INT16: return "int16";
                case TF_DataType.TF_HALF: return "float16";
                case TF_DataType.TF_STRING: return "string";
                case TF_DataType.TF_BOOL: return "bool";
                default: return null;
            }
        }

        /// <summary>The dtype of a TensorFlow name (DtInvalid when it has no TF_DataType here).</summary>
        public static TF_DataType FromName(string name)
        {
            foreach (TF_DataType d in Enum.GetValues(typeof(TF_DataType)))
                if (DTypeName(d) == name) return d;
            return TF_DataType.DtInvalid;
        }
    }

    /// <summary>
    /// A Python object held from C# (tensor, variable, tape, dataset, loss, metric, optimizer). <see cref="Dispose"/>
    /// releases it on the Python thread; handles never disposed are released by pythonnet's finalizer queue.
    /// </summary>
    public abstract class PythonHandle : IDisposable
    {
        private PyObject _handle;

        internal PythonHandle(PythonRuntime runtime, PyObject handle)
        {
            Runtime = runtime;
            _handle = handle;
        }

        internal PythonRuntime Runtime { get; }

        /// <summary>True once disposed.</summary>
        public bool IsDisposed => _handle == null;

        internal PyObject Handle
        {
            get
            {
                PyObject h = _handle;
                if (h == null) throw new ObjectDisposedException(GetType().Name, $"this {GetType().Name} has been disposed");
                Runtime.ThrowIfDisposed();
                return h;
            }
        }

        /// <summary>The Python object (use only with the GIL held, e.g. inside <see cref="PythonRuntime.Run{T}"/>).</summary>
        public PyObject PythonObject => Handle;

        /// <summary>Holds <paramref name="handle"/> from now on and returns the object held before (GIL held).</summary>
        internal PyObject SwapHandle(PyObject handle)
        {
            PyObject old = Handle;
            _handle = handle ?? throw new ArgumentNullException(nameof(handle));
            return old;
        }

        internal T Run<T>(Func<BridgeFacade, T> body)
        {
            PyObject unused = Handle;
            return Runtime.Run(() => body(Runtime.Facade));
        }

        /// <summary>Releases the Python object (no-op once the runtime is shut down).</summary>
        public virtual void Dispose()
        {
            PyObject handle = _handle;
            if (handle == null) return;
            _handle = null;
            if (!Runtime.IsDisposed) Runtime.Run(() => handle.Dispose());
        }
    }
}
