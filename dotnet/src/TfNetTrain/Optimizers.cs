using System.Collections.Generic;
using System.Globalization;

namespace TfNetTrain
{
    /// <summary>
    /// The engine's optimizers (tfnet_train.optimizers, Keras 3's classes) with Keras argument names. Every optimizer
    /// takes one gradient clipping option: <c>clipNorm</c> (per tensor), <c>clipValue</c> or <c>globalClipNorm</c>
    /// (two are a ValueError from Keras when the optimizer is built). Float arguments are
    /// passed as the shortest decimal that round-trips (0.9f arrives in Python as 0.9), so a C# literal means what
    /// the same literal means in Python. For a schedule use <see cref="OptimizerSpec.WithLearningRate"/>. A learning
    /// rate must be finite and &gt;= 0: another is a TfNetTrainArgumentException here (Keras 3 and TensorFlow.NET
    /// take it, and train to nonsense).
    /// </summary>
    public static class Optimizers
    {
        /// <summary>An optimizer by class name (the engine's four, or any other Keras 3 optimizer such as Adagrad) with Python keyword arguments.</summary>
        public static OptimizerSpec Create(string className, IDictionary<string, object> kwargs = null)
        {
            if (kwargs != null && kwargs.TryGetValue("learning_rate", out object rate) && (rate is float || rate is double))
                CheckLearningRate(rate, "learning_rate");
            return new OptimizerSpec(className, kwargs);
        }

        /// <summary>Stochastic gradient descent, optionally with (Nesterov) momentum.</summary>
        public static OptimizerSpec SGD(float learningRate = 0.01f, float momentum = 0f, bool nesterov = false,
                                        float? clipNorm = null, float? clipValue = null, float? globalClipNorm = null,
                                        string name = null)
        {
            CheckLearningRate(learningRate, nameof(learningRate));
            return Spec("SGD", clipNorm, clipValue, globalClipNorm, name,
                        "learning_rate", learningRate, "momentum", momentum, "nesterov", nesterov);
        }

        /// <summary>Adam.</summary>
        public static OptimizerSpec Adam(float learningRate = 0.001f, float beta1 = 0.9f, float beta2 = 0.999f,
                                         float epsilon = 1e-7f, bool amsgrad = false, float? clipNorm = null,
                                         float? clipValue = null, float? globalClipNorm = null, string name = null)
        {
            CheckLearningRate(learningRate, nameof(learningRate));
            return Spec("Adam", clipNorm, clipValue, globalClipNorm, name, "learning_rate", learningRate,
                        "beta_1", beta1, "beta_2", beta2, "epsilon", epsilon, "amsgrad", amsgrad);
        }

        /// <summary>AdamW (Adam with decoupled weight decay).</summary>
        public static OptimizerSpec AdamW(float learningRate = 0.001f, float weightDecay = 0.004f, float beta1 = 0.9f,
                                          float beta2 = 0.999f, float epsilon = 1e-7f, bool amsgrad = false,
                                          float? clipNorm = null, float? clipValue = null, float? globalClipNorm = null,
                                          string name = null)
        {
            CheckLearningRate(learningRate, nameof(learningRate));
            return Spec("AdamW", clipNorm, clipValue, globalClipNorm, name, "learning_rate", learningRate,
                        "weight_decay", weightDecay, "beta_1", beta1, "beta_2", beta2, "epsilon", epsilon, "amsgrad", amsgrad);
        }

        /// <summary>RMSprop.</summary>
        public static OptimizerSpec RMSprop(float learningRate = 0.001f, float rho = 0.9f, float momentum = 0f,
                                            float epsilon = 1e-7f, bool centered = false, float? clipNorm = null,
                                            float? clipValue = null, float? globalClipNorm = null, string name = null)
        {
            CheckLearningRate(learningRate, nameof(learningRate));
            return Spec("RMSprop", clipNorm, clipValue, globalClipNorm, name, "learning_rate", learningRate,
                        "rho", rho, "momentum", momentum, "epsilon", epsilon, "centered", centered);
        }

        private static OptimizerSpec Spec(string className, float? clipNorm, float? clipValue, float? globalClipNorm,
                                          string name, params object[] namesAndValues)
        {
            var arguments = new List<KeyValuePair<string, object>>(Layers.Pairs(namesAndValues))
            {
                P("clipnorm", clipNorm), P("clipvalue", clipValue), P("global_clipnorm", globalClipNorm), P("name", name),
            };
            return new OptimizerSpec(className, arguments);
        }

        /// <summary>TfNetTrainArgumentException naming <paramref name="paramName"/> unless the rate is finite and &gt;= 0.</summary>
        private static void CheckLearningRate(object learningRate, string paramName)
        {
            double value = System.Convert.ToDouble(learningRate, CultureInfo.InvariantCulture);
            if (double.IsNaN(value) || double.IsInfinity(value) || value < 0)
                throw new TfNetTrainArgumentException(paramName, "the learning rate must be a finite number >= 0 (0 leaves the weights as " +
                    $"they are); got {((System.IFormattable)learningRate).ToString("R", CultureInfo.InvariantCulture)}");
        }

        private static KeyValuePair<string, object> P(string name, object value) => new KeyValuePair<string, object>(name, value);
    }
}
