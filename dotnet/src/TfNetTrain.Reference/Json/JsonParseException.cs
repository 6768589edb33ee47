using System;

namespace TfNetTrain.Reference
{
    /// <summary>Text that is not valid JSON; carries the position of the first error.</summary>
    public sealed class JsonParseException : Exception
    {
        /// <summary>Creates the exception for an error at a 0-based character offset.</summary>
        public JsonParseException(string message, int offset, int line, int column)
            : base(string.Format("{0} at line {1}, column {2} (offset {3})", message, line, column, offset))
        {
            Offset = offset;
            Line = line;
            Column = column;
        }

        /// <summary>0-based character offset of the error.</summary>
        public int Offset { get; }

        /// <summary>1-based line of the error.</summary>
        public int Line { get; }

        /// <summary>1-based column of the error.</summary>
        public int Column { get; }
    }
}
