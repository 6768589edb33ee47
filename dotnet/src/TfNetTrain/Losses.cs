using System.Collections.Generic;

namespace TfNetTrain
{
    /// <summary>Keras losses (keras.losses classes) with Keras argument names; <see cref="Create"/> reaches any other.</summary>
    public static class Losses
    {
        /// <summary>Any keras.losses class by name with Python keyword arguments.</summary>
        public static LossSpec Create(string className, IDictionary<string, object> kwargs = null)
        {
            return new LossSpec(className, kwargs);
        }

        /// <summary>keras.losses.MeanSquaredError.</summary>
        public static LossSpec MeanSquaredError() => new LossSpec("MeanSquaredError");

        /// <summary>keras.losses.MeanAbsoluteError.</summary>
        public static LossSpec MeanAbsoluteError() => new LossSpec("MeanAbsoluteError");

        /// <summary>keras.losses.MeanAbsolutePercentageError.</summary>
        public static LossSpec MeanAbsolutePercentageError() => new LossSpec("MeanAbsolutePercentageError");

        /// <summary>keras.losses.BinaryCrossentropy.</summary>
        public static LossSpec BinaryCrossentropy(bool fromLogits = false, float? labelSmoothing = null)
        {
            return Spec("BinaryCrossentropy", fromLogits, labelSmoothing);
        }

        /// <summary>keras.losses.CategoricalCrossentropy (one-hot labels).</summary>
        public static LossSpec CategoricalCrossentropy(bool fromLogits = false, float? labelSmoothing = null)
        {
            return Spec("CategoricalCrossentropy", fromLogits, labelSmoothing);
        }

        /// <summary>keras.losses.SparseCategoricalCrossentropy (integer labels).</summary>
        public static LossSpec SparseCategoricalCrossentropy(bool fromLogits = false)
        {
            return Spec("SparseCategoricalCrossentropy", fromLogits, null);
        }

        /// <summary>keras.losses.Huber.</summary>
        public static LossSpec Huber(float delta = 1f)
        {
            return new LossSpec("Huber", new Dictionary<string, object> { { "delta", delta } });
        }

        /// <summary>keras.losses.Hinge.</summary>
        public static LossSpec Hinge() => new LossSpec("Hinge");

        /// <summary>keras.losses.KLDivergence.</summary>
        public static LossSpec KLDivergence() => new LossSpec("KLDivergence");

        /// <summary>keras.losses.LogCosh.</summary>
        public static LossSpec LogCosh() => new LossSpec("LogCosh");

        private static LossSpec Spec(string className, bool fromLogits, float? labelSmoothing)
        {
            return new LossSpec(className, new Dictionary<string, object>
            {
                { "from_logits", fromLogits },
                { "label_smoothing", labelSmoothing },
            });
        }
    }
}
