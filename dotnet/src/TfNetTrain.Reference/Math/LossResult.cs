namespace TfNetTrain.Reference
{
    /// <summary>The reduced training loss of a batch and its gradient.</summary>
    public sealed class LossResult
    {
        internal LossResult(double value, double[] perSample, Tensor gradient, bool gradientIsForLogits)
        {
            Value = value;
            PerSample = perSample;
            Gradient = gradient;
            GradientIsForLogits = gradientIsForLogits;
        }

        /// <summary>The scalar loss.</summary>
        public double Value { get; }

        /// <summary>The per-sample losses before weighting and reduction.</summary>
        public double[] PerSample { get; }

        /// <summary>
        /// d loss / d y_pred, or d loss / d logits (the last layer's pre-activation) when
        /// <see cref="GradientIsForLogits"/>.
        /// </summary>
        public Tensor Gradient { get; }

        /// <summary>True when the loss read the logits behind a sigmoid/softmax output (Keras 3 does this).</summary>
        public bool GradientIsForLogits { get; }
    }
}
