namespace TfNetTrain.Reference
{
    /// <summary>Activation of a Dense layer.</summary>
    public enum Activation
    {
        /// <summary>Identity ("linear").</summary>
        Linear,
        /// <summary>max(x, 0) ("relu").</summary>
        Relu,
        /// <summary>tanh(x) ("tanh").</summary>
        Tanh,
        /// <summary>1 / (1 + exp(-x)) ("sigmoid").</summary>
        Sigmoid,
        /// <summary>exp(x) / sum(exp(x)) over the last axis ("softmax").</summary>
        Softmax,
    }
}
