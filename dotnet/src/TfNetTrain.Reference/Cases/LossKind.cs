namespace TfNetTrain.Reference
{
    /// <summary>The compiled loss of a case.</summary>
    public enum LossKind
    {
        /// <summary>"mse"</summary>
        MeanSquaredError,
        /// <summary>"mae"</summary>
        MeanAbsoluteError,
        /// <summary>"binary_crossentropy"</summary>
        BinaryCrossentropy,
        /// <summary>"categorical_crossentropy"</summary>
        CategoricalCrossentropy,
        /// <summary>"sparse_categorical_crossentropy"</summary>
        SparseCategoricalCrossentropy,
    }
}
