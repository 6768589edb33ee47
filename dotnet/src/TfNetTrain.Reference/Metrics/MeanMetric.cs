namespace TfNetTrain.Reference
{
    /// <summary>A running weighted mean kept in float32 variables <c>total</c> and <c>count</c>, as Keras' Mean metric.</summary>
    public sealed class MeanMetric
    {
        private readonly Numerics _n;
        private double _total;
        private double _count;

        /// <summary>Creates the metric with the name it is reported under.</summary>
        public MeanMetric(string name, Numerics numerics)
        {
            Name = name;
            _n = numerics;
        }

        /// <summary>The reported name.</summary>
        public string Name { get; }

        /// <summary>Adds unweighted values: total += sum(values), count += number of values.</summary>
        public void Update(double[] values)
        {
            double sum = 0;
            foreach (double v in values) sum += v;
            _total = _n.Round(_total + _n.Round(sum));
            _count = _n.Round(_count + values.Length);
        }

        /// <summary>Adds one value with a weight: total += value * weight, count += weight.</summary>
        public void Update(double value, double weight)
        {
            _total = _n.Round(_total + _n.Round(value * weight));
            _count = _n.Round(_count + weight);
        }

        /// <summary>total / count, or 0 before any update.</summary>
        public double Result()
        {
            return _count == 0 ? 0.0 : _n.Round(_total / _count);
        }

        /// <summary>Forgets every update.</summary>
        public void Reset()
        {
            _total = 0;
            _count = 0;
        }
    }
}
