using System;
using System.Collections.Generic;

namespace TfNetTrain.Reference
{
    /// <summary>
    /// L2 kernel regularizers under the keras profile: Keras 3's <c>L2(f)</c> adds f * sum(kernel^2) to the training
    /// loss, and f * (kernel * 2) to the kernel's gradient. TensorFlow.NET's training loss is the compiled loss alone,
    /// so under the tfnet profile nothing is added (docs/semantics.md row 2).
    /// </summary>
    public static class KernelRegularization
    {
        /// <summary>
        /// Adds every layer's L2 penalty to <paramref name="loss"/> and its gradient to the kernel gradients in place
        /// (keras profile); returns the loss unchanged under tfnet.
        /// </summary>
        public static double Apply(IList<LayerSpec> layers, Semantics semantics, IList<Tensor> weights, double loss,
            IList<Tensor> gradients, Numerics numerics)
        {
            if (layers == null) throw new ArgumentNullException(nameof(layers));
            if (weights == null) throw new ArgumentNullException(nameof(weights));
            if (gradients == null) throw new ArgumentNullException(nameof(gradients));
            if (numerics == null) throw new ArgumentNullException(nameof(numerics));
            if (semantics == Semantics.TfNet) return loss;
            double total = loss;
            int kernelIndex = 0;
            foreach (LayerSpec layer in layers)
            {
                if (layer.KernelL2.HasValue)
                {
                    double factor = numerics.Round(layer.KernelL2.Value);
                    Tensor kernel = weights[kernelIndex];
                    Tensor gradient = gradients[kernelIndex];
                    double sumOfSquares = 0;
                    for (int i = 0; i < kernel.Size; i++) sumOfSquares += numerics.Round(kernel.Data[i] * kernel.Data[i]);
                    total = numerics.Round(total + numerics.Round(factor * numerics.Round(sumOfSquares)));
                    for (int i = 0; i < kernel.Size; i++)
                        gradient.Data[i] = numerics.Round(gradient.Data[i] + numerics.Round(factor * numerics.Round(kernel.Data[i] * 2)));
                }
                kernelIndex += layer.UseBias ? 2 : 1;
            }
            return total;
        }
    }
}
