using System;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;

namespace TfNetTrain.Reference
{
    /// <summary>
    /// Reads and writes one array in NumPy's .npy format as this project writes it (<c>numpy.lib.format.write_array</c>
    /// of a C-contiguous array): version 1.0, little-endian <c>&lt;f4</c>, <c>&lt;f8</c>, <c>&lt;i4</c> or <c>&lt;i8</c>,
    /// C order, on a little-endian host. Anything else is refused with an error naming what was found.
    /// </summary>
    public static class Npy
    {
        private static readonly byte[] Magic = { 0x93, (byte)'N', (byte)'U', (byte)'M', (byte)'P', (byte)'Y' };
        private static readonly string[] Descrs = { "<f4", "<f8", "<i4", "<i8" }; // NpyArray.SupportedDtypes, in order
        private const string Supported = "a little-endian, C-order .npy version 1.0 of dtype '<f4', '<f8', '<i4' or '<i8'";

        // The header dict numpy writes: keys in this order, one space after each ':' and ','.
        private static readonly Regex Header = new Regex(
            @"^\{'descr': '(?<descr>[^']*)', 'fortran_order': (?<fortran>True|False), 'shape': \((?<shape>[0-9, ]*)\), \} *\n$");

        /// <summary>Reads one array; <paramref name="source"/> names it in error messages.</summary>
        /// <exception cref="NpyFormatException">Not a .npy stream, or not the layout this project writes.</exception>
        public static NpyArray Read(Stream stream, string source)
        {
            return Read(stream, source, stream.CanSeek ? stream.Length - stream.Position : (long?)null);
        }

        /// <summary>
        /// Reads one array of at most <paramref name="available"/> bytes in all (a zip entry's declared size, a file's
        /// length): a header whose shape needs more is refused before anything is allocated, and the data is read in
        /// chunks, so memory follows the bytes that actually arrive.
        /// </summary>
        public static NpyArray Read(Stream stream, string source, long? available)
        {
            byte[] prefix = ReadExactly(stream, 10, source, "the magic string, version and header length");
            if (!prefix.Take(Magic.Length).SequenceEqual(Magic))
                throw new NpyFormatException(source, "expected the .npy magic string \\x93NUMPY, got other bytes");
            if (prefix[6] != 1 || prefix[7] != 0)
                throw new NpyFormatException(source, string.Format("expected {0}, got format version {1}.{2}", Supported, prefix[6], prefix[7]));
            int headerLength = prefix[8] | (prefix[9] << 8);
            string header = Encoding.ASCII.GetString(ReadExactly(stream, headerLength, source, "the header"));
            Match match = Header.Match(header);
            if (!match.Success)
                throw new NpyFormatException(source, "expected " + Supported + ", got the header " + header.Trim());
            string descr = match.Groups["descr"].Value;
            int kind = Array.IndexOf(Descrs, descr);
            if (kind < 0)
            {
                string what = descr.StartsWith(">", StringComparison.Ordinal) ? "big-endian dtype '" + descr + "'"
                    : descr.Contains("O") ? "object dtype '" + descr + "' (pickled Python objects are not supported)"
                    : "dtype '" + descr + "'";
                throw new NpyFormatException(source, "expected " + Supported + ", got " + what);
            }
            string[] dims = match.Groups["shape"].Value.Split(new[] { ',', ' ' }, StringSplitOptions.RemoveEmptyEntries);
            var shape = new int[dims.Length];
            for (int i = 0; i < dims.Length; i++)
            {
                if (!int.TryParse(dims[i], NumberStyles.None, CultureInfo.InvariantCulture, out shape[i]))
                    throw new NpyFormatException(source, "expected dimensions below 2^31, got the shape (" + match.Groups["shape"].Value + ")");
            }
            if (match.Groups["fortran"].Value == "True")
                throw new NpyFormatException(source, "expected " + Supported + ", got a Fortran-order array of shape " +
                    NpyArray.FormatShape(shape));
            string dtype = NpyArray.SupportedDtypes[kind];
            long size;
            try
            {
                size = NpyArray.SizeOf(shape);
            }
            catch (ArgumentException)
            {
                throw new NpyFormatException(source, "expected an array below 2 GiB, got shape " + NpyArray.FormatShape(shape) +
                    " (more elements than 64 bits count)");
            }
            int itemSize = NpyArray.ItemSize(dtype);
            if (size > int.MaxValue / itemSize)
                throw new NpyFormatException(source, "expected an array below 2 GiB, got shape " + NpyArray.FormatShape(shape));
            long needed = size * itemSize;
            if (available.HasValue && needed > available.Value - 10 - headerLength)
                throw new NpyFormatException(source, string.Format(
                    "expected at most {0} bytes of array data (the file's size), got a header of shape {1} needing {2}",
                    Math.Max(0, available.Value - 10 - headerLength), NpyArray.FormatShape(shape), needed));
            byte[] bytes = ReadChunked(stream, (int)needed, source, "the array data");
            Array data = Array.CreateInstance(NpyArray.ElementType(dtype), size);
            Buffer.BlockCopy(bytes, 0, data, 0, bytes.Length);
            return new NpyArray(shape, dtype, data);
        }

        /// <summary>Writes one array as little-endian, C-order .npy version 1.0 (the layout <see cref="Read"/> takes).</summary>
        public static void Write(Stream stream, NpyArray array)
        {
            string dict = "{'descr': '" + Descrs[Array.IndexOf(NpyArray.SupportedDtypes, array.Dtype)] + "', 'fortran_order': False, 'shape': " +
                NpyArray.FormatShape(array.Shape) + ", }";
            int padding = (64 - (10 + dict.Length + 1) % 64) % 64;
            byte[] header = Encoding.ASCII.GetBytes(dict + new string(' ', padding) + "\n");
            if (header.Length > ushort.MaxValue)
                throw new NpyFormatException("(writing)", "expected a shape whose header fits .npy version 1.0, got rank " + array.Rank);
            stream.Write(Magic, 0, Magic.Length);
            stream.Write(new byte[] { 1, 0, (byte)(header.Length & 0xff), (byte)(header.Length >> 8) }, 0, 4);
            stream.Write(header, 0, header.Length);
            var bytes = new byte[array.Size * NpyArray.ItemSize(array.Dtype)];
            Buffer.BlockCopy(array.Data, 0, bytes, 0, bytes.Length);
            stream.Write(bytes, 0, bytes.Length);
        }

        private const int Chunk = 1 << 20;

        /// <summary>As ReadExactly, growing the buffer as bytes arrive (a short stream never costs
        /// <paramref name="count"/> bytes of memory).</summary>
        private static byte[] ReadChunked(Stream stream, int count, string source, string what)
        {
            if (count <= Chunk) return ReadExactly(stream, count, source, what);
            var buffer = new byte[Chunk];
            int read = 0;
            while (read < count)
            {
                if (read == buffer.Length) Array.Resize(ref buffer, (int)Math.Min(count, 2L * buffer.Length));
                int n = stream.Read(buffer, read, Math.Min(buffer.Length, count) - read);
                if (n <= 0)
                    throw new NpyFormatException(source, string.Format("expected {0} bytes of {1}, got {2} before the end", count, what, read));
                read += n;
            }
            return buffer;
        }

        private static byte[] ReadExactly(Stream stream, int count, string source, string what)
        {
            var buffer = new byte[count];
            int read = 0;
            while (read < count)
            {
                int n = stream.Read(buffer, read, count - read);
                if (n <= 0)
                    throw new NpyFormatException(source, string.Format("expected {0} bytes of {1}, got {2} before the end", count, what, read));
                read += n;
            }
            return buffer;
        }
    }
}
