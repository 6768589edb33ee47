namespace TfNetTrain.Reference
{
    /// <summary>The kind of a JSON value.</summary>
    public enum JsonKind
    {
        /// <summary><c>null</c></summary>
        Null,
        /// <summary><c>true</c> or <c>false</c></summary>
        Boolean,
        /// <summary>A number.</summary>
        Number,
        /// <summary>A string.</summary>
        String,
        /// <summary>An array.</summary>
        Array,
        /// <summary>An object.</summary>
        Object,
    }
}
