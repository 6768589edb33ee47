using System;
using System.Globalization;
using System.Text;
using Python.Runtime;

namespace TfNetTrain
{
    /// <summary>
    /// A dense, C-ordered (row-major) array of float, double, int or long with a shape. The constructors taking a
    /// flat array use that array as storage without copying it; <see cref="From(Array)"/> copies a C#
    /// (multi-dimensional) array with one block copy. Arrays cross to and from Python with one buffer copy.
    /// An NDArray made by the <c>np</c> surface (TensorFlowNet.NumPyApi) or returned by <c>tensor.numpy()</c> is
    /// backed by a Python numpy array instead (NDArray.Python.cs): its data stays in Python, where np operations run,
    /// until C# reads it (<see cref="GetData{T}"/>, <see cref="Data"/>, <see cref="ToArray{T}"/>).
    /// </summary>
    public sealed partial class NDArray
    {
        private Array _data;
        private readonly int[] _shape;
        private readonly DType _dtype;

        /// <summary>
        /// Wraps <paramref name="data"/> (not copied) with <paramref name="shape"/>; no shape means [data.Length].
        /// Use <see cref="Scalar(float)"/> for rank 0.
        /// </summary>
        public NDArray(float[] data, params int[] shape) : this(data, DType.Float32, OrVector(shape, data), nameof(data)) { }

        /// <summary>Wraps <paramref name="data"/> (not copied); no shape means [data.Length].</summary>
        public NDArray(double[] data, params int[] shape) : this(data, DType.Float64, OrVector(shape, data), nameof(data)) { }

        /// <summary>Wraps <paramref name="data"/> (not copied); no shape means [data.Length].</summary>
        public NDArray(int[] data, params int[] shape) : this(data, DType.Int32, OrVector(shape, data), nameof(data)) { }

        /// <summary>Wraps <paramref name="data"/> (not copied); no shape means [data.Length].</summary>
        public NDArray(long[] data, params int[] shape) : this(data, DType.Int64, OrVector(shape, data), nameof(data)) { }

        private NDArray(Array data, DType dtype, int[] shape, string paramName)
        {
            if (data == null) throw new ArgumentNullException(paramName);
            _data = data;
            _dtype = dtype;
            _shape = (int[])shape.Clone();
            long size = CheckedSize(_shape, nameof(shape));
            if (size != data.Length)
            {
                throw new TfNetTrainArgumentException(nameof(shape), string.Format(CultureInfo.InvariantCulture,
                    "shape {0} holds {1} elements but {2} has {3}", FormatShape(_shape), size, paramName, data.Length));
            }
        }

        /// <summary>The dimensions; an empty array for a scalar (rank 0). A copy: changing it changes nothing.</summary>
        public int[] Shape => (int[])_shape.Clone();

        /// <summary>The element type (a TfNetTrainArgumentException for a Python-backed array of another dtype, e.g. uint8).</summary>
        public DType DType
        {
            get
            {
                if (_npDtype != null && !_exchangeDtype)
                    throw new TfNetTrainArgumentException(nameof(DType), $"this array holds {_npDtype}, which DType does not name (float32, float64, int32, int64); convert it with astype");
                return _dtype;
            }
        }

        /// <summary>Number of dimensions.</summary>
        public int Rank => _shape.Length;

        /// <summary>Number of elements.</summary>
        public int Size => _data != null ? _data.Length : (int)CheckedSize(_shape, "shape");

        /// <summary>Dimension <paramref name="axis"/> (negative counts from the end).</summary>
        public int Dim(int axis)
        {
            int a = axis < 0 ? axis + _shape.Length : axis;
            if (a < 0 || a >= _shape.Length)
                throw new TfNetTrainArgumentException(nameof(axis), $"axis {axis} is out of range for rank {_shape.Length}");
            return _shape[a];
        }

        /// <summary>A new array of zeros.</summary>
        public static NDArray Zeros(DType dtype, params int[] shape)
        {
            if (shape == null) throw new ArgumentNullException(nameof(shape));
            long size = CheckedSize(shape, nameof(shape));
            return new NDArray(Array.CreateInstance(dtype.ClrType(), (int)size), dtype, shape, "data");
        }

        /// <summary>A rank-0 float32 array.</summary>
        public static NDArray Scalar(float value) => Wrap(new[] { value }, DType.Float32, new int[0]);

        /// <summary>A rank-0 float64 array.</summary>
        public static NDArray Scalar(double value) => Wrap(new[] { value }, DType.Float64, new int[0]);

        /// <summary>A rank-0 int32 array.</summary>
        public static NDArray Scalar(int value) => Wrap(new[] { value }, DType.Int32, new int[0]);

        /// <summary>A rank-0 int64 array.</summary>
        public static NDArray Scalar(long value) => Wrap(new[] { value }, DType.Int64, new int[0]);

        /// <summary>
        /// Copies any C# array of float, double, int or long — float[], float[,], long[,,], ... — into a new NDArray
        /// with the same shape, with one Buffer.BlockCopy (no per-element work). Jagged arrays are not accepted.
        /// </summary>
        public static NDArray From(Array array)
        {
            if (array == null) throw new ArgumentNullException(nameof(array));
            Type element = array.GetType().GetElementType();
            DType dtype;
            if (!DTypes.TryFromClrType(element, out dtype))
            {
                throw new TfNetTrainArgumentException(nameof(array),
                    $"element type must be float, double, int or long (jagged arrays are not supported); got {element}[]");
            }
            var shape = new int[array.Rank];
            for (int i = 0; i < shape.Length; i++) shape[i] = array.GetLength(i);
            Array flat = Array.CreateInstance(element, array.Length);
            Buffer.BlockCopy(array, 0, flat, 0, array.Length * dtype.ElementSize());
            return new NDArray(flat, dtype, shape, nameof(array));
        }

        /// <summary>A copy of the elements in row-major order; <typeparamref name="T"/> must match <see cref="DType"/>.</summary>
        public T[] ToArray<T>()
        {
            if (_data == null) return PythonToArray<T>();
            T[] source = Storage<T>();
            return (T[])source.Clone();
        }

        /// <summary>
        /// The storage itself (no copy): the array given to the constructor, or the one this NDArray allocated.
        /// <typeparamref name="T"/> must match <see cref="DType"/>.
        /// </summary>
        public T[] GetData<T>() => Storage<T>();

        /// <summary>The storage as an untyped array (no copy; a Python-backed array is copied into C# once, here).</summary>
        public Array Data => Materialize();

        /// <summary>A new C# array with this shape (float[,] for a float32 matrix, ...), made with one block copy.</summary>
        public Array ToMultidimensionalArray()
        {
            Type element = DType.ClrType();
            Array result = _shape.Length == 0 ? Array.CreateInstance(element, 1) : Array.CreateInstance(element, _shape);
            Buffer.BlockCopy(Data, 0, result, 0, Size * DType.ElementSize());
            return result;
        }

        /// <summary>Element at a flat (row-major) index, as a double.</summary>
        public double GetDouble(int flatIndex)
        {
            Array data = Data;
            switch (DType)
            {
                case DType.Float32: return ((float[])data)[flatIndex];
                case DType.Float64: return ((double[])data)[flatIndex];
                case DType.Int32: return ((int[])data)[flatIndex];
                default: return ((long[])data)[flatIndex];
            }
        }

        /// <summary>Copies the elements of <paramref name="source"/> into this array (same dtype and shape).</summary>
        public void CopyFrom(NDArray source)
        {
            if (source == null) throw new ArgumentNullException(nameof(source));
            CheckSameLayout(source, nameof(source));
            Buffer.BlockCopy(source.Data, 0, Data, 0, Size * DType.ElementSize());
        }

        /// <summary>True when <paramref name="other"/> has the same dtype and shape.</summary>
        public bool SameLayout(NDArray other)
        {
            if (other == null || other.DTypeName != DTypeName || other._shape.Length != _shape.Length) return false;
            for (int i = 0; i < _shape.Length; i++) if (other._shape[i] != _shape[i]) return false;
            return true;
        }

        /// <summary>
        /// True when dtype, shape and every element's bits are equal (so NaNs with the same payload are equal and
        /// 0.0 differs from -0.0): equality "to the last bit".
        /// </summary>
        public bool BitwiseEquals(NDArray other)
        {
            if (!SameLayout(other)) return false;
            int bytes = Size * DType.ElementSize();
            if (bytes == 0) return true;
            var a = new byte[bytes];
            var b = new byte[bytes];
            Buffer.BlockCopy(Data, 0, a, 0, bytes);
            Buffer.BlockCopy(other.Data, 0, b, 0, bytes);
            for (int i = 0; i < bytes; i++) if (a[i] != b[i]) return false;
            return true;
        }

        /// <summary>
        /// Copies this array into a new numpy array (one memcpy through the buffer protocol). Needs a running
        /// interpreter; call it on the Python thread (inside <see cref="PythonRuntime.Run{T}(Func{T})"/>) or from
        /// Python code that hosts .NET. The GIL is taken here.
        /// </summary>
        public PyObject ToPython()
        {
            using (Py.GIL()) return ArrayExchange.ToNumpy(this);
        }

        /// <summary>
        /// Copies a numpy array (or anything numpy can turn into an array of the four dtypes) into a new NDArray.
        /// Same rules as <see cref="ToPython"/>.
        /// </summary>
        public static NDArray FromPython(PyObject array)
        {
            using (Py.GIL()) return ArrayExchange.FromNumpy(array);
        }

        /// <summary>
        /// Copies a numpy array of this dtype and shape into this array's storage (no allocation): the reusable
        /// counterpart of <see cref="FromPython"/>. Same rules as <see cref="ToPython"/>.
        /// </summary>
        public void CopyFromPython(PyObject array)
        {
            if (array == null) throw new ArgumentNullException(nameof(array));
            using (Py.GIL()) ArrayExchange.CopyInto(array, this, nameof(array));
        }

        /// <summary>
        /// Copies this array into an existing writable, C-contiguous numpy array of the same dtype and shape (no
        /// allocation). Same rules as <see cref="ToPython"/>.
        /// </summary>
        public void CopyToPython(PyObject array)
        {
            if (array == null) throw new ArgumentNullException(nameof(array));
            using (Py.GIL()) ArrayExchange.CopyToExisting(this, array, nameof(array));
        }

        /// <summary>"NDArray float32 (2, 3)".</summary>
        public override string ToString()
        {
            return "NDArray " + DTypeName + " " + FormatShape(_shape);
        }

        /// <summary>A short listing of the first elements, for messages.</summary>
        public string Preview(int maxElements = 8)
        {
            var sb = new StringBuilder("[");
            int n = Math.Min(maxElements, Size);
            for (int i = 0; i < n; i++)
            {
                if (i > 0) sb.Append(", ");
                sb.Append(GetDouble(i).ToString("R", CultureInfo.InvariantCulture));
            }
            if (n < Size) sb.Append(", ...");
            return sb.Append(']').ToString();
        }

        internal int[] ShapeNoCopy => _shape;

        private static int[] OrVector(int[] shape, Array data)
        {
            if (shape != null && shape.Length > 0) return shape;
            return new[] { data == null ? 0 : data.Length };
        }

        internal void CheckSameLayout(NDArray other, string paramName)
        {
            if (!SameLayout(other))
            {
                throw new TfNetTrainArgumentException(paramName,
                    $"expected {DTypeName} {FormatShape(_shape)}, got {other.DTypeName} {FormatShape(other._shape)}");
            }
        }

        internal static NDArray Wrap(Array data, DType dtype, int[] shape) => new NDArray(data, dtype, shape, "data");

        internal static string FormatShape(int[] shape)
        {
            if (shape.Length == 1) return "(" + shape[0].ToString(CultureInfo.InvariantCulture) + ",)";
            var parts = new string[shape.Length];
            for (int i = 0; i < shape.Length; i++) parts[i] = shape[i].ToString(CultureInfo.InvariantCulture);
            return "(" + string.Join(", ", parts) + ")";
        }

        private T[] Storage<T>()
        {
            var typed = Materialize() as T[];
            if (typed == null)
            {
                throw new TfNetTrainArgumentException("T",
                    $"this array holds {DType.NumpyName()} ({DType.ClrType().Name}); asked for {typeof(T).Name}");
            }
            return typed;
        }

        private static long CheckedSize(int[] shape, string paramName)
        {
            long size = 1;
            foreach (int d in shape)
            {
                if (d < 0)
                    throw new TfNetTrainArgumentException(paramName, $"dimensions must be >= 0; got {FormatShape(shape)}");
                size *= d;
                if (size > int.MaxValue)
                    throw new TfNetTrainArgumentException(paramName, $"shape {FormatShape(shape)} has more than {int.MaxValue} elements");
            }
            return size;
        }
    }
}
