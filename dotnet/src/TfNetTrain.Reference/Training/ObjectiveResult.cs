using System.Collections.Generic;

namespace TfNetTrain.Reference
{
    /// <summary>One evaluation of the training objective: prediction, loss and the gradient of every weight.</summary>
    public sealed class ObjectiveResult
    {
        internal ObjectiveResult(Tensor yPred, double loss, IList<Tensor> gradients)
        {
            YPred = yPred;
            Loss = loss;
            Gradients = gradients;
        }

        /// <summary>The model output (training=True).</summary>
        public Tensor YPred { get; }

        /// <summary>The training loss.</summary>
        public double Loss { get; }

        /// <summary>d loss / d weight, in weight order.</summary>
        public IList<Tensor> Gradients { get; }
    }
}
