using System;
using System.Collections.Generic;

namespace TfNetTrain.Reference
{
    /// <summary>A stack of Dense layers: forward pass and analytic backward pass.</summary>
    public sealed class DenseNetwork
    {
        private readonly IList<LayerSpec> _layers;
        private readonly Numerics _n;
        private readonly int _inputSize;

        /// <summary>Creates the network for <paramref name="inputSize"/> features per sample.</summary>
        public DenseNetwork(int inputSize, IList<LayerSpec> layers, Numerics numerics)
        {
            if (layers == null || layers.Count == 0) throw new ArgumentException("layers: expected at least one layer, got none", nameof(layers));
            _inputSize = inputSize;
            _layers = layers;
            _n = numerics ?? throw new ArgumentNullException(nameof(numerics));
            var shapes = new List<int[]>();
            int inputs = inputSize;
            foreach (LayerSpec layer in layers)
            {
                shapes.Add(new[] { inputs, layer.Units });
                if (layer.UseBias) shapes.Add(new[] { layer.Units });
                inputs = layer.Units;
            }
            WeightShapes = shapes;
        }

        /// <summary>Weight shapes in Keras get_weights() order: kernel (in, units) then bias (units,) per layer.</summary>
        public IList<int[]> WeightShapes { get; }

        /// <summary>The last layer's activation.</summary>
        public Activation OutputActivation { get { return _layers[_layers.Count - 1].Activation; } }

        /// <summary>Runs x (batch, features) through every layer: MatMul, BiasAdd, activation.</summary>
        public ForwardPass Forward(IList<Tensor> weights, Tensor x)
        {
            CheckWeights(weights);
            if (x.Rank != 2 || x.Cols != _inputSize)
                throw new ArgumentException(string.Format("x: expected shape (batch, {0}), got {1}", _inputSize, NpyArray.FormatShape(x.Shape)), nameof(x));
            var inputs = new List<Tensor>();
            var pre = new List<Tensor>();
            var outputs = new List<Tensor>();
            Tensor current = x;
            int w = 0;
            foreach (LayerSpec layer in _layers)
            {
                Tensor kernel = weights[w++];
                Tensor z = MatMul(current, kernel, false, false);
                if (layer.UseBias)
                {
                    Tensor bias = weights[w++];
                    for (int r = 0; r < z.Rows; r++)
                        for (int c = 0; c < z.Cols; c++)
                            z[r, c] = _n.Round(z[r, c] + bias.Data[c]);
                }
                inputs.Add(current);
                pre.Add(z);
                current = ActivationFunctions.Forward(layer.Activation, z, _n);
                outputs.Add(current);
            }
            return new ForwardPass(inputs, pre, outputs);
        }

        /// <summary>
        /// Gradients of every weight, given the gradient of the loss with respect to the model output, or, when
        /// <paramref name="gradientIsForLogits"/>, with respect to the last layer's pre-activation.
        /// </summary>
        public IList<Tensor> Backward(IList<Tensor> weights, ForwardPass pass, Tensor outputGradient, bool gradientIsForLogits)
        {
            CheckWeights(weights);
            var grads = new Tensor[WeightShapes.Count];
            int w = WeightShapes.Count;
            Tensor upstream = outputGradient;
            for (int l = _layers.Count - 1; l >= 0; l--)
            {
                LayerSpec layer = _layers[l];
                bool skipActivation = gradientIsForLogits && l == _layers.Count - 1;
                Tensor dz = skipActivation ? upstream : ActivationFunctions.Backward(layer.Activation, pass.Outputs[l], upstream, _n);
                if (layer.UseBias)
                {
                    var db = Tensor.Zeros(layer.Units);
                    for (int c = 0; c < dz.Cols; c++)
                    {
                        double sum = 0;
                        for (int r = 0; r < dz.Rows; r++) sum += dz[r, c];
                        db.Data[c] = _n.Round(sum);
                    }
                    grads[--w] = db;
                }
                int kernelIndex = --w;
                grads[kernelIndex] = MatMul(pass.Inputs[l], dz, true, false);
                if (l > 0) upstream = MatMul(dz, weights[kernelIndex], false, true);
            }
            return grads;
        }

        /// <summary>a @ b with optional transposes; each result element is accumulated in double and rounded once.</summary>
        public Tensor MatMul(Tensor a, Tensor b, bool transposeA, bool transposeB)
        {
            int m = transposeA ? a.Cols : a.Rows;
            int k = transposeA ? a.Rows : a.Cols;
            int k2 = transposeB ? b.Cols : b.Rows;
            int p = transposeB ? b.Rows : b.Cols;
            if (k != k2) throw new ArgumentException(string.Format("b: expected inner dimension {0}, got {1}", k, k2), nameof(b));
            var result = Tensor.Zeros(m, p);
            for (int i = 0; i < m; i++)
            {
                for (int j = 0; j < p; j++)
                {
                    double sum = 0;
                    for (int t = 0; t < k; t++)
                    {
                        double av = transposeA ? a[t, i] : a[i, t];
                        double bv = transposeB ? b[j, t] : b[t, j];
                        sum += av * bv;
                    }
                    result[i, j] = _n.Round(sum);
                }
            }
            return result;
        }

        private void CheckWeights(IList<Tensor> weights)
        {
            if (weights == null || weights.Count != WeightShapes.Count)
                throw new ArgumentException(string.Format("weights: expected {0} tensors, got {1}", WeightShapes.Count,
                    weights == null ? 0 : weights.Count), nameof(weights));
            for (int i = 0; i < weights.Count; i++)
            {
                int[] expected = WeightShapes[i];
                int[] actual = weights[i].Shape;
                bool same = expected.Length == actual.Length;
                for (int d = 0; same && d < expected.Length; d++) same = expected[d] == actual[d];
                if (!same)
                    throw new ArgumentException(string.Format("weights[{0}]: expected shape {1}, got {2}", i,
                        NpyArray.FormatShape(expected), NpyArray.FormatShape(actual)), nameof(weights));
            }
        }
    }
}
