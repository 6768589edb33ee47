using System;
using System.Globalization;

namespace TfNetTrain.Conformance
{
    /// <summary>How close two values must be: <c>|a - b| &lt;= Atol + Rtol * |b|</c>, with b the baseline's value.</summary>
    public sealed class Tolerance
    {
        /// <summary>The rule as report.json states it.</summary>
        public const string Rule = "|a - b| <= atol + rtol * |b| (b = baseline)";

        /// <summary>Creates a tolerance; both parts must be finite and non-negative.</summary>
        public Tolerance(double rtol, double atol)
        {
            if (!(rtol >= 0) || double.IsInfinity(rtol))
                throw new ArgumentOutOfRangeException(nameof(rtol), rtol, "rtol must be a finite number >= 0");
            if (!(atol >= 0) || double.IsInfinity(atol))
                throw new ArgumentOutOfRangeException(nameof(atol), atol, "atol must be a finite number >= 0");
            Rtol = rtol;
            Atol = atol;
        }

        /// <summary>Relative part, scaled by the baseline's magnitude.</summary>
        public double Rtol { get; }

        /// <summary>Absolute part.</summary>
        public double Atol { get; }

        /// <inheritdoc />
        public override string ToString()
        {
            return string.Format(CultureInfo.InvariantCulture, "rtol {0:R}, atol {1:R}", Rtol, Atol);
        }
    }
}
