using System;
using System.Collections.Generic;
using System.Linq;
using System.Xml.Linq;

namespace TfNetTrain.Reference
{
    /// <summary>Reads the members of one JSON object (<see cref="CaseJson"/>) by schema, naming each field by its path in errors.</summary>
    internal sealed class FieldReader
    {
        private readonly Dictionary<string, XElement> _members;
        private readonly string _path;
        private readonly HashSet<string> _read = new HashSet<string>(StringComparer.Ordinal);

        public FieldReader(XElement value, string path)
        {
            if (CaseJson.Kind(value) != "object")
                throw new CaseFormatException(path.Length == 0 ? "(document)" : path, "an object", CaseJson.Describe(value));
            _members = value.Elements().ToDictionary(CaseJson.Key, StringComparer.Ordinal);
            _path = path;
        }

        public string PathOf(string key)
        {
            return _path.Length == 0 ? key : _path + "." + key;
        }

        public bool Has(string key)
        {
            return _members.ContainsKey(key);
        }

        public XElement Required(string key, string kind, string expected)
        {
            XElement value;
            _read.Add(key);
            if (!_members.TryGetValue(key, out value)) throw new CaseFormatException(PathOf(key), expected, "missing");
            if (CaseJson.Kind(value) != kind) throw new CaseFormatException(PathOf(key), expected, CaseJson.Describe(value));
            return value;
        }

        public string RequiredString(string key)
        {
            return Required(key, "string", "a string").Value;
        }

        public string OptionalString(string key, string fallback)
        {
            return _members.ContainsKey(key) ? RequiredString(key) : fallback;
        }

        public T RequiredEnum<T>(string key, IEnumerable<string> names, TryParser<T> parse)
        {
            string expected = CaseNames.OneOf(names);
            XElement value = Required(key, "string", expected);
            T result;
            if (!parse(value.Value, out result)) throw new CaseFormatException(PathOf(key), expected, CaseJson.Describe(value));
            return result;
        }

        public bool OptionalBool(string key, bool fallback)
        {
            return _members.ContainsKey(key) ? Required(key, "boolean", "a boolean").Value == "true" : fallback;
        }

        public int RequiredInt(string key, int minimum)
        {
            return ToInt(Required(key, "number", IntExpectation(minimum)), PathOf(key), minimum);
        }

        public double OptionalNumber(string key, double fallback, double minimum, double maximum, bool minimumExclusive, bool maximumExclusive)
        {
            if (!_members.ContainsKey(key)) return fallback;
            string expected = RangeExpectation(minimum, maximum, minimumExclusive, maximumExclusive);
            XElement value = Required(key, "number", expected);
            double x = CaseJson.Number(value);
            bool tooLow = minimumExclusive ? x <= minimum : x < minimum;
            bool tooHigh = maximumExclusive ? x >= maximum : x > maximum;
            if (tooLow || tooHigh) throw new CaseFormatException(PathOf(key), expected, CaseJson.Describe(value));
            return x;
        }

        /// <summary>The member's value, or null when it is absent or JSON null.</summary>
        public XElement OptionalNullable(string key)
        {
            XElement value;
            _read.Add(key);
            if (!_members.TryGetValue(key, out value) || CaseJson.Kind(value) == "null") return null;
            return value;
        }

        /// <summary>A positive number or null (= off); absent also means off.</summary>
        public double? OptionalPositiveOrNull(string key)
        {
            XElement value;
            if (!_members.TryGetValue(key, out value)) return null;
            _read.Add(key);
            if (CaseJson.Kind(value) == "null") return null;
            if (CaseJson.Kind(value) != "number" || !(CaseJson.Number(value) > 0))
                throw new CaseFormatException(PathOf(key), "a number > 0 or null", CaseJson.Describe(value));
            return CaseJson.Number(value);
        }

        public void RejectUnknown(IEnumerable<string> allowed)
        {
            var known = new HashSet<string>(allowed, StringComparer.Ordinal);
            foreach (var member in _members)
            {
                if (!known.Contains(member.Key))
                    throw new CaseFormatException(PathOf(member.Key),
                        "no such field (allowed here: " + string.Join(", ", known.OrderBy(k => k, StringComparer.Ordinal)) + ")",
                        CaseJson.Describe(member.Value));
            }
        }

        public static int ToInt(XElement value, string path, int minimum)
        {
            string expected = IntExpectation(minimum);
            if (CaseJson.Kind(value) != "number" || !CaseJson.IsInteger(value) || CaseJson.Number(value) < minimum ||
                CaseJson.Number(value) > int.MaxValue)
                throw new CaseFormatException(path, expected, CaseJson.Describe(value));
            return (int)CaseJson.Number(value);
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
