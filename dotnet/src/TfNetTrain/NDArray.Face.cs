using System;
using System.Linq;
using TfNetTrain.TensorFlowNet;

namespace TfNetTrain
{
    /// <summary>
    /// TensorFlow.NET's <c>NDArray</c> members (lower case, as <c>Tensorflow.NumPy</c> spells them): shape, dtype,
    /// reshape, astype, indexers and slices, operators and conversions. Each runs the NumPy function of the same
    /// name (TensorFlowNet.NumPyApi); the PascalCase members above are unchanged.
    /// </summary>
    public sealed partial class NDArray
    {
        /// <summary>The shape as TF.NET's <see cref="TensorFlowNet.Shape"/> (<c>x.shape[0]</c> is a long).</summary>
        public TensorFlowNet.Shape shape => new TensorFlowNet.Shape(_shape);

        /// <summary>The element type as TF.NET names it.</summary>
        public TF_DataType dtype => Face.FromName(DTypeName);

        /// <summary>Number of dimensions.</summary>
        public int ndim => _shape.Length;

        /// <summary>The dimensions as longs (TF.NET's <c>dims</c>).</summary>
        public long[] dims => _shape.Select(d => (long)d).ToArray();

        /// <summary>Number of elements.</summary>
        public long size => Size;

        /// <summary>This array (TF.NET's <c>numpy()</c> on an NDArray).</summary>
        public NDArray numpy() => this;

        /// <summary>np.reshape: the same elements with <paramref name="newshape"/> (-1 once: inferred).</summary>
        public NDArray reshape(TensorFlowNet.Shape newshape)
        {
            if (newshape == null) throw new ArgumentNullException(nameof(newshape));
            return NumPyApi.Invoke("reshape", this, newshape.dims);
        }

        /// <summary>The elements converted to <paramref name="dtype"/> (a new array).</summary>
        public NDArray astype(TF_DataType dtype) => NumPyApi.Invoke("astype", this, NumPyApi.DTypeArgument(dtype, nameof(astype), nameof(dtype)));

        /// <summary>
        /// The rows along the first axis, as enumerating TF.NET's NDArray gives them (<c>x.ToArray()</c> there is
        /// LINQ's over <c>IEnumerable&lt;NDArray&gt;</c>); each row is read as <c>x[i]</c>.
        /// </summary>
        public NDArray[] ToArray()
        {
            if (_shape.Length == 0)
                throw new TfNetTrainArgumentException("this", "NDArray.ToArray(): expected an array of rank 1 or more, got a 0-d array (read it with ToArray<T>())");
            var rows = new NDArray[_shape[0]];
            for (int i = 0; i < rows.Length; i++) rows[i] = this[i];
            return rows;
        }

        /// <summary>x[i, j, ...]: a sub-array (a 0-d array for a full index).</summary>
        public NDArray this[params int[] indices]
        {
            get => NumPyApi.GetItem(this, indices.Cast<object>().ToArray());
            set => NumPyApi.SetItem(this, indices.Cast<object>().ToArray(), value);
        }

        /// <summary>x["::100"], x["1:3, :"], x[":, 0"]: NumPy's slice notation, comma-separated per axis.</summary>
        public NDArray this[string slice]
        {
            get => NumPyApi.GetItem(this, new object[] { slice ?? throw new ArgumentNullException(nameof(slice)) });
            set => NumPyApi.SetItem(this, new object[] { slice ?? throw new ArgumentNullException(nameof(slice)) }, value);
        }

        /// <summary>x[mask] (bool array) or x[indices] (int array): NumPy's fancy indexing.</summary>
        public NDArray this[NDArray index]
        {
            get => NumPyApi.GetItem(this, new object[] { index ?? throw new ArgumentNullException(nameof(index)) });
            set => NumPyApi.SetItem(this, new object[] { index ?? throw new ArgumentNullException(nameof(index)) }, value);
        }

        /// <summary>x[slices]: TF.NET's <see cref="Slice"/> objects, one per axis.</summary>
        public NDArray this[params Slice[] slices]
        {
            get => NumPyApi.GetItem(this, new object[] { string.Join(",", slices.Select(s => s.ToString())) });
            set => NumPyApi.SetItem(this, new object[] { string.Join(",", slices.Select(s => s.ToString())) }, value);
        }

        /// <summary>
        /// Value equality, as TF.NET's NDArray has it: same shape and equal elements (of any numeric dtype) — an NDArray,
        /// a C# array or a number. Use <see cref="BitwiseEquals"/> for equality to the last bit.
        /// </summary>
        public override bool Equals(object obj)
        {
            if (ReferenceEquals(this, obj)) return true;
            if (ReferenceEquals(obj, null)) return false;
            NDArray other = obj as NDArray;
            if (other == null)
            {
                if (obj is Array array) other = NumPyApi.FromAny(array);
                else if (obj is float || obj is double || obj is int || obj is long) other = Scalar(Convert.ToDouble(obj));
                else return false;
            }
            if (!_shape.SequenceEqual(other._shape)) return false;
            if (!IsPythonBacked && !other.IsPythonBacked && _exchangeOrCSharp && other._exchangeOrCSharp)
            {
                for (int i = 0; i < Size; i++) if (GetDouble(i) != other.GetDouble(i)) return false;
                return true;
            }
            return (bool)NumPyApi.Invoke("array_equal", this, other);
        }

        /// <summary>Value equality (<see cref="Equals(object)"/>), as TF.NET's <c>==</c> on NDArrays; null equals only null.</summary>
        public static bool operator ==(NDArray a, NDArray b) => ReferenceEquals(a, b) || (!ReferenceEquals(a, null) && a.Equals(b));

        public static bool operator !=(NDArray a, NDArray b) => !(a == b);

        /// <summary>Consistent with <see cref="Equals(object)"/>: the shape only.</summary>
        public override int GetHashCode() => _shape.Aggregate(17, (h, d) => h * 31 + d);

        private bool _exchangeOrCSharp => _npDtype == null || _exchangeDtype;

        public static NDArray operator +(NDArray a, NDArray b) => NumPyApi.Binary("add", a, b);
        public static NDArray operator -(NDArray a, NDArray b) => NumPyApi.Binary("subtract", a, b);
        public static NDArray operator *(NDArray a, NDArray b) => NumPyApi.Binary("multiply", a, b);
        public static NDArray operator /(NDArray a, NDArray b) => NumPyApi.Binary("divide", a, b);
        public static NDArray operator %(NDArray a, NDArray b) => NumPyApi.Binary("mod", a, b);
        public static NDArray operator -(NDArray a) => NumPyApi.Invoke("negative", a);
        public static NDArray operator <(NDArray a, NDArray b) => NumPyApi.Binary("less", a, b);
        public static NDArray operator >(NDArray a, NDArray b) => NumPyApi.Binary("greater", a, b);
        public static NDArray operator <=(NDArray a, NDArray b) => NumPyApi.Binary("less_equal", a, b);
        public static NDArray operator >=(NDArray a, NDArray b) => NumPyApi.Binary("greater_equal", a, b);

        // Scalars keep NumPy's promotion (a float32 array stays float32 with a C# float or int).
        public static NDArray operator +(NDArray a, float b) => NumPyApi.Binary("add", a, b);
        public static NDArray operator +(float a, NDArray b) => NumPyApi.Binary("add", a, b);
        public static NDArray operator -(NDArray a, float b) => NumPyApi.Binary("subtract", a, b);
        public static NDArray operator -(float a, NDArray b) => NumPyApi.Binary("subtract", a, b);
        public static NDArray operator *(NDArray a, float b) => NumPyApi.Binary("multiply", a, b);
        public static NDArray operator *(float a, NDArray b) => NumPyApi.Binary("multiply", a, b);
        public static NDArray operator /(NDArray a, float b) => NumPyApi.Binary("divide", a, b);
        public static NDArray operator /(float a, NDArray b) => NumPyApi.Binary("divide", a, b);
        public static NDArray operator <(NDArray a, float b) => NumPyApi.Binary("less", a, b);
        public static NDArray operator >(NDArray a, float b) => NumPyApi.Binary("greater", a, b);
        public static NDArray operator <=(NDArray a, float b) => NumPyApi.Binary("less_equal", a, b);
        public static NDArray operator >=(NDArray a, float b) => NumPyApi.Binary("greater_equal", a, b);

        // doubles as Python floats (NumPy's weak scalars: a float32 array stays float32, as TF.NET's cast to its dtype)
        public static NDArray operator +(NDArray a, double b) => NumPyApi.Binary("add", a, b);
        public static NDArray operator +(double a, NDArray b) => NumPyApi.Binary("add", a, b);
        public static NDArray operator -(NDArray a, double b) => NumPyApi.Binary("subtract", a, b);
        public static NDArray operator -(double a, NDArray b) => NumPyApi.Binary("subtract", a, b);
        public static NDArray operator *(NDArray a, double b) => NumPyApi.Binary("multiply", a, b);
        public static NDArray operator *(double a, NDArray b) => NumPyApi.Binary("multiply", a, b);
        public static NDArray operator /(NDArray a, double b) => NumPyApi.Binary("divide", a, b);
        public static NDArray operator /(double a, NDArray b) => NumPyApi.Binary("divide", a, b);
        public static NDArray operator <(NDArray a, double b) => NumPyApi.Binary("less", a, b);
        public static NDArray operator >(NDArray a, double b) => NumPyApi.Binary("greater", a, b);
        public static NDArray operator <=(NDArray a, double b) => NumPyApi.Binary("less_equal", a, b);
        public static NDArray operator >=(NDArray a, double b) => NumPyApi.Binary("greater_equal", a, b);

        // int operands (Python ints: the array keeps its dtype, as NumPy does)
        public static NDArray operator +(NDArray a, int b) => NumPyApi.Binary("add", a, b);
        public static NDArray operator +(int a, NDArray b) => NumPyApi.Binary("add", a, b);
        public static NDArray operator -(NDArray a, int b) => NumPyApi.Binary("subtract", a, b);
        public static NDArray operator -(int a, NDArray b) => NumPyApi.Binary("subtract", a, b);
        public static NDArray operator *(NDArray a, int b) => NumPyApi.Binary("multiply", a, b);
        public static NDArray operator *(int a, NDArray b) => NumPyApi.Binary("multiply", a, b);
        public static NDArray operator /(NDArray a, int b) => NumPyApi.Binary("divide", a, b);
        public static NDArray operator /(int a, NDArray b) => NumPyApi.Binary("divide", a, b);
        public static NDArray operator %(NDArray a, int b) => NumPyApi.Binary("mod", a, b);
        public static NDArray operator <(NDArray a, int b) => NumPyApi.Binary("less", a, b);
        public static NDArray operator >(NDArray a, int b) => NumPyApi.Binary("greater", a, b);
        public static NDArray operator <=(NDArray a, int b) => NumPyApi.Binary("less_equal", a, b);
        public static NDArray operator >=(NDArray a, int b) => NumPyApi.Binary("greater_equal", a, b);

        // C# arrays and numbers become NDArrays (one block copy into C# storage, as From does).
        public static implicit operator NDArray(float[] data) => data == null ? null : From(data);
        public static implicit operator NDArray(double[] data) => data == null ? null : From(data);
        public static implicit operator NDArray(int[] data) => data == null ? null : From(data);
        public static implicit operator NDArray(long[] data) => data == null ? null : From(data);
        public static implicit operator NDArray(float[,] data) => data == null ? null : From(data);
        public static implicit operator NDArray(double[,] data) => data == null ? null : From(data);
        public static implicit operator NDArray(int[,] data) => data == null ? null : From(data);
        public static implicit operator NDArray(long[,] data) => data == null ? null : From(data);
        public static implicit operator NDArray(float[,,] data) => data == null ? null : From(data);
        public static implicit operator NDArray(double[,,] data) => data == null ? null : From(data);
        public static implicit operator NDArray(float[,,,] data) => data == null ? null : From(data);
        public static implicit operator NDArray(byte[] data) => data == null ? null : NumPyApi.FromBytes(data);
        public static implicit operator NDArray(bool[] data) => data == null ? null : NumPyApi.FromBools(data);
        public static implicit operator NDArray(float value) => Scalar(value);
        public static implicit operator NDArray(double value) => Scalar(value);
        public static implicit operator NDArray(int value) => Scalar(value);
        public static implicit operator NDArray(long value) => Scalar(value);
        public static implicit operator NDArray(bool value) => NumPyApi.FromBools(new[] { value }).reshape(new TensorFlowNet.Shape(new int[0]));

        // A one-element array reads as a number: implicit for float, double, int and bool as TF.NET declares them.
        public static implicit operator float(NDArray a) => (float)NumPyApi.ScalarOf(a, "float");
        public static implicit operator double(NDArray a) => NumPyApi.ScalarOf(a, "double");
        public static implicit operator int(NDArray a) => checked((int)NumPyApi.ScalarOf(a, "int"));
        public static explicit operator long(NDArray a) => checked((long)NumPyApi.ScalarOf(a, "long"));
        public static implicit operator bool(NDArray a) => NumPyApi.ScalarOf(a, "bool") != 0;
        public static explicit operator byte(NDArray a) => checked((byte)NumPyApi.ScalarOf(a, "byte"));
        public static explicit operator float[](NDArray a) => a?.astype(TF_DataType.TF_FLOAT).ToArray<float>();
        public static explicit operator int[](NDArray a) => a?.astype(TF_DataType.TF_INT32).ToArray<int>();
        public static explicit operator long[](NDArray a) => a?.astype(TF_DataType.TF_INT64).ToArray<long>();
        public static explicit operator double[](NDArray a) => a?.astype(TF_DataType.TF_DOUBLE).ToArray<double>();
    }
}
