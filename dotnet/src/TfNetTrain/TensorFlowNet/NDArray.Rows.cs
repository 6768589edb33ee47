using System;
using System.Collections.Generic;

namespace TfNetTrain.TensorFlowNet
{
    /// <summary>
    /// LINQ's <c>Zip</c> over NDArray rows, as TF.NET programs write it (<c>a.Zip(b).All(x =&gt; x.First == x.Second)</c>:
    /// TF.NET's NDArray enumerates its rows). NDArray itself stays non-enumerable here, so NUnit and the bridge keep
    /// treating it as one value.
    /// </summary>
    public static class NDArrayRows
    {
        /// <summary>Pairs of rows along the first axis, as many as the shorter array has.</summary>
        public static IEnumerable<RowPair> Zip(this NDArray first, NDArray second)
        {
            if (first == null) throw new ArgumentNullException(nameof(first));
            if (second == null) throw new ArgumentNullException(nameof(second));
            NDArray[] a = first.ToArray(), b = second.ToArray();
            for (int i = 0; i < Math.Min(a.Length, b.Length); i++) yield return new RowPair(a[i], b[i]);
        }
    }

    /// <summary>Two rows side by side (what .NET's <c>Zip</c> names <c>First</c> and <c>Second</c>).</summary>
    public struct RowPair
    {
        public RowPair(NDArray first, NDArray second)
        {
            First = first;
            Second = second;
        }

        public NDArray First { get; }
        public NDArray Second { get; }
    }
}
