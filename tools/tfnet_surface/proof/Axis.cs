// TF.NET's Axis for the proofs (both the API classes' and the types'): one axis or several, which the codec passes
// as an int or a tuple. The face's own assembly defines it.
using System;

namespace Tensorflow
{
    /// <summary>TF.NET's Axis: one axis or several.</summary>
    public sealed class Axis
    {
        public Axis(params int[] axis)
        {
            this.axis = (int[])(axis ?? throw new ArgumentNullException(nameof(axis))).Clone();
        }

        public int[] axis { get; }

        public static implicit operator Axis(int axis) => new Axis(axis);
        public static implicit operator Axis(int[] axis) => axis == null ? null : new Axis(axis);
        public static implicit operator Axis((int, int) axis) => new Axis(axis.Item1, axis.Item2);
    }
}
