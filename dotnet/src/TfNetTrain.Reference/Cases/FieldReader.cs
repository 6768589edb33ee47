using System;
using System.Collections.Generic;
using System.Linq;

namespace TfNetTrain.Reference
{
    /// <summary>Reads the members of one JSON object by schema, naming each field by its path in errors.</summary>
    internal sealed class FieldReader
    {
        private readonly JsonValue _object;
        private readonly string _path;
        private readonly HashSet<string> _read = new HashSet<string>(StringComparer.Ordinal);

        public FieldReader(JsonValue value, string path)
        {
            if (value.Kind != JsonKind.Object)
                throw new CaseFormatException(path.Length == 0 ? "(document)" : path, "an object", value.Describe());
            _object = value;
            _path = path;
        }

        public string PathOf(string key)
        {
            return _path.Length == 0 ? key : _path + "." + key;
        }

        public bool Has(string key)
        {
            return _object.Has(key);
        }

        public JsonValue Required(string key, JsonKind kind, string expected)
        {
            JsonValue value;
            _read.Add(key);
            if (!_object.TryGet(key, out value)) throw new CaseFormatException(PathOf(key), expected, "missing");
            if (value.Kind != kind) throw new CaseFormatException(PathOf(key), expected, value.Describe());
            return value;
        }

        public string RequiredString(string key)
        {
            return Required(key, JsonKind.String, "a string").AsString;
        }

        public string OptionalString(string key, string fallback)
        {
            return _object.Has(key) ? RequiredString(key) : fallback;
        }

        public T RequiredEnum<T>(string key, IEnumerable<string> names, TryParser<T> parse)
        {
            string expected = CaseNames.OneOf(names);
            JsonValue value = Required(key, JsonKind.String, expected);
            T result;
            if (!parse(value.AsString, out result)) throw new CaseFormatException(PathOf(key), expected, value.Describe());
            return result;
        }

        public bool OptionalBool(string key, bool fallback)
        {
            return _object.Has(key) ? Required(key, JsonKind.Boolean, "a boolean").AsBoolean : fallback;
        }

        public int RequiredInt(string key, int minimum)
        {
            return ToInt(Required(key, JsonKind.Number, IntExpectation(minimum)), PathOf(key), minimum);
        }

        public double OptionalNumber(string key, double fallback, double minimum, double maximum, bool minimumExclusive, bool maximumExclusive)
        {
            if (!_object.Has(key)) return fallback;
            string expected = RangeExpectation(minimum, maximum, minimumExclusive, maximumExclusive);
            JsonValue value = Required(key, JsonKind.Number, expected);
            double x = value.AsNumber;
            bool tooLow = minimumExclusive ? x <= minimum : x < minimum;
            bool tooHigh = maximumExclusive ? x >= maximum : x > maximum;
            if (tooLow || tooHigh) throw new CaseFormatException(PathOf(key), expected, value.Describe());
            return x;
        }

        /// <summary>The member's value, or null when it is absent or JSON null.</summary>
        public JsonValue OptionalNullable(string key)
        {
            JsonValue value;
            _read.Add(key);
            if (!_object.TryGet(key, out value) || value.Kind == JsonKind.Null) return null;
            return value;
        }

        /// <summary>A positive number or null (= off); absent also means off.</summary>
        public double? OptionalPositiveOrNull(string key)
        {
            JsonValue value;
            if (!_object.TryGet(key, out value)) return null;
            _read.Add(key);
            if (value.Kind == JsonKind.Null) return null;
            if (value.Kind != JsonKind.Number || !(value.AsNumber > 0))
                throw new CaseFormatException(PathOf(key), "a number > 0 or null", value.Describe());
            return value.AsNumber;
        }

        public void RejectUnknown(IEnumerable<string> allowed)
        {
            var known = new HashSet<string>(allowed, StringComparer.Ordinal);
            foreach (var member in _object.Members)
            {
                if (!known.Contains(member.Key))
                    throw new CaseFormatException(PathOf(member.Key),
                        "no such field (allowed here: " + string.Join(", ", known.OrderBy(k => k, StringComparer.Ordinal)) + ")",
                        member.Value.Describe());
            }
        }

        public static int ToInt(JsonValue value, string path, int minimum)
        {
            string expected = IntExpectation(minimum);
            if (value.Kind != JsonKind.Number || !value.IsInteger || value.AsNumber < minimum || value.AsNumber > int.MaxValue)
                throw new CaseFormatException(path, expected, value.Describe());
            return (int)value.AsNumber;
        }

        private static string IntExpectation(int minimum)
        {
            return "an integer >= " + minimum;
        }

        private static string RangeExpectation(double minimum, double maximum, bool minimumExclusive, bool maximumExclusive)
        {
            string low = double.IsNegativeInfinity(minimum) ? "" : (minimumExclusive ? "> " : ">= ") + Format(minimum);
            string high = double.IsPositiveInfinity(maximum) ? "" : (maximumExclusive ? "< " : "<= ") + Format(maximum);
            if (low.Length > 0 && high.Length > 0) return "a number " + low + " and " + high;
            if (low.Length + high.Length == 0) return "a number";
            return "a number " + low + high;
        }

        private static string Format(double x)
        {
            return x.ToString("R", System.Globalization.CultureInfo.InvariantCulture);
        }

        public delegate bool TryParser<T>(string name, out T value);
    }
}
