using System.Collections.Generic;

namespace TfNetTrain.Reference
{
    /// <summary>What a forward pass keeps for the backward pass: each layer's input, pre-activation and output.</summary>
    public sealed class ForwardPass
    {
        internal ForwardPass(IList<Tensor> inputs, IList<Tensor> preActivations, IList<Tensor> outputs)
        {
            Inputs = inputs;
            PreActivations = preActivations;
            Outputs = outputs;
        }

        /// <summary>Each layer's input (the first is the batch x).</summary>
        public IList<Tensor> Inputs { get; }

        /// <summary>Each layer's x @ kernel + bias.</summary>
        public IList<Tensor> PreActivations { get; }

        /// <summary>Each layer's activation output.</summary>
        public IList<Tensor> Outputs { get; }

        /// <summary>The model output y_pred.</summary>
        public Tensor Output { get { return Outputs[Outputs.Count - 1]; } }

        /// <summary>The last layer's pre-activation (the logits behind a softmax or sigmoid output).</summary>
        public Tensor Logits { get { return PreActivations[PreActivations.Count - 1]; } }
    }
}
