using System;
using System.Collections.Generic;
using System.Linq;

namespace TfNetTrain.Reference
{
    /// <summary>Keras 3's gradient clipping formulas; a spec sets at most one option (Keras 3's rule).</summary>
    public static class GradientClipping
    {
        /// <summary>
        /// Applies the clipping option set in <paramref name="spec"/> (none: a copy); returns new tensors.
        /// <see cref="OptimizerSpec"/> refuses a second option, so at most one applies.
        /// </summary>
        public static IList<Tensor> Apply(OptimizerSpec spec, IList<Tensor> gradients, Numerics n)
        {
            IList<Tensor> result = gradients.Select(g => g.Clone()).ToList();
            if (spec.ClipNorm.HasValue) return ClipByNorm(result, spec.ClipNorm.Value, n);
            if (spec.GlobalClipNorm.HasValue) return ClipByGlobalNorm(result, spec.GlobalClipNorm.Value, n);
            if (spec.ClipValue.HasValue) return ClipByValue(result, spec.ClipValue.Value, n);
            return result;
        }

        /// <summary>clip(g, -v, v) element-wise.</summary>
        public static IList<Tensor> ClipByValue(IList<Tensor> gradients, double clipValue, Numerics n)
        {
            double v = n.Round(clipValue);
            return gradients.Select(g => Map(g, x => Math.Min(Math.Max(x, -v), v))).ToList();
        }

        /// <summary>Per tensor: g * c / max(||g||, c) (tf.clip_by_norm).</summary>
        public static IList<Tensor> ClipByNorm(IList<Tensor> gradients, double clipNorm, Numerics n)
        {
            double c = n.Round(clipNorm);
            return gradients.Select(g =>
            {
                double squares = SumOfSquares(g, n);
                double norm = squares > 0 ? n.Round(Math.Sqrt(squares)) : squares;
                double divisor = Math.Max(norm, c);
                return Map(g, x => n.Round(n.Round(x * c) / divisor));
            }).ToList();
        }

        /// <summary>All tensors: g * c * min(1 / global_norm, 1 / c), with global_norm = sqrt(sum of every squared element).</summary>
        public static IList<Tensor> ClipByGlobalNorm(IList<Tensor> gradients, double clipNorm, Numerics n)
        {
            double norm = GlobalNorm(gradients, n);
            double inverseNorm = norm == 0 ? double.PositiveInfinity : n.Round(1.0 / norm);
            double scaleForFinite = n.Round(n.Round(clipNorm) * Math.Min(inverseNorm, n.Round(1.0 / clipNorm)));
            double scale = n.Round(scaleForFinite + n.Round(norm - norm));
            return gradients.Select(g => Map(g, x => n.Round(x * scale))).ToList();
        }

        /// <summary>sqrt of the sum over tensors of each tensor's sum of squares.</summary>
        public static double GlobalNorm(IList<Tensor> gradients, Numerics n)
        {
            double total = 0;
            foreach (Tensor g in gradients) total += SumOfSquares(g, n);
            return n.Round(Math.Sqrt(n.Round(total)));
        }

        private static double SumOfSquares(Tensor g, Numerics n)
        {
            double sum = 0;
            foreach (double x in g.Data) sum += n.Round(x * x);
            return n.Round(sum);
        }

        private static Tensor Map(Tensor t, Func<double, double> f)
        {
            var result = Tensor.Zeros(t.Shape);
            for (int i = 0; i < t.Size; i++) result.Data[i] = f(t.Data[i]);
            return result;
        }
    }
}
