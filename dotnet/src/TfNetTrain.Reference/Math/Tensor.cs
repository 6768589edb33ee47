using System;
using System.Linq;

namespace TfNetTrain.Reference
{
    /// <summary>A rank-1 or rank-2 array of doubles in row-major order (values are float32-exact under <see cref="Numerics.Float32"/>).</summary>
    public sealed class Tensor
    {
        /// <summary>Wraps <paramref name="data"/> (not copied) with a shape of rank 1 or 2.</summary>
        public Tensor(int[] shape, double[] data)
        {
            if (shape == null) throw new ArgumentNullException(nameof(shape));
            if (data == null) throw new ArgumentNullException(nameof(data));
            if (shape.Length < 1 || shape.Length > 2 || shape.Any(d => d < 0))
                throw new ArgumentException("shape: expected rank 1 or 2 with non-negative dimensions, got " + NpyArray.FormatShape(shape), nameof(shape));
            if (NpyArray.SizeOf(shape) != data.Length)
                throw new ArgumentException(string.Format("data: expected {0} values for shape {1}, got {2}",
                    NpyArray.SizeOf(shape), NpyArray.FormatShape(shape), data.Length), nameof(data));
            Shape = (int[])shape.Clone();
            Data = data;
        }

        /// <summary>A zero tensor.</summary>
        public static Tensor Zeros(params int[] shape)
        {
            return new Tensor(shape, new double[NpyArray.SizeOf(shape)]);
        }

        /// <summary>A rank-2 tensor from nested rows (for tests and examples).</summary>
        public static Tensor FromRows(double[][] rows)
        {
            int cols = rows.Length == 0 ? 0 : rows[0].Length;
            if (rows.Any(r => r.Length != cols)) throw new ArgumentException("rows: expected equal lengths", nameof(rows));
            return new Tensor(new[] { rows.Length, cols }, rows.SelectMany(r => r).ToArray());
        }

        /// <summary>The values of any numeric array, as a tensor of the same shape (rank 1 or 2).</summary>
        public static Tensor FromNpy(NpyArray array)
        {
            return new Tensor(array.Shape, array.ToDoubleArray());
        }

        /// <summary>The dimensions.</summary>
        public int[] Shape { get; }

        /// <summary>The values, row-major.</summary>
        public double[] Data { get; }

        /// <summary>Number of dimensions.</summary>
        public int Rank { get { return Shape.Length; } }

        /// <summary>First dimension.</summary>
        public int Rows { get { return Shape[0]; } }

        /// <summary>Second dimension (1 for a rank-1 tensor).</summary>
        public int Cols { get { return Shape.Length == 2 ? Shape[1] : 1; } }

        /// <summary>Number of values.</summary>
        public int Size { get { return Data.Length; } }

        /// <summary>Element (row, col) of a rank-2 tensor.</summary>
        public double this[int row, int col]
        {
            get { return Data[row * Cols + col]; }
            set { Data[row * Cols + col] = value; }
        }

        /// <summary>A deep copy.</summary>
        public Tensor Clone()
        {
            return new Tensor(Shape, (double[])Data.Clone());
        }

        /// <summary>The values as a float32 array of the same shape.</summary>
        public NpyArray ToFloat32()
        {
            return NpyArray.Float32(Shape, Data);
        }
    }
}
