using System;
using System.Collections.Generic;
using System.IO;
using System.Text;

namespace TfNetTrain.Reference
{
    /// <summary>Reads and writes one array in NumPy's .npy format (versions 1.0, 2.0 and 3.0).</summary>
    public static class Npy
    {
        private static readonly byte[] Magic = { 0x93, (byte)'N', (byte)'U', (byte)'M', (byte)'P', (byte)'Y' };

        /// <summary>Reads one array; <paramref name="source"/> names it in error messages.</summary>
        /// <exception cref="NpyFormatException">Not a .npy stream, or an unsupported dtype (object/pickled, structured, ...).</exception>
        public static NpyArray Read(Stream stream, string source)
        {
            byte[] prefix = ReadExactly(stream, 8, source, "the magic string and version");
            for (int i = 0; i < Magic.Length; i++)
            {
                if (prefix[i] != Magic[i])
                    throw new NpyFormatException(source, "expected the .npy magic string \\x93NUMPY, got other bytes");
            }
            int major = prefix[6];
            int headerLength;
            Encoding headerEncoding;
            if (major == 1)
            {
                byte[] len = ReadExactly(stream, 2, source, "the header length");
                headerLength = len[0] | (len[1] << 8);
                headerEncoding = Encoding.GetEncoding("ISO-8859-1");
            }
            else if (major == 2 || major == 3)
            {
                byte[] len = ReadExactly(stream, 4, source, "the header length");
                headerLength = len[0] | (len[1] << 8) | (len[2] << 16) | (len[3] << 24);
                headerEncoding = major == 3 ? Encoding.UTF8 : Encoding.GetEncoding("ISO-8859-1");
                if (headerLength < 0)
                    throw new NpyFormatException(source, "expected a header length below 2 GiB, got more");
            }
            else
            {
                throw new NpyFormatException(source, string.Format("expected format version 1, 2 or 3, got {0}.{1}", major, prefix[7]));
            }
            string header = headerEncoding.GetString(ReadExactly(stream, headerLength, source, "the header"));
            var fields = NpyHeader.Parse(header, source);
            string dtype;
            bool bigEndian;
            ParseDescr(fields.Descr, source, out dtype, out bigEndian);
            long size = NpyArray.SizeOf(fields.Shape);
            int itemSize = NpyArray.ItemSize(dtype);
            if (size * itemSize > int.MaxValue)
                throw new NpyFormatException(source, "expected an array below 2 GiB, got shape " + NpyArray.FormatShape(fields.Shape));
            byte[] bytes = ReadExactly(stream, (int)(size * itemSize), source, "the array data");
            if (bigEndian != !BitConverter.IsLittleEndian) SwapBytes(bytes, itemSize);
            Array data = Array.CreateInstance(NpyArray.ElementType(dtype), size);
            Buffer.BlockCopy(bytes, 0, data, 0, bytes.Length);
            if (fields.FortranOrder && fields.Shape.Length > 1) data = FortranToC(data, fields.Shape);
            return new NpyArray(fields.Shape, dtype, data);
        }

        /// <summary>Writes one array as little-endian, C-order .npy (version 1.0, or 2.0 for very long headers).</summary>
        public static void Write(Stream stream, NpyArray array)
        {
            string descr;
            switch (array.Dtype)
            {
                case "float32": descr = "<f4"; break;
                case "float64": descr = "<f8"; break;
                case "int32": descr = "<i4"; break;
                default: descr = "<i8"; break;
            }
            string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + NpyArray.FormatShape(array.Shape) + ", }";
            int prefixLength = 10;
            int major = 1;
            int total = prefixLength + dict.Length + 1;
            if (total + 64 > 65535 + prefixLength)
            {
                major = 2;
                prefixLength = 12;
                total = prefixLength + dict.Length + 1;
            }
            int padding = (64 - total % 64) % 64;
            string header = dict + new string(' ', padding) + "\n";
            byte[] headerBytes = Encoding.ASCII.GetBytes(header);
            stream.Write(Magic, 0, Magic.Length);
            stream.WriteByte((byte)major);
            stream.WriteByte(0);
            if (major == 1)
            {
                stream.WriteByte((byte)(headerBytes.Length & 0xff));
                stream.WriteByte((byte)(headerBytes.Length >> 8));
            }
            else
            {
                stream.Write(BitConverter.GetBytes(headerBytes.Length), 0, 4);
            }
            stream.Write(headerBytes, 0, headerBytes.Length);
            int itemSize = NpyArray.ItemSize(array.Dtype);
            var bytes = new byte[array.Size * itemSize];
            Buffer.BlockCopy(array.Data, 0, bytes, 0, bytes.Length);
            if (!BitConverter.IsLittleEndian) SwapBytes(bytes, itemSize);
            stream.Write(bytes, 0, bytes.Length);
        }

        private static void ParseDescr(string descr, string source, out string dtype, out bool bigEndian)
        {
            if (descr.Contains("O"))
                throw new NpyFormatException(source, "expected a numeric dtype, got object dtype '" + descr +
                    "' (pickled Python objects are not supported)");
            if (descr.Length < 2)
                throw new NpyFormatException(source, "expected a dtype such as '<f4', got '" + descr + "'");
            char order = descr[0];
            string code = descr.Substring(1);
            if (order != '<' && order != '>' && order != '=' && order != '|')
            {
                order = '=';
                code = descr;
            }
            bigEndian = order == '>';
            switch (code)
            {
                case "f4": dtype = "float32"; break;
                case "f8": dtype = "float64"; break;
                case "i4": dtype = "int32"; break;
                case "i8": dtype = "int64"; break;
                default:
                    throw new NpyFormatException(source, "expected dtype float32, float64, int32 or int64 ('<f4', '<f8', '<i4', '<i8'), got '" + descr + "'");
            }
        }

        private static Array FortranToC(Array data, int[] shape)
        {
            Array result = Array.CreateInstance(data.GetType().GetElementType(), data.Length);
            int rank = shape.Length;
            var index = new int[rank];
            for (int c = 0; c < data.Length; c++)
            {
                int f = 0;
                int stride = 1;
                for (int axis = 0; axis < rank; axis++)
                {
                    f += index[axis] * stride;
                    stride *= shape[axis];
                }
                result.SetValue(data.GetValue(f), c);
                for (int axis = rank - 1; axis >= 0; axis--)
                {
                    if (++index[axis] < shape[axis]) break;
                    index[axis] = 0;
                }
            }
            return result;
        }

        private static void SwapBytes(byte[] bytes, int itemSize)
        {
            for (int start = 0; start < bytes.Length; start += itemSize) Array.Reverse(bytes, start, itemSize);
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
