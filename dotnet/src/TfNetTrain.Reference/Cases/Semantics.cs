namespace TfNetTrain.Reference
{
    /// <summary>The numerical profile a case follows.</summary>
    public enum Semantics
    {
        /// <summary>What Python Keras 3 computes on one device ("keras").</summary>
        Keras,
        /// <summary>What TensorFlow.NET's Keras engine computes ("tfnet").</summary>
        TfNet,
    }
}
