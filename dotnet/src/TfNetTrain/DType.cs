using System;

namespace TfNetTrain
{
    /// <summary>Element type of an <see cref="NDArray"/>; the four types that cross the bridge.</summary>
    public enum DType
    {
        /// <summary>32-bit float (numpy float32, C# float).</summary>
        Float32,
        /// <summary>64-bit float (numpy float64, C# double).</summary>
        Float64,
        /// <summary>32-bit signed integer (numpy int32, C# int).</summary>
        Int32,
        /// <summary>64-bit signed integer (numpy int64, C# long).</summary>
        Int64,
    }

    /// <summary>Facts about each <see cref="DType"/>: numpy name, element size and C# element type.</summary>
    public static class DTypes
    {
        /// <summary>The numpy name, e.g. "float32".</summary>
        public static string NumpyName(this DType dtype)
        {
            switch (dtype)
            {
                case DType.Float32: return "float32";
                case DType.Float64: return "float64";
                case DType.Int32: return "int32";
                case DType.Int64: return "int64";
                default: throw new ArgumentOutOfRangeException(nameof(dtype), dtype, "unknown DType");
            }
        }

        /// <summary>Bytes per element.</summary>
        public static int ElementSize(this DType dtype)
        {
            return dtype == DType.Float32 || dtype == DType.Int32 ? 4 : 8;
        }

        /// <summary>The C# element type: float, double, int or long.</summary>
        public static Type ClrType(this DType dtype)
        {
            switch (dtype)
            {
                case DType.Float32: return typeof(float);
                case DType.Float64: return typeof(double);
                case DType.Int32: return typeof(int);
                case DType.Int64: return typeof(long);
                default: throw new ArgumentOutOfRangeException(nameof(dtype), dtype, "unknown DType");
            }
        }

        /// <summary>The DType whose elements are <paramref name="type"/>; false for any other type.</summary>
        public static bool TryFromClrType(Type type, out DType dtype)
        {
            if (type == typeof(float)) { dtype = DType.Float32; return true; }
            if (type == typeof(double)) { dtype = DType.Float64; return true; }
            if (type == typeof(int)) { dtype = DType.Int32; return true; }
            if (type == typeof(long)) { dtype = DType.Int64; return true; }
            dtype = DType.Float32;
            return false;
        }

        /// <summary>The DType of a numpy dtype name ("float32", ...); false for names outside the four.</summary>
        public static bool TryFromNumpyName(string name, out DType dtype)
        {
            switch (name)
            {
                case "float32": dtype = DType.Float32; return true;
                case "float64": dtype = DType.Float64; return true;
                case "int32": dtype = DType.Int32; return true;
                case "int64": dtype = DType.Int64; return true;
                default: dtype = DType.Float32; return false;
            }
        }
    }
}
