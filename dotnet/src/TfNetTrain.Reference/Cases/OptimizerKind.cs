namespace TfNetTrain.Reference
{
    /// <summary>The optimizer of a case.</summary>
    public enum OptimizerKind
    {
        /// <summary>"sgd"</summary>
        Sgd,
        /// <summary>"adam"</summary>
        Adam,
        /// <summary>"adamw"</summary>
        AdamW,
        /// <summary>"rmsprop"</summary>
        RmsProp,
    }
}
