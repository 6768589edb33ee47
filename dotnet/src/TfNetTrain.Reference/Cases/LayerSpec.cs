namespace TfNetTrain.Reference
{
    /// <summary>One Dense layer of the case's model.</summary>
    public sealed class LayerSpec
    {
        /// <summary>Creates a Dense layer spec.</summary>
        public LayerSpec(int units, Activation activation, bool useBias = true)
        {
            Units = units;
            Activation = activation;
            UseBias = useBias;
        }

        /// <summary>Output features.</summary>
        public int Units { get; }

        /// <summary>The activation applied after the affine map.</summary>
        public Activation Activation { get; }

        /// <summary>Whether the layer has a bias vector.</summary>
        public bool UseBias { get; }
    }
}
