namespace TfNetTrain.Reference
{
    /// <summary>
    /// How results are stored: <see cref="Float32"/> rounds every elementary result to float32, as TensorFlow stores
    /// float32 tensors (each operation itself is evaluated in double); <see cref="Float64"/> keeps doubles, for
    /// checks such as finite differences.
    /// </summary>
    public sealed class Numerics
    {
        /// <summary>Round every stored result to float32.</summary>
        public static readonly Numerics Float32 = new Numerics(true);

        /// <summary>Keep every result in double.</summary>
        public static readonly Numerics Float64 = new Numerics(false);

        private Numerics(bool roundsToFloat32)
        {
            RoundsToFloat32 = roundsToFloat32;
        }

        /// <summary>True for <see cref="Float32"/>.</summary>
        public bool RoundsToFloat32 { get; }

        /// <summary>The value as a tensor of this precision stores it.</summary>
        public double Round(double value)
        {
            return RoundsToFloat32 ? (double)(float)value : value;
        }

        /// <inheritdoc />
        public override string ToString()
        {
            return RoundsToFloat32 ? "float32" : "float64";
        }
    }
}
