using System.Collections.Generic;
using System.Linq;

namespace TfNetTrain.Conformance
{
    /// <summary>
    /// Where two traces first part. <see cref="Reason"/> is "value" (an element out of tolerance), "shape" (the same
    /// key with different shapes) or "missing_step" (one trace has fewer steps; <see cref="Stage"/> is "steps").
    /// </summary>
    public sealed class Divergence
    {
        /// <summary>Reason: an element outside the tolerance.</summary>
        public const string ValueReason = "value";

        /// <summary>Reason: the same key with different shapes.</summary>
        public const string ShapeReason = "shape";

        /// <summary>Reason: one trace has fewer steps than the other.</summary>
        public const string MissingStepReason = "missing_step";

        internal Divergence(int step, string stage, string key, string reason)
        {
            Step = step;
            Stage = stage;
            Key = key;
            Reason = reason;
            Detail = "";
        }

        /// <summary>0-based step.</summary>
        public int Step { get; }

        /// <summary>The stage of <see cref="Key"/> ("steps" for a missing step).</summary>
        public string Stage { get; }

        /// <summary>The flat trace key, e.g. "gradients/2" (empty for a missing step).</summary>
        public string Key { get; }

        /// <summary>"value", "shape" or "missing_step".</summary>
        public string Reason { get; }

        /// <summary>Flat (C order) index of the first failing element; null unless the reason is "value".</summary>
        public int? Index { get; internal set; }

        /// <summary>The index as a position in the array's shape (empty for a scalar); null unless "value".</summary>
        public IReadOnlyList<int> Position { get; internal set; }

        /// <summary>The value in trace a.</summary>
        public double? A { get; internal set; }

        /// <summary>The value in trace b (the baseline).</summary>
        public double? B { get; internal set; }

        /// <summary>|a - b| (infinite when exactly one of them is NaN).</summary>
        public double? AbsError { get; internal set; }

        /// <summary>atol + rtol * |b|.</summary>
        public double? Allowed { get; internal set; }

        /// <summary>Words for shape and missing-step divergences; empty otherwise.</summary>
        public string Detail { get; internal set; }

        /// <summary>One line: step, stage, variable, index and both values (the Python report's wording).</summary>
        public string Describe(string nameA = "a", string nameB = "b")
        {
            if (Reason == MissingStepReason) return "step " + Step + ": " + Detail;
            if (Reason == ShapeReason) return "step " + Step + ", stage " + Stage + ", " + Key + ": " + Detail;
            string where = Position != null && Position.Count > 0 ? "[" + string.Join(", ", Position.Select(p => p.ToString())) + "]" : "";
            return "step " + Step + ", stage " + Stage + ", " + Key + where + " (flat index " + Index + "): " +
                   nameA + "=" + PyFormat.G(A ?? double.NaN, 9) + " " + nameB + "=" + PyFormat.G(B ?? double.NaN, 9) +
                   " |diff|=" + PyFormat.G(AbsError ?? double.NaN, 3) + " > allowed " + PyFormat.G(Allowed ?? double.NaN, 3);
        }

        /// <inheritdoc />
        public override string ToString()
        {
            return Describe();
        }
    }
}
