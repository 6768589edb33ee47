using System;

namespace TfNetTrain.Reference
{
    /// <summary>A .npy or .npz file that cannot be read or an array that cannot be written in that format.</summary>
    public sealed class NpyFormatException : Exception
    {
        /// <summary>Creates the exception for the named file or entry.</summary>
        /// <param name="source">The file or archive entry concerned.</param>
        /// <param name="message">What is wrong, naming the expected and the actual content.</param>
        public NpyFormatException(string source, string message)
            : base(source + ": " + message)
        {
            Location = source;
        }

        /// <summary>The file or archive entry concerned.</summary>
        public string Location { get; }
    }
}
