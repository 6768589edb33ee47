using System;

namespace TfNetTrain.Reference
{
    /// <summary>Forward values and gradients of the Dense activations, as TensorFlow's kernels define them.</summary>
    public static class ActivationFunctions
    {
        /// <summary>The activation of pre-activations <paramref name="z"/> (batch, units).</summary>
        public static Tensor Forward(Activation activation, Tensor z, Numerics n)
        {
            var y = Tensor.Zeros(z.Shape);
            double[] zs = z.Data, ys = y.Data;
            switch (activation)
            {
                case Activation.Linear:
                    Array.Copy(zs, ys, zs.Length);
                    break;
                case Activation.Relu:
                    for (int i = 0; i < zs.Length; i++) ys[i] = zs[i] > 0 ? zs[i] : 0.0;
                    break;
                case Activation.Tanh:
                    for (int i = 0; i < zs.Length; i++) ys[i] = n.Round(Math.Tanh(zs[i]));
                    break;
                case Activation.Sigmoid:
                    for (int i = 0; i < zs.Length; i++) ys[i] = n.Round(Sigmoid(zs[i]));
                    break;
                case Activation.Softmax:
                    for (int r = 0; r < z.Rows; r++)
                    {
                        double[] p = Softmax(zs, r * z.Cols, z.Cols);
                        for (int c = 0; c < z.Cols; c++) ys[r * z.Cols + c] = n.Round(p[c]);
                    }
                    break;
                default:
                    throw new ArgumentOutOfRangeException(nameof(activation), activation, "unknown activation");
            }
            return y;
        }

        /// <summary>
        /// The gradient with respect to the pre-activations, given the forward output <paramref name="y"/> and the
        /// gradient <paramref name="dy"/> with respect to it (ReluGrad, TanhGrad, SigmoidGrad, Softmax's gradient).
        /// </summary>
        public static Tensor Backward(Activation activation, Tensor y, Tensor dy, Numerics n)
        {
            var dz = Tensor.Zeros(y.Shape);
            double[] ys = y.Data, dys = dy.Data, dzs = dz.Data;
            switch (activation)
            {
                case Activation.Linear:
                    Array.Copy(dys, dzs, dys.Length);
                    break;
                case Activation.Relu:
                    for (int i = 0; i < ys.Length; i++) dzs[i] = ys[i] > 0 ? dys[i] : 0.0;
                    break;
                case Activation.Tanh:
                    for (int i = 0; i < ys.Length; i++) dzs[i] = n.Round(dys[i] * n.Round(1.0 - n.Round(ys[i] * ys[i])));
                    break;
                case Activation.Sigmoid:
                    for (int i = 0; i < ys.Length; i++) dzs[i] = n.Round(dys[i] * n.Round(ys[i] * n.Round(1.0 - ys[i])));
                    break;
                case Activation.Softmax:
                    int cols = y.Cols;
                    for (int r = 0; r < y.Rows; r++)
                    {
                        double dot = 0;
                        for (int c = 0; c < cols; c++) dot += n.Round(dys[r * cols + c] * ys[r * cols + c]);
                        dot = n.Round(dot);
                        for (int c = 0; c < cols; c++)
                        {
                            int i = r * cols + c;
                            dzs[i] = n.Round(n.Round(dys[i] - dot) * ys[i]);
                        }
                    }
                    break;
                default:
                    throw new ArgumentOutOfRangeException(nameof(activation), activation, "unknown activation");
            }
            return dz;
        }

        /// <summary>1 / (1 + exp(-x)) without overflow.</summary>
        public static double Sigmoid(double x)
        {
            if (x >= 0) return 1.0 / (1.0 + Math.Exp(-x));
            double e = Math.Exp(x);
            return e / (1.0 + e);
        }

        /// <summary>Softmax of <paramref name="count"/> values starting at <paramref name="offset"/>, in double.</summary>
        public static double[] Softmax(double[] values, int offset, int count)
        {
            double max = double.NegativeInfinity;
            for (int c = 0; c < count; c++) max = Math.Max(max, values[offset + c]);
            var p = new double[count];
            double sum = 0;
            for (int c = 0; c < count; c++)
            {
                p[c] = Math.Exp(values[offset + c] - max);
                sum += p[c];
            }
            for (int c = 0; c < count; c++) p[c] /= sum;
            return p;
        }
    }
}
