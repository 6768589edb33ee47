using System;

namespace TfNetTrain.Reference
{
    /// <summary>Per-sample metric values (one per row) for targets (B, k) or (B, 1) and predictions (B, k).</summary>
    public static class MetricFunctions
    {
        /// <summary>mean(|y - p|) over the last axis.</summary>
        public static double[] MeanAbsoluteError(Tensor y, Tensor p, Numerics n)
        {
            return RowMeans(y, p, n, (t, q) => Math.Abs(n.Round(t - q)));
        }

        /// <summary>mean((y - p)^2) over the last axis.</summary>
        public static double[] MeanSquaredError(Tensor y, Tensor p, Numerics n)
        {
            return RowMeans(y, p, n, (t, q) =>
            {
                double d = n.Round(t - q);
                return n.Round(d * d);
            });
        }

        /// <summary>100 * mean(|(y - p) / max(|y|, eps)|) over the last axis.</summary>
        public static double[] MeanAbsolutePercentageError(Tensor y, Tensor p, Numerics n)
        {
            double eps = n.Round(LossFunctions.Epsilon);
            double[] means = RowMeans(y, p, n, (t, q) => Math.Abs(n.Round(n.Round(t - q) / Math.Max(Math.Abs(t), eps))));
            for (int i = 0; i < means.Length; i++) means[i] = n.Round(100.0 * means[i]);
            return means;
        }

        /// <summary>mean(y == (p &gt; 0.5)) over the last axis.</summary>
        public static double[] BinaryAccuracy(Tensor y, Tensor p, Numerics n)
        {
            return RowMeans(y, p, n, (t, q) => t == (q > 0.5 ? 1.0 : 0.0) ? 1.0 : 0.0);
        }

        /// <summary>1 where the integer label y[:, 0] equals argmax(p), else 0.</summary>
        public static double[] SparseCategoricalAccuracy(Tensor y, Tensor p)
        {
            var result = new double[p.Rows];
            for (int r = 0; r < p.Rows; r++) result[r] = y[r, 0] == ArgMax(p, r) ? 1.0 : 0.0;
            return result;
        }

        /// <summary>1 where argmax(y) equals argmax(p), else 0.</summary>
        public static double[] CategoricalAccuracy(Tensor y, Tensor p)
        {
            var result = new double[p.Rows];
            for (int r = 0; r < p.Rows; r++) result[r] = ArgMax(y, r) == ArgMax(p, r) ? 1.0 : 0.0;
            return result;
        }

        /// <summary>Index of the first largest value of a row.</summary>
        public static int ArgMax(Tensor t, int row)
        {
            int best = 0;
            for (int c = 1; c < t.Cols; c++)
            {
                if (t[row, c] > t[row, best]) best = c;
            }
            return best;
        }

        private static double[] RowMeans(Tensor y, Tensor p, Numerics n, Func<double, double, double> element)
        {
            var result = new double[p.Rows];
            for (int r = 0; r < p.Rows; r++)
            {
                double sum = 0;
                for (int c = 0; c < p.Cols; c++) sum += element(y.Cols == 1 ? y[r, 0] : y[r, c], p[r, c]);
                result[r] = n.Round(n.Round(sum) / p.Cols);
            }
            return result;
        }
    }
}
