using System.Threading;

namespace TfNetTrain
{
    /// <summary>
    /// Bytes of array data copied across the C#/Python boundary, each way, since the last <see cref="Reset"/>
    /// (zero-copy views of C# storage count nothing). For benchmarks and tests that check how often data crosses.
    /// </summary>
    public static class ExchangeCounters
    {
        private static long _toPython, _toCSharp, _copies;

        /// <summary>Bytes copied from C# arrays into Python memory.</summary>
        public static long BytesToPython => Interlocked.Read(ref _toPython);

        /// <summary>Bytes copied from Python memory into C# arrays.</summary>
        public static long BytesToCSharp => Interlocked.Read(ref _toCSharp);

        /// <summary>Number of copies (either way).</summary>
        public static long Copies => Interlocked.Read(ref _copies);

        /// <summary>Starts counting from zero.</summary>
        public static void Reset()
        {
            Interlocked.Exchange(ref _toPython, 0);
            Interlocked.Exchange(ref _toCSharp, 0);
            Interlocked.Exchange(ref _copies, 0);
        }

        internal static void ToPython(long bytes)
        {
            Interlocked.Add(ref _toPython, bytes);
            Interlocked.Increment(ref _copies);
        }

        internal static void ToCSharp(long bytes)
        {
            Interlocked.Add(ref _toCSharp, bytes);
            Interlocked.Increment(ref _copies);
        }
    }
}
