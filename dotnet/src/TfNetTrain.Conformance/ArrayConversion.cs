using System;
using System.Collections.Generic;
using TfNetTrain.Reference;

namespace TfNetTrain.Conformance
{
    /// <summary>Converts between the bridge's <see cref="NDArray"/> and the reference's <see cref="NpyArray"/> (same dtypes).</summary>
    public static class ArrayConversion
    {
        /// <summary>An NpyArray sharing <paramref name="array"/>'s storage.</summary>
        public static NpyArray ToNpy(NDArray array)
        {
            if (array == null) throw new ArgumentNullException(nameof(array));
            return new NpyArray(array.Shape, array.DType.NumpyName(), array.Data);
        }

        /// <summary>An NDArray sharing <paramref name="array"/>'s storage.</summary>
        public static NDArray ToNDArray(NpyArray array)
        {
            if (array == null) throw new ArgumentNullException(nameof(array));
            switch (array.Dtype)
            {
                case "float32": return new NDArray((float[])array.Data, array.Shape);
                case "float64": return new NDArray((double[])array.Data, array.Shape);
                case "int32": return new NDArray((int[])array.Data, array.Shape);
                case "int64": return new NDArray((long[])array.Data, array.Shape);
                default:
                    throw new ArgumentException("array: expected dtype float32, float64, int32 or int64, got " + array.Dtype, nameof(array));
            }
        }

        /// <summary>A flat trace of NDArrays (e.g. <see cref="StepTrace.Flat"/>) as NpyArrays.</summary>
        public static Dictionary<string, NpyArray> ToNpy(IDictionary<string, NDArray> trace)
        {
            if (trace == null) throw new ArgumentNullException(nameof(trace));
            var result = new Dictionary<string, NpyArray>();
            foreach (var entry in trace)
            {
                if (entry.Value == null)
                    throw new ArgumentException("trace: expected an array for key '" + entry.Key + "', got null", nameof(trace));
                result[entry.Key] = ToNpy(entry.Value);
            }
            return result;
        }

        /// <summary>A float32 copy of any NDArray (values rounded to float32), reshaped to <paramref name="shape"/> when given.</summary>
        public static NDArray ToFloat32(NDArray array, int[] shape = null)
        {
            if (array == null) throw new ArgumentNullException(nameof(array));
            var data = new float[array.Size];
            for (int i = 0; i < data.Length; i++) data[i] = (float)array.GetDouble(i);
            return new NDArray(data, shape ?? array.Shape);
        }
    }
}
