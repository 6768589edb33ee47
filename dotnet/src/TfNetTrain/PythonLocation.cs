using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Runtime.InteropServices;
using System.Text.RegularExpressions;
using Python.Runtime;

namespace TfNetTrain
{
    /// <summary>
    /// The Python a <see cref="PythonRuntime"/> uses: virtual environment and shared library, with the list of places
    /// looked at. <see cref="Find"/> applies, in order: explicit options, environment variables (TFNET_TRAIN_VENV;
    /// TFNET_TRAIN_PYTHON_DLL, then pythonnet's own choice, <c>Runtime.PythonDLL</c>, from PYTHONNET_PYDLL,
    /// PYTHONNET_VENV or VIRTUAL_ENV), the .venv found by walking up from the assembly (and from the current directory
    /// only when <see cref="PythonRuntimeOptions.SearchCurrentDirectory"/> or TFNET_TRAIN_VENV_SEARCH_CWD=1 asks;
    /// then VIRTUAL_ENV), and for the library the venv's pyvenv.cfg `home`, then the venv interpreter's sysconfig
    /// LIBDIR/LDLIBRARY (Debian's multiarch libpython, which pythonnet does not look for). Starting with the venv's
    /// interpreter as program name makes the venv sys.prefix, so CPython's own site module adds its site-packages.
    /// <para>A venv found by walking up runs its code in this process, so it must be this user's: one that is a
    /// symbolic link, or whose folder, bin folder, pyvenv.cfg or interpreter is owned by another user (root excepted)
    /// or writable by group or others, or that sits under a folder owned by another user or writable by group or
    /// others without the sticky bit, is refused, with the reason in <see cref="Searched"/> (a .venv planted in a
    /// shared folder such as the temporary directory, or swapped there after the check). Each venv is resolved once
    /// to its real path, and that path is the one read, asked and handed to CPython. Where ownership cannot be checked
    /// (no Linux statx: macOS, musl, Windows) a venv found by walking up is refused with
    /// <see cref="TfNetTrainStartupException"/>. Venvs named explicitly (options, TFNET_TRAIN_VENV, VIRTUAL_ENV) are
    /// the caller's choice: resolved the same way, not checked.</para>
    /// </summary>
    public sealed class PythonLocation
    {
        private PythonLocation(string venv, string dll, string programName, string version, IList<string> searched)
        {
            VenvPath = venv;
            PythonDll = dll;
            ProgramName = programName;
            PythonVersion = version;
            Searched = searched;
        }

        /// <summary>The virtual environment directory, or null when running without one.</summary>
        public string VenvPath { get; }

        /// <summary>The Python shared library that is loaded.</summary>
        public string PythonDll { get; }

        /// <summary>The venv's site-packages directory (on sys.path through CPython's site module), or null.</summary>
        public string SitePackages => VenvPath == null || PythonVersion == null
            ? null : Path.Combine(VenvPath, "lib", "python" + PythonVersion, "site-packages");

        /// <summary>The venv's interpreter path, used as the embedded program name (so sys.prefix is the venv).</summary>
        public string ProgramName { get; }

        /// <summary>"3.11"-style version, from pyvenv.cfg or the library name; null when unknown.</summary>
        public string PythonVersion { get; }

        /// <summary>Every candidate looked at, in order, with what was found.</summary>
        public IList<string> Searched { get; }

        /// <summary>One line describing the choice.</summary>
        public override string ToString() => $"Python {PythonVersion ?? "?"} from {PythonDll} (venv {VenvPath ?? "none"})";

        /// <summary>Finds Python; throws <see cref="TfNetTrainStartupException"/> listing the search when it cannot.</summary>
        public static PythonLocation Find(PythonRuntimeOptions options = null)
        {
            options = options ?? new PythonRuntimeOptions();
            var searched = new List<string>();
            string venv = FindVenv(options, searched);
            Dictionary<string, string> cfg = venv == null ? null : ReadPyvenvCfg(Path.Combine(venv, "pyvenv.cfg"));
            string venvVersion = cfg == null ? null : ShortVersion(Get(cfg, "version") ?? Get(cfg, "version_info"));
            string dll = FindDll(options, venv, cfg, venvVersion, searched);
            string dllVersion = VersionFromLibraryName(dll);
            if (venvVersion != null && dllVersion != null && venvVersion != dllVersion)
            {
                throw new TfNetTrainStartupException(
                    $"The Python library {dll} is Python {dllVersion} but the virtual environment {venv} was made " +
                    $"with Python {venvVersion}. Point PythonDll (or TFNET_TRAIN_PYTHON_DLL) at libpython{venvVersion}, " +
                    "or choose a matching venv.", searched);
            }
            string program = venv == null ? null : VenvInterpreter(venv);
            return new PythonLocation(venv, dll, program, venvVersion ?? dllVersion, searched.AsReadOnly());
        }

        private static string FindVenv(PythonRuntimeOptions options, List<string> searched)
        {
            if (!string.IsNullOrEmpty(options.VenvPath))
                return RequireVenv(options.VenvPath, "PythonRuntimeOptions.VenvPath", searched);
            if (options.UseEnvironment)
            {
                string fromEnv = Environment.GetEnvironmentVariable("TFNET_TRAIN_VENV");
                if (!string.IsNullOrEmpty(fromEnv)) return RequireVenv(fromEnv, "TFNET_TRAIN_VENV", searched);
            }
            foreach (string start in StartDirectories(options))
            {
                for (var dir = new DirectoryInfo(start); dir != null; dir = dir.Parent)
                {
                    string venv = Path.Combine(dir.FullName, ".venv"), real;
                    if (Look(searched, $"venv (walk up from {start})", venv + "/pyvenv.cfg") && (real = Trusted(venv, start, searched)) != null)
                        return real;
                    if (File.Exists(Path.Combine(dir.FullName, "pyvenv.cfg")) && (real = Trusted(dir.FullName, start, searched)) != null)
                        return real; // started inside a venv
                }
            }
            string active = options.UseEnvironment ? Environment.GetEnvironmentVariable("VIRTUAL_ENV") : null;
            if (!string.IsNullOrEmpty(active) && Look(searched, "venv (VIRTUAL_ENV)", Path.GetFullPath(active) + "/pyvenv.cfg"))
                return Resolved(Path.GetFullPath(active));
            return null;
        }

        /// <summary>Whether <paramref name="file"/> exists, noted in <paramref name="searched"/> as "what: file -> found".</summary>
        private static bool Look(List<string> searched, string what, string file)
        {
            bool found = File.Exists(file);
            searched.Add($"{what}: {file} -> {(found ? "found" : "absent")}");
            return found;
        }

        private static string RequireVenv(string path, string setting, List<string> searched)
        {
            string full = Path.GetFullPath(path);
            if (!Look(searched, $"venv ({setting})", full + "/pyvenv.cfg"))
            {
                throw new TfNetTrainStartupException(
                    $"{setting} is '{path}', which is not a virtual environment (no pyvenv.cfg in {full}).", searched);
            }
            return Resolved(full);
        }

        /// <summary>The real path of a venv named explicitly (no symbolic links: what is read later is what was named
        /// now), or <paramref name="full"/> itself where the system cannot resolve it.</summary>
        private static string Resolved(string full)
        {
            try
            {
                return RealPath(full) ?? full;
            }
            catch (Exception e) when (e is DllNotFoundException || e is EntryPointNotFoundException)
            {
                return full;
            }
        }

        private static IEnumerable<string> StartDirectories(PythonRuntimeOptions options)
        {
            var starts = new List<string>();
            if (options.SearchFrom != null)
            {
                foreach (string s in options.SearchFrom) if (!string.IsNullOrEmpty(s)) starts.Add(Path.GetFullPath(s));
            }
            else
            {
                try
                {
                    string assemblyDir = Path.GetDirectoryName(typeof(PythonLocation).Assembly.Location);
                    if (!string.IsNullOrEmpty(assemblyDir)) starts.Add(assemblyDir);
                }
                catch (NotSupportedException)
                {
                    // dynamic assemblies have no location
                }
            }
            bool fromCurrent = options.SearchCurrentDirectory ||
                (options.UseEnvironment && Environment.GetEnvironmentVariable("TFNET_TRAIN_VENV_SEARCH_CWD") == "1");
            string current = Environment.CurrentDirectory;
            if (fromCurrent && !starts.Contains(current)) starts.Add(current);
            return starts;
        }

        /// <summary>The real path of a venv found by walking up from <paramref name="start"/>, if it may run in this
        /// process (see <see cref="TrustProblem"/>); null, with the reason in <paramref name="searched"/>, if not.
        /// Throws <see cref="TfNetTrainStartupException"/> where ownership cannot be checked: the venv is not used.</summary>
        private static string Trusted(string venv, string start, List<string> searched)
        {
            string real, problem;
            try
            {
                problem = TrustProblem(venv, out real);
            }
            catch (Exception e) when (e is DllNotFoundException || e is EntryPointNotFoundException || e is PlatformNotSupportedException)
            {
                searched.Add($"venv {venv} -> refused: its owner and permissions cannot be checked here ({e.GetType().Name}: {e.Message})");
                throw new TfNetTrainStartupException(
                    $"The virtual environment {venv} was found by walking up from {start}, but whether it belongs to this " +
                    $"user cannot be checked here ({e.GetType().Name}: {e.Message}; the check reads owners and modes with " +
                    "Linux's statx from libc.so.6), so it is not used. Name it explicitly, with PythonRuntimeOptions.VenvPath " +
                    "or TFNET_TRAIN_VENV, if it is yours.", searched, e);
            }
            if (problem == null)
            {
                Checked?.Invoke(real);
                return real;
            }
            searched.Add($"venv {venv} -> refused: {problem}");
            return null;
        }

        /// <summary>Called with the real path of each venv found by walking up once it passed its check (a test seam:
        /// what is used afterwards must be that path, whatever the folders it was reached through lead to by then).</summary>
        internal static Action<string> Checked;

        /// <summary>Why the venv at <paramref name="venv"/> may not run in this process, or null when it may; its real
        /// path in <paramref name="real"/>. It must not be a symbolic link itself; every folder above its real path,
        /// from the root down, must be owned by this user or root and not writable by group or others unless sticky
        /// (there nobody else may move what is not theirs, as in /tmp); the venv, its bin folder, pyvenv.cfg and
        /// interpreter must be owned by this user or root and writable by nobody else. So nobody else can put another
        /// venv at that path once it is checked. Throws DllNotFoundException, EntryPointNotFoundException or
        /// PlatformNotSupportedException where this cannot be checked.</summary>
        internal static string TrustProblem(string venv, out string real)
        {
            real = null;
            if (Environment.OSVersion.Platform != PlatformID.Unix)
                throw new PlatformNotSupportedException("not a Unix system");
            uint self = geteuid(), owner, mode;
            if (!StatPath(venv, false, out owner, out mode)) return $"{venv} cannot be examined (it vanished)";
            if ((mode & FileTypeMask) == SymbolicLink) return $"{venv} is a symbolic link; a venv found by walking up must be a folder";
            real = RealPath(venv);
            if (real == null) return $"{venv} cannot be resolved to a real path";
            var folders = new List<string>();
            for (string folder = Path.GetDirectoryName(real); !string.IsNullOrEmpty(folder); folder = Path.GetDirectoryName(folder))
                folders.Insert(0, folder);
            foreach (string folder in folders)
            {
                if (!StatPath(folder, false, out owner, out mode)) return $"{folder} cannot be examined";
                if ((mode & FileTypeMask) == SymbolicLink) return $"{folder} became a symbolic link while it was checked";
                if (owner != self && owner != 0)
                    return $"{folder} is owned by uid {owner}, not by this user (uid {self}) or root";
                if ((mode & WritableByOthers) != 0 && (mode & Sticky) == 0)
                    return $"{folder} is writable by group or others without the sticky bit (mode {Convert.ToString(mode & 0xfff, 8)})";
            }
            foreach (string path in new[] { real, Path.Combine(real, "bin"), Path.Combine(real, "pyvenv.cfg"), VenvInterpreter(real) })
            {
                bool follow = path != real; // bin/python is a link to the base interpreter in most venvs
                if (!StatPath(path, follow, out owner, out mode)) continue; // absent: nothing there to run
                if (!follow && (mode & FileTypeMask) == SymbolicLink) return $"{path} became a symbolic link while it was checked";
                if (owner != self && owner != 0)
                    return $"{path} is owned by uid {owner}, not by this user (uid {self}) or root";
                if ((mode & WritableByOthers) != 0)
                    return $"{path} is writable by group or others (mode {Convert.ToString(mode & 0xfff, 8)})";
            }
            return null;
        }

        private const uint FileTypeMask = 0xf000, SymbolicLink = 0xa000, Sticky = 0x200, WritableByOthers = 0x12; // S_IFMT, S_IFLNK, S_ISVTX, S_IWGRP | S_IWOTH

        /// <summary>Reads a path's owner and mode (following a final symbolic link when <c>follow</c>); false when
        /// nothing is there.</summary>
        internal delegate bool StatFunction(string path, bool follow, out uint owner, out uint mode);

        /// <summary>How owners and modes are read: statx from libc.so.6 (a test seam: one that throws
        /// EntryPointNotFoundException stands for a system without statx).</summary>
        internal static StatFunction StatPath = Statx;

        private static bool Statx(string path, bool follow, out uint owner, out uint mode)
        {
            var buffer = new byte[256]; // struct statx: the same layout on every Linux architecture
            const int AtFdCwd = -100, AtSymlinkNoFollow = 0x100, StatxBasicStats = 0x7ff;
            int rc = statx(AtFdCwd, path, follow ? 0 : AtSymlinkNoFollow, StatxBasicStats, buffer);
            owner = BitConverter.ToUInt32(buffer, 20);
            mode = BitConverter.ToUInt16(buffer, 28);
            return rc == 0;
        }

        /// <summary>The path with every symbolic link resolved (libc's realpath), or null when it cannot be.</summary>
        private static string RealPath(string path)
        {
            IntPtr resolved = realpath(path, IntPtr.Zero);
            if (resolved == IntPtr.Zero) return null;
            try
            {
                return Marshal.PtrToStringAnsi(resolved);
            }
            finally
            {
                free(resolved);
            }
        }

        [DllImport("libc.so.6", SetLastError = true)]
        private static extern IntPtr realpath(string path, IntPtr resolved);

        [DllImport("libc.so.6")]
        private static extern void free(IntPtr pointer);

        [DllImport("libc.so.6", SetLastError = true)]
        private static extern int statx(int dirfd, string path, int flags, uint mask, byte[] buffer);

        [DllImport("libc.so.6")]
        private static extern uint geteuid();

        private static string FindDll(PythonRuntimeOptions options, string venv, Dictionary<string, string> cfg,
                                      string version, List<string> searched)
        {
            if (!string.IsNullOrEmpty(options.PythonDll))
                return RequireFile(options.PythonDll, "PythonRuntimeOptions.PythonDll", searched);
            if (options.UseEnvironment)
            {
                string value = Environment.GetEnvironmentVariable("TFNET_TRAIN_PYTHON_DLL");
                if (!string.IsNullOrEmpty(value)) return RequireFile(value, "TFNET_TRAIN_PYTHON_DLL", searched);
                value = Runtime.PythonDLL; // PYTHONNET_PYDLL, or the libpython of PYTHONNET_VENV / VIRTUAL_ENV
                if (!string.IsNullOrEmpty(value))
                    return RequireFile(value, "PYTHONNET_PYDLL (pythonnet's Runtime.PythonDLL)", searched);
            }
            if (cfg != null)
            {
                string home = Get(cfg, "home");
                if (home != null)
                {
                    foreach (string candidate in LibraryCandidates(home, version))
                        if (Look(searched, $"libpython (pyvenv.cfg home = {home})", candidate)) return candidate;
                }
                string fromSysconfig = AskInterpreter(VenvInterpreter(venv), searched);
                if (fromSysconfig != null) return fromSysconfig;
            }
            string hint = venv == null
                ? "No virtual environment was found (run `make install` in the project to create .venv, or set " +
                  "PythonRuntimeOptions.VenvPath / TFNET_TRAIN_VENV)."
                : $"The virtual environment {venv} was found but not its Python shared library.";
            throw new TfNetTrainStartupException(
                "Could not find the Python shared library (libpython). " + hint +
                " Set PythonRuntimeOptions.PythonDll, TFNET_TRAIN_PYTHON_DLL or PYTHONNET_PYDLL to its path.", searched);
        }

        private static string RequireFile(string path, string setting, List<string> searched)
        {
            string full = Path.GetFullPath(path);
            if (!Look(searched, $"libpython ({setting})", full))
                throw new TfNetTrainStartupException($"{setting} is '{path}', but no file exists at {full}.", searched);
            return full;
        }

        private static IEnumerable<string> LibraryCandidates(string home, string version)
        {
            string v = version ?? "3";
            var prefixes = new List<string>();
            string parent = Path.GetDirectoryName(home.TrimEnd('/', '\\'));
            if (!string.IsNullOrEmpty(parent)) prefixes.Add(parent);
            prefixes.Add(home);
            foreach (string prefix in prefixes)
            {
                string lib = Path.Combine(prefix, "lib");
                yield return Path.Combine(lib, $"libpython{v}.so");
                yield return Path.Combine(lib, $"libpython{v}.so.1.0");
                yield return Path.Combine(lib, $"libpython{v}.dylib");
            }
        }

        private static string AskInterpreter(string interpreter, List<string> searched)
        {
            if (!File.Exists(interpreter))
            {
                searched.Add($"libpython (sysconfig of {interpreter}): interpreter absent");
                return null;
            }
            const string code = "import os, sysconfig as s; d = s.get_config_var('LIBDIR') or ''; " +
                "print('\\n'.join(os.path.join(d, n) for n in (s.get_config_var('LDLIBRARY'), " +
                "s.get_config_var('INSTSONAME')) if n))";
            try
            {
                // -P: the current directory stays off sys.path, so a sysconfig.py there is not run.
                var info = new ProcessStartInfo(interpreter, "-P -c \"" + code + "\"")
                {
                    UseShellExecute = false,
                    RedirectStandardOutput = true,
                    RedirectStandardError = true,
                    CreateNoWindow = true,
                };
                using (var process = Process.Start(info))
                {
                    string output = process.StandardOutput.ReadToEnd();
                    process.WaitForExit(10000);
                    foreach (string line in output.Split(new[] { '\n', '\r' }, StringSplitOptions.RemoveEmptyEntries))
                    {
                        if (!line.EndsWith(".a", StringComparison.Ordinal) && Look(searched, $"libpython (sysconfig of {interpreter})", line))
                            return line;
                    }
                }
            }
            catch (Exception e) when (e is System.ComponentModel.Win32Exception || e is InvalidOperationException || e is IOException)
            {
                searched.Add($"libpython (sysconfig of {interpreter}): could not run it ({e.Message})");
            }
            return null;
        }

        private static string VenvInterpreter(string venv)
        {
            foreach (string name in new[] { "python", "python3" })
            {
                string path = Path.Combine(venv, "bin", name);
                if (File.Exists(path)) return path;
            }
            string windows = Path.Combine(venv, "Scripts", "python.exe");
            return File.Exists(windows) ? windows : Path.Combine(venv, "bin", "python");
        }

        internal static Dictionary<string, string> ReadPyvenvCfg(string path)
        {
            var values = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
            foreach (string raw in File.ReadAllLines(path))
            {
                int eq = raw.IndexOf('=');
                if (eq <= 0) continue;
                values[raw.Substring(0, eq).Trim()] = raw.Substring(eq + 1).Trim();
            }
            return values;
        }

        private static string Get(Dictionary<string, string> cfg, string key)
        {
            string value;
            return cfg.TryGetValue(key, out value) && value.Length > 0 ? value : null;
        }

        internal static string ShortVersion(string version)
        {
            if (version == null) return null;
            Match m = Regex.Match(version, @"^(\d+)\.(\d+)");
            return m.Success ? m.Groups[1].Value + "." + m.Groups[2].Value : null;
        }

        internal static string VersionFromLibraryName(string path)
        {
            Match m = Regex.Match(Path.GetFileName(path) ?? "", @"python(\d+)\.?(\d+)", RegexOptions.IgnoreCase);
            return m.Success ? m.Groups[1].Value + "." + m.Groups[2].Value.ToString(CultureInfo.InvariantCulture) : null;
        }
    }
}
