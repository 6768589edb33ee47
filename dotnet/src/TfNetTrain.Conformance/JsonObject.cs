using System;
using System.Collections;
using System.Collections.Generic;

namespace TfNetTrain.Conformance
{
    /// <summary>A JSON object whose members keep the order they were added in (for <see cref="JsonWriter"/>).</summary>
    public sealed class JsonObject : IEnumerable<KeyValuePair<string, object>>
    {
        private readonly List<KeyValuePair<string, object>> _members = new List<KeyValuePair<string, object>>();

        /// <summary>Adds a member; values are null, bool, string, numbers, <see cref="JsonObject"/> or sequences of these.</summary>
        public void Add(string key, object value)
        {
            if (key == null) throw new ArgumentNullException(nameof(key));
            _members.Add(new KeyValuePair<string, object>(key, value));
        }

        /// <summary>Number of members.</summary>
        public int Count => _members.Count;

        /// <inheritdoc />
        public IEnumerator<KeyValuePair<string, object>> GetEnumerator()
        {
            return _members.GetEnumerator();
        }

        IEnumerator IEnumerable.GetEnumerator()
        {
            return GetEnumerator();
        }
    }
}
