using System;
using System.Collections.Generic;

namespace TfNetTrain.Reference
{
    /// <summary>The model and compiled loss of a case: forward pass, loss (with L2 kernel penalties under keras) and analytic gradients for one batch.</summary>
    public sealed class TrainingObjective
    {
        private readonly LossSpec _loss;
        private readonly IList<LayerSpec> _layers;
        private readonly Semantics _semantics;
        private readonly Numerics _n;

        /// <summary>Creates the objective for a Dense network and a loss under a profile.</summary>
        public TrainingObjective(int inputSize, IList<LayerSpec> layers, LossSpec loss, Semantics semantics, Numerics numerics)
        {
            _loss = loss ?? throw new ArgumentNullException(nameof(loss));
            _semantics = semantics;
            _layers = layers;
            _n = numerics ?? throw new ArgumentNullException(nameof(numerics));
            Network = new DenseNetwork(inputSize, layers, numerics);
        }

        /// <summary>The model.</summary>
        public DenseNetwork Network { get; }

        /// <summary>Forward pass, loss and gradients for a batch already through expand_1d.</summary>
        /// <param name="weights">Every weight, in weight order.</param>
        /// <param name="x">Inputs (B, features).</param>
        /// <param name="y">Targets (B, k) or (B, 1).</param>
        /// <param name="sampleWeight">Sample weights (B, 1), or null.</param>
        public ObjectiveResult Evaluate(IList<Tensor> weights, Tensor x, Tensor y, Tensor sampleWeight)
        {
            ForwardPass pass = Network.Forward(weights, x);
            LossResult loss = LossFunctions.Compute(_loss, _semantics, Network.OutputActivation, pass, y, sampleWeight, _n);
            IList<Tensor> gradients = Network.Backward(weights, pass, loss.Gradient, loss.GradientIsForLogits);
            double total = KernelRegularization.Apply(_layers, _semantics, weights, loss.Value, gradients, _n);
            return new ObjectiveResult(pass.Output, total, gradients);
        }
    }
}
