using System;
using System.Collections.Generic;

namespace TfNetTrain.Reference
{
    /// <summary>
    /// The logs of a training run: the batch-size-weighted "loss" mean, then each compiled metric's running mean.
    /// "accuracy"/"acc" resolves from the shapes as Keras and TensorFlow.NET do (binary when predictions have one
    /// column, sparse when targets have one column and predictions more, categorical otherwise). Names: keras reports
    /// each string as given; tfnet reports "accuracy", "mean_absolute_error", "mean_absolute_percentage_error" and
    /// has no "mse" metric. Metrics ignore sample weights in both profiles.
    /// </summary>
    public sealed class CompiledMetrics
    {
        private delegate double[] MetricFunction(Tensor y, Tensor p);

        private readonly IList<string> _identifiers;
        private readonly Semantics _semantics;
        private readonly Numerics _n;
        private readonly MeanMetric _loss;
        private List<KeyValuePair<MeanMetric, MetricFunction>> _metrics;

        /// <summary>Creates the metrics for the case's metric strings.</summary>
        /// <exception cref="ProfileNotSupportedException">tfnet with a metric string TensorFlow.NET does not know ("mse").</exception>
        public CompiledMetrics(IList<string> identifiers, Semantics semantics, Numerics numerics)
        {
            _identifiers = identifiers;
            _semantics = semantics;
            _n = numerics;
            _loss = new MeanMetric("loss", numerics);
            foreach (string id in identifiers) ReportedName(id, semantics);
        }

        /// <summary>The name a profile reports for a metric string.</summary>
        /// <exception cref="ProfileNotSupportedException">tfnet with a metric string other than accuracy, acc, mae, mape (and their long names).</exception>
        public static string ReportedName(string identifier, Semantics semantics)
        {
            if (semantics == Semantics.Keras) return identifier;
            switch (identifier)
            {
                case "accuracy":
                case "acc":
                    return "accuracy";
                case "mae":
                case "mean_absolute_error":
                    return "mean_absolute_error";
                case "mape":
                case "mean_absolute_percentage_error":
                    return "mean_absolute_percentage_error";
                default:
                    throw new ProfileNotSupportedException("tfnet", "metric \"" + identifier + "\"",
                        "TensorFlow.NET's MetricsContainer throws NotImplementedException for it");
            }
        }

        /// <summary>Adds one step: the loss weighted by the batch size, and every metric on (y, y_pred).</summary>
        public void Update(double loss, Tensor y, Tensor yPred)
        {
            if (_metrics == null) Build(y, yPred);
            _loss.Update(loss, yPred.Rows);
            foreach (var metric in _metrics) metric.Key.Update(metric.Value(y, yPred));
        }

        /// <summary>The current logs: "loss" first, then the metrics in compile order.</summary>
        public List<KeyValuePair<string, double>> Results()
        {
            var logs = new List<KeyValuePair<string, double>> { new KeyValuePair<string, double>(_loss.Name, _loss.Result()) };
            if (_metrics == null) return logs;
            foreach (var metric in _metrics)
            {
                int existing = logs.FindIndex(p => p.Key == metric.Key.Name);
                var entry = new KeyValuePair<string, double>(metric.Key.Name, metric.Key.Result());
                if (existing >= 0) logs[existing] = entry;
                else logs.Add(entry);
            }
            return logs;
        }

        private void Build(Tensor y, Tensor yPred)
        {
            _metrics = new List<KeyValuePair<MeanMetric, MetricFunction>>();
            foreach (string id in _identifiers)
            {
                var mean = new MeanMetric(ReportedName(id, _semantics), _n);
                _metrics.Add(new KeyValuePair<MeanMetric, MetricFunction>(mean, Resolve(id, y, yPred)));
            }
        }

        private MetricFunction Resolve(string identifier, Tensor y, Tensor yPred)
        {
            Numerics n = _n;
            switch (identifier)
            {
                case "accuracy":
                case "acc":
                    bool binary = yPred.Cols == 1;
                    bool sparse = y.Cols == 1 && yPred.Cols > 1;
                    if (binary) return (t, p) => MetricFunctions.BinaryAccuracy(t, p, n);
                    if (sparse) return MetricFunctions.SparseCategoricalAccuracy;
                    return MetricFunctions.CategoricalAccuracy;
                case "mae":
                case "mean_absolute_error":
                    return (t, p) => MetricFunctions.MeanAbsoluteError(t, p, n);
                case "mse":
                case "mean_squared_error":
                    return (t, p) => MetricFunctions.MeanSquaredError(t, p, n);
                case "mape":
                case "mean_absolute_percentage_error":
                    return (t, p) => MetricFunctions.MeanAbsolutePercentageError(t, p, n);
                default:
                    throw new ArgumentException("identifier: expected one of accuracy, acc, mae, mse, mape, got \"" + identifier + "\"", nameof(identifier));
            }
        }
    }
}
