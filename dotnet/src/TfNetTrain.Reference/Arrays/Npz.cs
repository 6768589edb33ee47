using System;
using System.Collections.Generic;
using System.IO;
using System.IO.Compression;

namespace TfNetTrain.Reference
{
    /// <summary>Reads and writes NumPy .npz archives: a zip of .npy files, one per key.</summary>
    public static class Npz
    {
        /// <summary>Every array in the archive, keyed by entry name without the ".npy" suffix, in archive order.</summary>
        /// <exception cref="NpyFormatException">A damaged archive or an entry that is not a supported .npy array.</exception>
        public static Dictionary<string, NpyArray> Load(string path)
        {
            if (path == null) throw new ArgumentNullException(nameof(path));
            var result = new Dictionary<string, NpyArray>();
            using (var file = File.OpenRead(path))
            {
                ZipArchive zip;
                try
                {
                    zip = new ZipArchive(file, ZipArchiveMode.Read);
                }
                catch (InvalidDataException e)
                {
                    throw new NpyFormatException(path, "expected a zip archive of .npy files, got unreadable data (" + e.Message + ")");
                }
                using (zip)
                {
                    foreach (ZipArchiveEntry entry in zip.Entries)
                    {
                        string key = entry.FullName.EndsWith(".npy", StringComparison.Ordinal)
                            ? entry.FullName.Substring(0, entry.FullName.Length - 4)
                            : entry.FullName;
                        if (result.ContainsKey(key))
                            throw new NpyFormatException(path, "expected each key once, got '" + key + "' twice");
                        using (var stream = entry.Open())
                        using (var buffered = new BufferedStream(stream))
                        {
                            result[key] = Npy.Read(buffered, path + ":" + entry.FullName);
                        }
                    }
                }
            }
            return result;
        }

        /// <summary>
        /// Writes the arrays as an uncompressed .npz (entries "key.npy"), replacing an existing file: written whole
        /// into a temporary file beside it, flushed to disk, then renamed, so a reader never sees half a file.
        /// </summary>
        public static void Save(string path, IEnumerable<KeyValuePair<string, NpyArray>> arrays)
        {
            if (path == null) throw new ArgumentNullException(nameof(path));
            if (arrays == null) throw new ArgumentNullException(nameof(arrays));
            string temp = path + "." + Guid.NewGuid().ToString("N") + ".tmp";
            try
            {
                using (var file = new FileStream(temp, FileMode.CreateNew, FileAccess.ReadWrite))
                {
                    using (var zip = new ZipArchive(file, ZipArchiveMode.Create, true)) WriteEntries(zip, arrays);
                    file.Flush(true);
                }
                if (File.Exists(path)) File.Replace(temp, path, null);
                else File.Move(temp, path);
            }
            finally
            {
                if (File.Exists(temp)) File.Delete(temp);
            }
        }

        private static void WriteEntries(ZipArchive zip, IEnumerable<KeyValuePair<string, NpyArray>> arrays)
        {
            var names = new HashSet<string>();
            foreach (var pair in arrays)
            {
                if (string.IsNullOrEmpty(pair.Key))
                    throw new ArgumentException("arrays: expected non-empty keys, got an empty key", nameof(arrays));
                if (!names.Add(pair.Key))
                    throw new ArgumentException("arrays: expected distinct keys, got '" + pair.Key + "' twice", nameof(arrays));
                if (pair.Value == null)
                    throw new ArgumentException("arrays: expected an array for key '" + pair.Key + "', got null", nameof(arrays));
                ZipArchiveEntry entry = zip.CreateEntry(pair.Key + ".npy", CompressionLevel.NoCompression);
                using (var stream = entry.Open())
                {
                    Npy.Write(stream, pair.Value);
                }
            }
        }
    }
}
