namespace TfNetTrain.Reference
{
    /// <summary>
    /// The case's optimizer and its hyper-parameters. <see cref="ForKind"/> fills in Keras 3's defaults;
    /// properties that do not belong to the optimizer are ignored by it.
    /// </summary>
    public sealed class OptimizerSpec
    {
        private OptimizerSpec(OptimizerKind kind)
        {
            Kind = kind;
        }

        /// <summary>Which optimizer.</summary>
        public OptimizerKind Kind { get; }

        /// <summary>Learning rate (Keras 3 default 0.01 for SGD, 0.001 otherwise).</summary>
        public double LearningRate { get; set; }

        /// <summary>SGD and RMSprop momentum (default 0).</summary>
        public double Momentum { get; set; }

        /// <summary>SGD Nesterov momentum (default false).</summary>
        public bool Nesterov { get; set; }

        /// <summary>Adam/AdamW first-moment decay (default 0.9).</summary>
        public double Beta1 { get; set; }

        /// <summary>Adam/AdamW second-moment decay (default 0.999).</summary>
        public double Beta2 { get; set; }

        /// <summary>Adam/AdamW/RMSprop epsilon (default 1e-7).</summary>
        public double Epsilon { get; set; }

        /// <summary>Adam/AdamW AMSGrad (default false).</summary>
        public bool Amsgrad { get; set; }

        /// <summary>AdamW decoupled weight decay (default 0.004).</summary>
        public double WeightDecay { get; set; }

        /// <summary>RMSprop discount (default 0.9).</summary>
        public double Rho { get; set; }

        /// <summary>RMSprop centered variant (default false).</summary>
        public bool Centered { get; set; }

        /// <summary>Per-tensor norm clipping; null = off.</summary>
        public double? ClipNorm { get; set; }

        /// <summary>Element-wise value clipping; null = off.</summary>
        public double? ClipValue { get; set; }

        /// <summary>Global norm clipping over all gradients; null = off.</summary>
        public double? GlobalClipNorm { get; set; }

        /// <summary>A spec with Keras 3's defaults for <paramref name="kind"/>.</summary>
        public static OptimizerSpec ForKind(OptimizerKind kind)
        {
            return new OptimizerSpec(kind)
            {
                LearningRate = kind == OptimizerKind.Sgd ? 0.01 : 0.001,
                Momentum = 0.0,
                Nesterov = false,
                Beta1 = 0.9,
                Beta2 = 0.999,
                Epsilon = 1e-7,
                Amsgrad = false,
                WeightDecay = 0.004,
                Rho = 0.9,
                Centered = false,
            };
        }
    }
}
