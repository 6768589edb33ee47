using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;

namespace TfNetTrain
{
    /// <summary>
    /// A description of a Keras object — class name plus keyword arguments (Python names) — built in Python when a
    /// model is made or compiled. Specs are plain data: making them needs no Python, and one spec may be used many
    /// times.
    /// </summary>
    public abstract class KerasObjectSpec
    {
        private readonly Dictionary<string, object> _arguments;

        /// <summary>A spec for <paramref name="className"/> with keyword arguments (null values are left out).</summary>
        protected KerasObjectSpec(string className, IEnumerable<KeyValuePair<string, object>> arguments, bool isName)
        {
            if (string.IsNullOrEmpty(className))
                throw new TfNetTrainArgumentException("className", "must be a non-empty class name");
            ClassName = className;
            IsName = isName;
            _arguments = new Dictionary<string, object>();
            if (arguments == null) return;
            foreach (var pair in arguments)
            {
                if (pair.Value != null) _arguments[pair.Key] = pair.Value;
            }
        }

        /// <summary>The Python class name, e.g. "Dense" (or the string identifier when <see cref="IsName"/>).</summary>
        public string ClassName { get; }

        /// <summary>The keyword arguments, by Python name.</summary>
        public IReadOnlyDictionary<string, object> Arguments => _arguments;

        /// <summary>True for a bare string identifier ("sgd", "mse") passed to Keras as it is.</summary>
        public bool IsName { get; }

        /// <summary>"Dense(units=8, activation='relu')".</summary>
        public override string ToString()
        {
            if (IsName) return "'" + ClassName + "'";
            return ClassName + "(" + string.Join(", ", _arguments.Select(p => p.Key + "=" + Format(p.Value))) + ")";
        }

        internal Dictionary<string, object> CopyArguments() => new Dictionary<string, object>(_arguments);

        private static string Format(object value)
        {
            if (value is string) return "'" + value + "'";
            if (value is bool) return (bool)value ? "True" : "False";
            if (value is float) return ((float)value).ToString("R", CultureInfo.InvariantCulture);
            if (value is double) return ((double)value).ToString("R", CultureInfo.InvariantCulture);
            var ints = value as int[];
            if (ints != null) return "(" + string.Join(", ", ints) + (ints.Length == 1 ? ",)" : ")");
            var formattable = value as IFormattable;
            if (formattable != null) return formattable.ToString(null, CultureInfo.InvariantCulture);
            return Convert.ToString(value, CultureInfo.InvariantCulture);
        }
    }
}
