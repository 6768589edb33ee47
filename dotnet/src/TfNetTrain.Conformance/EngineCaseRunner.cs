using System;
using System.Collections.Generic;
using System.Linq;
using TfNetTrain.Reference;

namespace TfNetTrain.Conformance
{
    /// <summary>
    /// Runs a conformance case with the Python engine through the bridge API: a Sequential of Dense layers built from
    /// the case's spec (with their L2 kernel regularizers), compiled with its optimizer, loss (objects, or the strings
    /// a case compiles with), metrics and semantics profile, given its initial weights,
    /// then <see cref="Model.TrainStepTraced"/> once per step on rows <c>[i*batch_size, (i+1)*batch_size)</c>.
    /// Needs a running <see cref="PythonRuntime"/>.
    /// </summary>
    public static class EngineCaseRunner
    {
        /// <summary>The compiled model holding the case's initial weights, metrics reset (dispose it when done).</summary>
        public static Model BuildModel(ConformanceCase conformanceCase)
        {
            if (conformanceCase == null) throw new ArgumentNullException(nameof(conformanceCase));
            conformanceCase.Validate();
            var layers = new List<LayerSpec> { Layers.Input(conformanceCase.InputSize) };
            foreach (Reference.LayerSpec layer in conformanceCase.Layers)
            {
                layers.Add(Layers.Dense(layer.Units, activation: CaseNames.Of(layer.Activation), useBias: layer.UseBias,
                                        kernelRegularizer: KernelRegularizer(layer)));
            }
            Model model = Keras.Sequential(layers);
            try
            {
                model.Compile(Optimizer(conformanceCase.Optimizer), Loss(conformanceCase.Loss), conformanceCase.Metrics.ToList(),
                              semantics: CaseNames.Of(conformanceCase.Semantics));
                model.SetWeights(conformanceCase.Weights.Select(ArrayConversion.ToNDArray).ToList());
                model.Runtime.Run(() =>
                {
                    using (model.PythonObject.InvokeMethod("reset_metrics")) { }
                });
                return model;
            }
            catch
            {
                model.Dispose();
                throw;
            }
        }

        /// <summary>Every step's flat trace (<see cref="StepTrace.Flat"/>), in step order.</summary>
        public static List<Dictionary<string, NpyArray>> Run(ConformanceCase conformanceCase)
        {
            using (Model model = BuildModel(conformanceCase))
            {
                var traces = new List<Dictionary<string, NpyArray>>();
                int b = conformanceCase.BatchSize;
                for (int step = 0; step < conformanceCase.Steps; step++)
                {
                    NDArray x = ArrayConversion.ToNDArray(conformanceCase.X.SliceRows(step * b, b));
                    NDArray y = ArrayConversion.ToNDArray(conformanceCase.Y.SliceRows(step * b, b));
                    NDArray sw = conformanceCase.SampleWeight == null
                        ? null
                        : ArrayConversion.ToNDArray(conformanceCase.SampleWeight.SliceRows(step * b, b));
                    traces.Add(ArrayConversion.ToNpy(model.TrainStepTraced(x, y, sw).Flat));
                }
                return traces;
            }
        }

        /// <summary>
        /// The engine optimizer of a case: class name and every hyper-parameter as the case states it, or the case's
        /// string (<c>optimizer.as_string</c>), which compile resolves under the case's profile.
        /// </summary>
        public static OptimizerSpec Optimizer(Reference.OptimizerSpec spec)
        {
            if (spec == null) throw new ArgumentNullException(nameof(spec));
            if (spec.AsString) return spec.Name;
            var kwargs = new Dictionary<string, object>();
            foreach (var parameter in OptimizerParameters.Of(spec)) kwargs[parameter.Key] = parameter.Value;
            return Optimizers.Create(OptimizerParameters.ClassName(spec.Kind), kwargs);
        }

        /// <summary>
        /// The Keras loss of a case (from_logits for the cross-entropies), or the case's string (<c>loss.as_string</c>;
        /// null compiles with <c>loss=None</c>), which compile resolves under the case's profile.
        /// </summary>
        public static LossSpec Loss(Reference.LossSpec spec)
        {
            if (spec == null) throw new ArgumentNullException(nameof(spec));
            if (spec.AsString) return spec.Name;
            switch (spec.Kind)
            {
                case LossKind.MeanSquaredError: return Losses.MeanSquaredError();
                case LossKind.MeanAbsoluteError: return Losses.MeanAbsoluteError();
                case LossKind.BinaryCrossentropy: return Losses.Create("BinaryCrossentropy", FromLogits(spec));
                case LossKind.CategoricalCrossentropy: return Losses.Create("CategoricalCrossentropy", FromLogits(spec));
                case LossKind.SparseCategoricalCrossentropy: return Losses.Create("SparseCategoricalCrossentropy", FromLogits(spec));
                default: throw new ArgumentOutOfRangeException(nameof(spec), spec.Kind, "unknown loss");
            }
        }

        /// <summary>
        /// The Keras config of a layer's L2 kernel regularizer (the factor passed as the double the case states), or
        /// null when the layer has none.
        /// </summary>
        public static IDictionary<string, object> KernelRegularizer(Reference.LayerSpec layer)
        {
            if (layer == null) throw new ArgumentNullException(nameof(layer));
            if (!layer.KernelL2.HasValue) return null;
            return new Dictionary<string, object>
            {
                { "class_name", "L2" },
                { "config", new Dictionary<string, object> { { "l2", layer.KernelL2.Value } } },
            };
        }

        private static Dictionary<string, object> FromLogits(Reference.LossSpec spec)
        {
            return new Dictionary<string, object> { { "from_logits", spec.FromLogits } };
        }
    }
}
