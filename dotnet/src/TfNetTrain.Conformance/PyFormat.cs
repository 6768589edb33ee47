using System;
using System.Globalization;

namespace TfNetTrain.Conformance
{
    /// <summary>Number formatting that reads like the Python side's reports (format specs "g" and repr).</summary>
    internal static class PyFormat
    {
        /// <summary>Python's <c>format(value, ".{significant}g")</c>.</summary>
        public static string G(double value, int significant)
        {
            if (double.IsNaN(value)) return "nan";
            if (double.IsInfinity(value)) return value > 0 ? "inf" : "-inf";
            if (significant < 1) significant = 1;
            if (value == 0) return (1 / value) < 0 ? "-0" : "0";
            // "E" gives the correctly rounded digits and the exponent after rounding: "-1.23450000E+003".
            string e = value.ToString("E" + (significant - 1).ToString(CultureInfo.InvariantCulture), CultureInfo.InvariantCulture);
            bool negative = e[0] == '-';
            if (negative) e = e.Substring(1);
            int ePos = e.IndexOf('E');
            string digits = e.Substring(0, ePos).Replace(".", "");
            int exponent = int.Parse(e.Substring(ePos + 1), NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture);
            string text;
            if (exponent >= -4 && exponent < significant)
            {
                string whole, fraction;
                if (exponent >= 0)
                {
                    whole = digits.Substring(0, exponent + 1);
                    fraction = digits.Substring(exponent + 1);
                }
                else
                {
                    whole = "0";
                    fraction = new string('0', -exponent - 1) + digits;
                }
                fraction = fraction.TrimEnd('0');
                text = fraction.Length == 0 ? whole : whole + "." + fraction;
            }
            else
            {
                string fraction = digits.Substring(1).TrimEnd('0');
                string mantissa = fraction.Length == 0 ? digits.Substring(0, 1) : digits[0] + "." + fraction;
                string exp = Math.Abs(exponent).ToString("00", CultureInfo.InvariantCulture);
                text = mantissa + "e" + (exponent < 0 ? "-" : "+") + exp;
            }
            return negative ? "-" + text : text;
        }

        /// <summary>A double as a JSON number that reads back as the same double ("1.0", "1e-05"-style).</summary>
        public static string Json(double value)
        {
            string text = value.ToString("R", CultureInfo.InvariantCulture);
            if (text.IndexOfAny(new[] { '.', 'E', 'e' }) < 0) text += ".0";
            return text;
        }
    }
}
