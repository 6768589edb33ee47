using System;
using System.Collections.Generic;
using System.Collections.ObjectModel;
using System.IO;
using System.IO.Compression;
using System.Runtime.InteropServices;

namespace TfNetTrain.Reference
{
    /// <summary>Reads and writes NumPy .npz archives: a zip of .npy files, one per key.</summary>
    public static class Npz
    {
        /// <summary>Cap on an archive's entries' declared uncompressed sizes together (bytes).</summary>
        public const long MaxBytes = 2L << 30;

        /// <summary>Cap on an archive's number of entries.</summary>
        public const int MaxEntries = 65536;

        /// <summary>Every array in the archive, keyed by entry name without the ".npy" suffix, in archive order.</summary>
        /// <exception cref="NpyFormatException">A damaged archive or an entry that is not a supported .npy array.</exception>
        public static Dictionary<string, NpyArray> Load(string path)
        {
            if (path == null) throw new ArgumentNullException(nameof(path));
            using (var file = File.OpenRead(path))
            {
                return Load(file, path);
            }
        }

        /// <summary>Every array of the archive read from <paramref name="stream"/> (seekable); <paramref name="path"/>
        /// names it in error messages. Entries' declared sizes are capped (<see cref="MaxBytes"/>, <see cref="MaxEntries"/>)
        /// and each array is bounded by its entry's declared size.</summary>
        /// <exception cref="NpyFormatException">A damaged archive or an entry that is not a supported .npy array.</exception>
        public static Dictionary<string, NpyArray> Load(Stream stream, string path)
        {
            if (stream == null) throw new ArgumentNullException(nameof(stream));
            var result = new Dictionary<string, NpyArray>();
            {
                ZipArchive zip;
                try
                {
                    zip = new ZipArchive(stream, ZipArchiveMode.Read, true);
                }
                catch (Exception e) when (e is InvalidDataException || e is ArgumentException || e is IOException || e is NotSupportedException)
                {
                    throw new NpyFormatException(path, "expected a zip archive of .npy files, got unreadable data (" + e.Message + ")");
                }
                using (zip)
                {
                    ReadOnlyCollection<ZipArchiveEntry> entries;
                    try
                    {
                        entries = zip.Entries; // read on first use: a damaged central directory fails here
                    }
                    catch (Exception e) when (e is InvalidDataException || e is IOException || e is ArgumentException || e is NotSupportedException)
                    {
                        throw new NpyFormatException(path, "expected a zip archive of .npy files, got a damaged directory (" + e.Message + ")");
                    }
                    if (entries.Count > MaxEntries)
                        throw new NpyFormatException(path, "expected at most " + MaxEntries + " entries, got " + entries.Count);
                    long total = 0;
                    foreach (ZipArchiveEntry entry in entries)
                    {
                        total += entry.Length;
                        if (total > MaxBytes)
                            throw new NpyFormatException(path, string.Format(
                                "expected at most {0} bytes uncompressed in all, got more at entry '{1}'", MaxBytes, entry.FullName));
                    }
                    foreach (ZipArchiveEntry entry in entries)
                    {
                        string key = entry.FullName.EndsWith(".npy", StringComparison.Ordinal)
                            ? entry.FullName.Substring(0, entry.FullName.Length - 4)
                            : entry.FullName;
                        if (result.ContainsKey(key))
                            throw new NpyFormatException(path, "expected each key once, got '" + key + "' twice");
                        try
                        {
                            using (var entryStream = entry.Open())
                            using (var buffered = new BufferedStream(entryStream))
                            {
                                result[key] = Npy.Read(buffered, path + ":" + entry.FullName, entry.Length);
                            }
                        }
                        catch (Exception e) when (e is InvalidDataException || e is IOException || e is NotSupportedException || e is ArgumentException)
                        {
                            throw new NpyFormatException(path + ":" + entry.FullName, "expected readable zip data, got " + e.Message);
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
                SyncFolder(Path.GetDirectoryName(Path.GetFullPath(path)));
            }
            finally
            {
                if (File.Exists(temp)) File.Delete(temp);
            }
        }

        /// <summary>Makes the rename durable: fsync on the folder (Unix; elsewhere the file system orders it). A
        /// folder that cannot be synced for lack of support (EINVAL, EROFS) is skipped; any other failure throws.</summary>
        private static void SyncFolder(string folder)
        {
            if (Environment.OSVersion.Platform != PlatformID.Unix) return;
            int fd;
            try
            {
                fd = open(folder, 0); // O_RDONLY
            }
            catch (Exception e) when (e is DllNotFoundException || e is EntryPointNotFoundException)
            {
                return; // no libc.so.6 (musl, macOS): the rename stays as durable as the file system makes it
            }
            if (fd < 0) throw new IOException("could not open the folder " + folder + " to sync it (errno " + Marshal.GetLastWin32Error() + ")");
            try
            {
                if (fsync(fd) != 0)
                {
                    int errno = Marshal.GetLastWin32Error();
                    if (errno != 22 && errno != 30 && errno != 95) // EINVAL, EROFS, EOPNOTSUPP
                        throw new IOException("could not sync the folder " + folder + " (errno " + errno + ")");
                }
            }
            finally
            {
                close(fd);
            }
        }

        [DllImport("libc.so.6", SetLastError = true)]
        private static extern int open(string path, int flags);

        [DllImport("libc.so.6", SetLastError = true)]
        private static extern int fsync(int fd);

        [DllImport("libc.so.6", SetLastError = true)]
        private static extern int close(int fd);

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
