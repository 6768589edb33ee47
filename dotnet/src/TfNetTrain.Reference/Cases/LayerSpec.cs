namespace TfNetTrain.Reference
{
    /// <summary>One Dense layer of the case's model.</summary>
    public sealed class LayerSpec
    {
        /// <summary>Creates a Dense layer spec without a kernel regularizer.</summary>
        public LayerSpec(int units, Activation activation, bool useBias = true) : this(units, activation, useBias, null)
        {
        }

        /// <summary>Creates a Dense layer spec with an optional L2 kernel regularizer factor (null = none).</summary>
        public LayerSpec(int units, Activation activation, bool useBias, double? kernelL2)
        {
            Units = units;
            Activation = activation;
            UseBias = useBias;
            KernelL2 = kernelL2;
        }

        /// <summary>Output features.</summary>
        public int Units { get; }

        /// <summary>The activation applied after the affine map.</summary>
        public Activation Activation { get; }

        /// <summary>Whether the layer has a bias vector.</summary>
        public bool UseBias { get; }

        /// <summary>
        /// The factor f of an L2 kernel regularizer (<c>kernel_regularizer: {"l2": f}</c>): Keras adds
        /// f * sum(kernel^2) to the training loss, TensorFlow.NET does not. Null when the layer has none.
        /// </summary>
        public double? KernelL2 { get; }
    }
}
