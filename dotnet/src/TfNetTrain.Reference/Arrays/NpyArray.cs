using System;
using System.Linq;

namespace TfNetTrain.Reference
{
    /// <summary>
    /// An n-dimensional array as NumPy stores it: a shape, a dtype name and the elements in C order.
    /// <see cref="Data"/> is a <c>float[]</c> (float32), <c>double[]</c> (float64), <c>int[]</c> (int32) or
    /// <c>long[]</c> (int64).
    /// </summary>
    public sealed class NpyArray
    {
        /// <summary>The dtype names this library reads and writes.</summary>
        public static readonly string[] SupportedDtypes = { "float32", "float64", "int32", "int64" };

        /// <summary>Creates an array; the data's element type must match the dtype and its length the shape.</summary>
        public NpyArray(int[] shape, string dtype, Array data)
        {
            if (shape == null) throw new ArgumentNullException(nameof(shape));
            if (data == null) throw new ArgumentNullException(nameof(data));
            if (shape.Any(d => d < 0))
                throw new ArgumentException("shape: expected non-negative dimensions, got " + FormatShape(shape), nameof(shape));
            Type expectedType = ElementType(dtype);
            if (data.GetType().GetElementType() != expectedType || data.Rank != 1)
                throw new ArgumentException(string.Format("data: expected {0}[] for dtype {1}, got {2}",
                    expectedType.Name, dtype, data.GetType().Name), nameof(data));
            long size = SizeOf(shape);
            if (data.Length != size)
                throw new ArgumentException(string.Format("data: expected {0} elements for shape {1}, got {2}",
                    size, FormatShape(shape), data.Length), nameof(data));
            Shape = (int[])shape.Clone();
            Dtype = dtype;
            Data = data;
        }

        /// <summary>The dimensions; empty for a scalar.</summary>
        public int[] Shape { get; }

        /// <summary>"float32", "float64", "int32" or "int64".</summary>
        public string Dtype { get; }

        /// <summary>The elements in C (row-major) order.</summary>
        public Array Data { get; }

        /// <summary>Number of elements.</summary>
        public int Size { get { return Data.Length; } }

        /// <summary>Number of dimensions.</summary>
        public int Rank { get { return Shape.Length; } }

        /// <summary>True for float32 and float64.</summary>
        public bool IsFloatingPoint { get { return Dtype == "float32" || Dtype == "float64"; } }

        /// <summary>A float32 array from values that are rounded to float32.</summary>
        public static NpyArray Float32(int[] shape, double[] values)
        {
            var data = new float[values.Length];
            for (int i = 0; i < values.Length; i++) data[i] = (float)values[i];
            return new NpyArray(shape, "float32", data);
        }

        /// <summary>A float64 array.</summary>
        public static NpyArray Float64(int[] shape, double[] values)
        {
            return new NpyArray(shape, "float64", (double[])values.Clone());
        }

        /// <summary>A float64 scalar (shape <c>()</c>).</summary>
        public static NpyArray Float64Scalar(double value)
        {
            return new NpyArray(new int[0], "float64", new[] { value });
        }

        /// <summary>An int64 scalar (shape <c>()</c>).</summary>
        public static NpyArray Int64Scalar(long value)
        {
            return new NpyArray(new int[0], "int64", new[] { value });
        }

        /// <summary>Element <paramref name="index"/> (C order) as a double.</summary>
        public double GetDouble(int index)
        {
            switch (Dtype)
            {
                case "float32": return ((float[])Data)[index];
                case "float64": return ((double[])Data)[index];
                case "int32": return ((int[])Data)[index];
                default: return ((long[])Data)[index];
            }
        }

        /// <summary>Every element as a double, in C order.</summary>
        public double[] ToDoubleArray()
        {
            var result = new double[Size];
            for (int i = 0; i < result.Length; i++) result[i] = GetDouble(i);
            return result;
        }

        /// <summary>The same values with the same dtype but another shape of equal size.</summary>
        public NpyArray Reshape(params int[] shape)
        {
            if (SizeOf(shape) != Size)
                throw new ArgumentException(string.Format("shape: expected {0} elements, got shape {1}",
                    Size, FormatShape(shape)), nameof(shape));
            return new NpyArray(shape, Dtype, (Array)Data.Clone());
        }

        /// <summary>Rows [start, start + count) along the first axis.</summary>
        public NpyArray SliceRows(int start, int count)
        {
            if (Rank == 0) throw new InvalidOperationException("a scalar has no rows to slice");
            if (start < 0 || count < 0 || start + count > Shape[0])
                throw new ArgumentOutOfRangeException(nameof(start), string.Format(
                    "rows [{0}, {1}) are outside the array's {2} rows", start, start + count, Shape[0]));
            int rowSize = Shape[0] == 0 ? 0 : Size / Shape[0];
            var shape = (int[])Shape.Clone();
            shape[0] = count;
            Array data = Array.CreateInstance(Data.GetType().GetElementType(), count * rowSize);
            Array.Copy(Data, start * rowSize, data, 0, count * rowSize);
            return new NpyArray(shape, Dtype, data);
        }

        /// <summary>"float32 array of shape (2, 3)".</summary>
        public string Describe()
        {
            return Dtype + " array of shape " + FormatShape(Shape);
        }

        /// <inheritdoc />
        public override string ToString()
        {
            return Describe();
        }

        /// <summary>NumPy's notation: <c>()</c>, <c>(3,)</c>, <c>(2, 3)</c>.</summary>
        public static string FormatShape(int[] shape)
        {
            if (shape.Length == 1) return "(" + shape[0] + ",)";
            return "(" + string.Join(", ", shape) + ")";
        }

        /// <summary>The product of the dimensions (1 for a scalar); ArgumentException when it does not fit in 64 bits.</summary>
        public static long SizeOf(int[] shape)
        {
            if (Array.IndexOf(shape, 0) >= 0) return 0;
            long size = 1;
            foreach (int d in shape)
            {
                if (d < 0)
                    throw new ArgumentException("shape: expected non-negative dimensions, got " + FormatShape(shape), nameof(shape));
                if (size > long.MaxValue / d)
                    throw new ArgumentException("shape: expected at most 2^63 - 1 elements, got shape " + FormatShape(shape), nameof(shape));
                size *= d;
            }
            return size;
        }

        /// <summary>The CLR element type of a supported dtype.</summary>
        public static Type ElementType(string dtype)
        {
            switch (dtype)
            {
                case "float32": return typeof(float);
                case "float64": return typeof(double);
                case "int32": return typeof(int);
                case "int64": return typeof(long);
                default:
                    throw new ArgumentException(string.Format("dtype: expected one of {0}, got '{1}'",
                        string.Join(", ", SupportedDtypes), dtype), nameof(dtype));
            }
        }

        /// <summary>Bytes per element of a supported dtype.</summary>
        public static int ItemSize(string dtype)
        {
            return dtype == "float32" || dtype == "int32" ? 4 : 8;
        }
    }
}
