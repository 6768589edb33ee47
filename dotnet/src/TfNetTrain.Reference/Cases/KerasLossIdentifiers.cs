using System;
using System.Collections.Generic;

namespace TfNetTrain.Reference
{
    /// <summary>
    /// The loss identifiers Keras 3 knows (keras.losses.get) other than its names of MSE and MAE, lower-cased. A
    /// string-compiled case may not name one of these, in any letter case: Keras would train a loss the references do not implement.
    /// </summary>
    internal static class KerasLossIdentifiers
    {
        private static readonly HashSet<string> Others = new HashSet<string>(StringComparer.OrdinalIgnoreCase)
        {
            "BCE", "BinaryCrossentropy", "BinaryFocalCrossentropy", "CTC", "CategoricalCrossentropy",
            "CategoricalFocalCrossentropy", "CategoricalHinge", "Circle", "CosineSimilarity", "Dice", "Hinge", "Huber",
            "KLD", "KLDivergence", "LogCosh", "Loss", "LossFunctionWrapper", "MAPE", "MeanAbsoluteError",
            "MeanAbsolutePercentageError", "MeanSquaredError", "MeanSquaredLogarithmicError", "MSLE", "Poisson",
            "SparseCategoricalCrossentropy", "SquaredHinge", "Tversky", "binary_crossentropy", "binary_focal_crossentropy",
            "categorical_crossentropy", "categorical_focal_crossentropy", "categorical_hinge", "circle", "cosine_similarity",
            "dice", "kl_divergence", "log_cosh", "mean_absolute_percentage_error", "mean_squared_logarithmic_error",
            "sparse_categorical_crossentropy", "squared_hinge", "tversky", "mae", "mse",
        };

        /// <summary>True for a name Keras 3 would resolve to a loss other than its exact MSE/MAE names.</summary>
        public static bool IsOtherKerasLoss(string name)
        {
            LossKind ignored;
            return !LossSpec.TryKerasLossString(name, out ignored) && Others.Contains(name);
        }
    }
}
