using System;
using System.Collections.Generic;
using System.Linq;

namespace TfNetTrain.Reference
{
    /// <summary>
    /// Trains a conformance case step by step and records each step's trace with the keys of docs/conformance.md:
    /// expand_1d, forward, loss, gradients, aggregation (identity on one device), clipping (keras only),
    /// optimizer update, metrics.
    /// </summary>
    public sealed class ReferenceTrainer
    {
        private readonly ConformanceCase _case;
        private readonly Numerics _n;
        private readonly TrainingObjective _objective;
        private readonly ReferenceOptimizer _optimizer;
        private readonly OptimizerSpec _optimizerSpec;
        private readonly CompiledMetrics _metrics;
        private readonly List<Tensor> _weights;

        /// <summary>Creates a float32 trainer for a validated case.</summary>
        public ReferenceTrainer(ConformanceCase conformanceCase) : this(conformanceCase, Numerics.Float32)
        {
        }

        /// <summary>Creates a trainer with the given precision.</summary>
        /// <exception cref="CaseFormatException">The case is inconsistent.</exception>
        /// <exception cref="ProfileNotSupportedException">The case asks a profile for something its original throws on
        /// (tfnet: an option TensorFlow.NET does not implement; keras: a loss or optimizer string Keras 3 cannot interpret, or loss=None).</exception>
        public ReferenceTrainer(ConformanceCase conformanceCase, Numerics numerics)
        {
            _case = conformanceCase ?? throw new ArgumentNullException(nameof(conformanceCase));
            _n = numerics ?? throw new ArgumentNullException(nameof(numerics));
            _case.Validate();
            LossSpec loss = _case.Loss.Resolve(_case.Semantics);  // a string loss: each profile's rule
            _objective = new TrainingObjective(_case.InputSize, _case.Layers, loss, _case.Semantics, _n);
            _weights = _case.Weights.Select(w => new Tensor(w.Shape, w.ToDoubleArray().Select(_n.Round).ToArray())).ToList();
            _optimizerSpec = _case.Optimizer.Resolve(_case.Semantics);  // a string optimizer: each profile's rule
            _optimizer = ReferenceOptimizer.Create(_optimizerSpec, _case.Semantics, _n, _objective.Network.WeightShapes);
            _metrics = new CompiledMetrics(_case.Metrics, _case.Semantics, _n);
        }

        /// <summary>Steps completed so far.</summary>
        public int StepsDone { get; private set; }

        /// <summary>The current weights (updated in place by each step).</summary>
        public IReadOnlyList<Tensor> Weights { get { return _weights; } }

        /// <summary>The optimizer and its state.</summary>
        public ReferenceOptimizer Optimizer { get { return _optimizer; } }

        /// <summary>Trains on the next batch and returns its flat trace.</summary>
        /// <exception cref="InvalidOperationException">Every step of the case has run.</exception>
        public Dictionary<string, NpyArray> Step()
        {
            if (StepsDone >= _case.Steps)
                throw new InvalidOperationException(string.Format("case '{0}' has {1} steps, all of which have run", _case.Name, _case.Steps));
            int b = _case.BatchSize;
            int start = StepsDone * b;
            NpyArray xBatch = _case.X.SliceRows(start, b);
            NpyArray yBatch = ExpandOneD(_case.Y.SliceRows(start, b));
            NpyArray swBatch = _case.SampleWeight == null ? null : ExpandOneD(_case.SampleWeight.SliceRows(start, b));

            Tensor x = Tensor.FromNpy(xBatch);
            Tensor y = Tensor.FromNpy(yBatch);
            Tensor sw = swBatch == null ? null : Tensor.FromNpy(swBatch);

            ObjectiveResult result = _objective.Evaluate(_weights, x, y, sw);
            IList<Tensor> gradients = result.Gradients;
            IList<Tensor> aggregated = gradients.Select(g => g.Clone()).ToList();
            IList<Tensor> clipped = _case.Semantics == Semantics.Keras
                ? GradientClipping.Apply(_optimizerSpec, aggregated, _n)
                : aggregated.Select(g => g.Clone()).ToList();
            _optimizer.Apply(_weights, clipped);
            _metrics.Update(result.Loss, y, result.YPred);
            StepsDone++;

            var trace = new Dictionary<string, NpyArray>();
            trace[TraceKeys.Key(TraceKeys.Inputs, "x", 0)] = xBatch;
            trace[TraceKeys.Key(TraceKeys.Inputs, "y", 0)] = yBatch;
            if (swBatch != null) trace[TraceKeys.Key(TraceKeys.Inputs, "sample_weight", 0)] = swBatch;
            trace[TraceKeys.Key(TraceKeys.YPred, 0)] = result.YPred.ToFloat32();
            trace[TraceKeys.Loss] = NpyArray.Float64Scalar(result.Loss);
            AddList(trace, TraceKeys.Gradients, gradients);
            AddList(trace, TraceKeys.AggregatedGradients, aggregated);
            AddList(trace, TraceKeys.ClippedGradients, clipped);
            AddList(trace, TraceKeys.Weights, _weights);
            trace[TraceKeys.Key(TraceKeys.OptimizerState, TraceKeys.Iterations)] = NpyArray.Int64Scalar(_optimizer.Iterations);
            trace[TraceKeys.Key(TraceKeys.OptimizerState, TraceKeys.LearningRate)] = NpyArray.Float64Scalar(_optimizer.LearningRate);
            foreach (var slot in _optimizer.Slots) AddList(trace, TraceKeys.Key(TraceKeys.OptimizerState, slot.Key), slot.Value);
            foreach (var log in _metrics.Results()) trace[TraceKeys.Key(TraceKeys.Metrics, log.Key)] = NpyArray.Float64Scalar(log.Value);
            return trace;
        }

        /// <summary>TensorFlow.NET's expand_1d: a rank-1 array of length B becomes (B, 1).</summary>
        public static NpyArray ExpandOneD(NpyArray array)
        {
            return array.Rank == 1 ? array.Reshape(array.Shape[0], 1) : array;
        }

        private static void AddList(Dictionary<string, NpyArray> trace, string stage, IEnumerable<Tensor> tensors)
        {
            int i = 0;
            foreach (Tensor t in tensors) trace[TraceKeys.Key(stage, i++)] = t.ToFloat32();
        }
    }
}
