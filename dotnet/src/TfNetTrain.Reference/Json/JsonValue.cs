using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;

namespace TfNetTrain.Reference
{
    /// <summary>An immutable JSON value; objects keep their members in document order.</summary>
    public sealed class JsonValue
    {
        /// <summary>The <c>null</c> value.</summary>
        public static readonly JsonValue Null = new JsonValue(JsonKind.Null);

        private readonly bool _boolean;
        private readonly double _number;
        private readonly string _text;
        private readonly List<JsonValue> _items;
        private readonly List<KeyValuePair<string, JsonValue>> _members;
        private readonly Dictionary<string, JsonValue> _index;

        private JsonValue(JsonKind kind)
        {
            Kind = kind;
        }

        private JsonValue(bool value) : this(JsonKind.Boolean)
        {
            _boolean = value;
        }

        private JsonValue(double value, string text) : this(JsonKind.Number)
        {
            _number = value;
            _text = text;
        }

        private JsonValue(string value) : this(JsonKind.String)
        {
            _text = value;
        }

        private JsonValue(List<JsonValue> items) : this(JsonKind.Array)
        {
            _items = items;
        }

        private JsonValue(List<KeyValuePair<string, JsonValue>> members) : this(JsonKind.Object)
        {
            _members = members;
            _index = new Dictionary<string, JsonValue>(StringComparer.Ordinal);
            foreach (var m in members) _index[m.Key] = m.Value;
        }

        /// <summary>The value's kind.</summary>
        public JsonKind Kind { get; }

        /// <summary>A boolean value.</summary>
        public static JsonValue FromBoolean(bool value) { return new JsonValue(value); }

        /// <summary>A number with its source text (used to tell integers from fractions).</summary>
        public static JsonValue FromNumber(double value, string text)
        {
            return new JsonValue(value, text ?? value.ToString("R", CultureInfo.InvariantCulture));
        }

        /// <summary>A string value.</summary>
        public static JsonValue FromString(string value)
        {
            if (value == null) throw new ArgumentNullException(nameof(value));
            return new JsonValue(value);
        }

        /// <summary>An array value.</summary>
        public static JsonValue FromArray(IEnumerable<JsonValue> items)
        {
            return new JsonValue(items.ToList());
        }

        /// <summary>An object value; keys must be distinct.</summary>
        public static JsonValue FromObject(IEnumerable<KeyValuePair<string, JsonValue>> members)
        {
            var list = members.ToList();
            if (list.Select(m => m.Key).Distinct(StringComparer.Ordinal).Count() != list.Count)
                throw new ArgumentException("members: expected distinct keys, got a repeated key", nameof(members));
            return new JsonValue(list);
        }

        /// <summary>The boolean; throws unless <see cref="Kind"/> is Boolean.</summary>
        public bool AsBoolean { get { Require(JsonKind.Boolean); return _boolean; } }

        /// <summary>The number; throws unless <see cref="Kind"/> is Number.</summary>
        public double AsNumber { get { Require(JsonKind.Number); return _number; } }

        /// <summary>The string; throws unless <see cref="Kind"/> is String.</summary>
        public string AsString { get { Require(JsonKind.String); return _text; } }

        /// <summary>The number's text as written in the document.</summary>
        public string NumberText { get { Require(JsonKind.Number); return _text; } }

        /// <summary>True for a number written without fraction or exponent (e.g. <c>8</c>, not <c>8.0</c>).</summary>
        public bool IsInteger
        {
            get { return Kind == JsonKind.Number && _text.IndexOfAny(new[] { '.', 'e', 'E' }) < 0; }
        }

        /// <summary>The items of an array.</summary>
        public IReadOnlyList<JsonValue> Items { get { Require(JsonKind.Array); return _items; } }

        /// <summary>The members of an object, in document order.</summary>
        public IReadOnlyList<KeyValuePair<string, JsonValue>> Members { get { Require(JsonKind.Object); return _members; } }

        /// <summary>True when this object has a member named <paramref name="key"/>.</summary>
        public bool Has(string key)
        {
            Require(JsonKind.Object);
            return _index.ContainsKey(key);
        }

        /// <summary>The member named <paramref name="key"/>, or false when absent.</summary>
        public bool TryGet(string key, out JsonValue value)
        {
            Require(JsonKind.Object);
            return _index.TryGetValue(key, out value);
        }

        /// <summary>A short description for error messages: <c>string "abc"</c>, <c>number 8.5</c>, <c>array of 3 items</c>.</summary>
        public string Describe()
        {
            switch (Kind)
            {
                case JsonKind.Null: return "null";
                case JsonKind.Boolean: return _boolean ? "boolean true" : "boolean false";
                case JsonKind.Number: return "number " + _text;
                case JsonKind.String:
                    string s = _text.Length > 40 ? _text.Substring(0, 40) + "..." : _text;
                    return "string \"" + s + "\"";
                case JsonKind.Array: return "array of " + _items.Count + " items";
                default: return "object with keys [" + string.Join(", ", _members.Select(m => m.Key)) + "]";
            }
        }

        /// <inheritdoc />
        public override string ToString()
        {
            return Describe();
        }

        private void Require(JsonKind kind)
        {
            if (Kind != kind)
                throw new InvalidOperationException(string.Format("expected a JSON {0}, got {1}", kind.ToString().ToLowerInvariant(), Describe()));
        }
    }
}
