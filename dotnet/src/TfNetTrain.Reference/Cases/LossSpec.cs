namespace TfNetTrain.Reference
{
    /// <summary>The case's loss.</summary>
    public sealed class LossSpec
    {
        /// <summary>Creates a loss spec.</summary>
        public LossSpec(LossKind kind, bool fromLogits = false)
        {
            Kind = kind;
            FromLogits = fromLogits;
        }

        /// <summary>Which loss.</summary>
        public LossKind Kind { get; }

        /// <summary>For the cross-entropies: whether the model output is logits.</summary>
        public bool FromLogits { get; }
    }
}
