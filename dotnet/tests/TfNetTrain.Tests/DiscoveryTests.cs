using System;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using NUnit.Framework;

namespace TfNetTrain.Tests
{
    /// <summary>Finding Python: the project's venv by default, explicit settings first, clear errors otherwise.</summary>
    [TestFixture]
    public class DiscoveryTests
    {
        private string _temp;

        [SetUp]
        public void MakeTempDir()
        {
            _temp = Path.Combine(Path.GetTempPath(), "tfnet_discovery_" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(_temp);
        }

        [TearDown]
        public void RemoveTempDir()
        {
            Directory.Delete(_temp, true);
        }

        private string FakeVenv(string home, string version)
        {
            string venv = Path.Combine(_temp, "venv");
            Directory.CreateDirectory(Path.Combine(venv, "lib", "python" + version.Substring(0, version.LastIndexOf('.')), "site-packages"));
            File.WriteAllText(Path.Combine(venv, "pyvenv.cfg"), $"home = {home}\ninclude-system-site-packages = false\nversion = {version}\n");
            return venv;
        }

        [Test]
        public void TheRunningRuntimeFoundTheProjectVenvWithoutSettings()
        {
            PythonLocation location = PythonSetup.Runtime.Location;
            // The project folder above this assembly (dotnet/bin for Mono, dotnet/bin/coreclr for .NET).
            string repo = Path.GetDirectoryName(typeof(DiscoveryTests).Assembly.Location);
            while (repo != null && !File.Exists(Path.Combine(repo, "dotnet", "build.sh"))) repo = Path.GetDirectoryName(repo);
            Assert.AreEqual(RealPath(Path.Combine(repo, ".venv")), location.VenvPath, "found by walking up, used by its real path");
            Assert.IsTrue(File.Exists(location.PythonDll), location.PythonDll);
            StringAssert.Contains("libpython3", Path.GetFileName(location.PythonDll));
            Assert.AreEqual("3.11", location.PythonVersion);
            Assert.IsTrue(Directory.Exists(location.SitePackages));
            Assert.IsTrue(location.Searched.Any(s => s.Contains("found")));
            var prefix = PyScript.Run("import sys\nput('venv', np.asarray(sys.prefix == venv))\nput('site', np.asarray(site in sys.path))\n",
                                      "venv", location.VenvPath, "site", location.SitePackages);
            Assert.AreEqual(1, prefix["venv"].GetDouble(0), "sys.prefix is the venv");
            Assert.AreEqual(1, prefix["site"].GetDouble(0), "CPython's site module put the venv's site-packages on sys.path");
        }

        [Test]
        public void StartingTwiceIsRefused()
        {
            Assert.Throws<InvalidOperationException>(() => PythonRuntime.Start());
            Assert.AreSame(PythonSetup.Runtime, PythonRuntime.Current);
        }

        [Test]
        public void ExplicitLibraryWins()
        {
            string real = PythonSetup.Runtime.Location.PythonDll;
            var location = PythonLocation.Find(new PythonRuntimeOptions { PythonDll = real, UseEnvironment = false });
            Assert.AreEqual(real, location.PythonDll);
            StringAssert.StartsWith("libpython (PythonRuntimeOptions.PythonDll)", location.Searched.Last());
        }

        [Test]
        public void MissingExplicitPathsSayWhichSettingIsWrong()
        {
            var venv = Assert.Throws<TfNetTrainStartupException>(() => PythonLocation.Find(new PythonRuntimeOptions { VenvPath = _temp }));
            StringAssert.Contains("PythonRuntimeOptions.VenvPath", venv.Message);
            StringAssert.Contains(_temp, venv.Message);
            StringAssert.Contains("pyvenv.cfg", venv.Message);

            string missing = Path.Combine(_temp, "libpython3.11.so");
            var dll = Assert.Throws<TfNetTrainStartupException>(() => PythonLocation.Find(new PythonRuntimeOptions { PythonDll = missing }));
            StringAssert.Contains("PythonRuntimeOptions.PythonDll", dll.Message);
            StringAssert.Contains(missing, dll.Message);
        }

        [Test]
        public void EnvironmentVariablesAreHonouredAndNamedInErrors()
        {
            string missing = Path.Combine(_temp, "nowhere", "libpython3.11.so");
            string saved = Environment.GetEnvironmentVariable("TFNET_TRAIN_PYTHON_DLL");
            try
            {
                Environment.SetEnvironmentVariable("TFNET_TRAIN_PYTHON_DLL", missing);
                var e = Assert.Throws<TfNetTrainStartupException>(() => PythonLocation.Find());
                StringAssert.Contains("TFNET_TRAIN_PYTHON_DLL", e.Message);
                StringAssert.Contains(missing, e.Message);
                Assert.DoesNotThrow(() => PythonLocation.Find(new PythonRuntimeOptions { UseEnvironment = false }));
            }
            finally
            {
                Environment.SetEnvironmentVariable("TFNET_TRAIN_PYTHON_DLL", saved);
            }
        }

        [Test]
        public void NoVenvAnywhereListsWhereItLooked()
        {
            string deep = Path.Combine(_temp, "a", "b");
            Directory.CreateDirectory(deep);
            var e = Assert.Throws<TfNetTrainStartupException>(() =>
                PythonLocation.Find(new PythonRuntimeOptions { SearchFrom = new[] { deep }, UseEnvironment = false }));
            StringAssert.Contains("No virtual environment was found", e.Message);
            StringAssert.Contains(Path.Combine(deep, ".venv") + "/pyvenv.cfg -> absent", e.Message);
            StringAssert.Contains(Path.Combine(_temp, ".venv") + "/pyvenv.cfg -> absent", e.Message);
            Assert.IsTrue(e.Searched.Count >= 3);
        }

        [Test]
        public void AVenvWithoutItsLibraryListsTheCandidates()
        {
            string venv = FakeVenv(Path.Combine(_temp, "python-home", "bin"), "3.11.7");
            var e = Assert.Throws<TfNetTrainStartupException>(() =>
                PythonLocation.Find(new PythonRuntimeOptions { VenvPath = venv, UseEnvironment = false }));
            StringAssert.Contains("was found but not its Python shared library", e.Message);
            StringAssert.Contains(Path.Combine(_temp, "python-home", "lib", "libpython3.11.so") + " -> absent", e.Message);
        }

        [Test]
        public void AVenvIsFoundByWalkingUpAndItsHomeGivesTheLibrary()
        {
            string realHome = Path.GetDirectoryName(Path.GetDirectoryName(PythonSetup.Runtime.Location.PythonDll));
            string project = Path.Combine(_temp, "project");
            string venv = Path.Combine(project, ".venv");
            Directory.CreateDirectory(Path.Combine(venv, "lib", "python3.11", "site-packages"));
            File.WriteAllText(Path.Combine(venv, "pyvenv.cfg"), $"home = {Path.Combine(realHome, "bin")}\nversion = 3.11.7\n");
            string deep = Path.Combine(project, "bin", "Debug");
            Directory.CreateDirectory(deep);
            var location = PythonLocation.Find(new PythonRuntimeOptions { SearchFrom = new[] { deep }, UseEnvironment = false });
            Assert.AreEqual(venv, location.VenvPath);
            Assert.AreEqual(Path.Combine(realHome, "lib", "libpython3.11.so"), location.PythonDll);
            Assert.AreEqual(Path.Combine(venv, "lib", "python3.11", "site-packages"), location.SitePackages);
        }

        [DllImport("libc.so.6", SetLastError = true)]
        private static extern int chmod(string path, uint mode);

        [DllImport("libc.so.6", SetLastError = true)]
        private static extern int chown(string path, int owner, int group);

        private string PlantedVenv(string project)
        {
            string realHome = Path.GetDirectoryName(Path.GetDirectoryName(PythonSetup.Runtime.Location.PythonDll));
            string venv = Path.Combine(project, ".venv");
            Directory.CreateDirectory(Path.Combine(venv, "bin"));
            File.WriteAllText(Path.Combine(venv, "pyvenv.cfg"), $"home = {Path.Combine(realHome, "bin")}\nversion = 3.11.7\n");
            return venv;
        }

        [Test]
        public void AVenvWritableByOthersIsRefusedSayingWhy()
        {
            string project = Path.Combine(_temp, "shared");
            string venv = PlantedVenv(project);
            string deep = Path.Combine(project, "work");
            Directory.CreateDirectory(deep);
            Assert.AreEqual(0, chmod(Path.Combine(venv, "pyvenv.cfg"), Convert.ToUInt32("666", 8)));
            var e = Assert.Throws<TfNetTrainStartupException>(() =>
                PythonLocation.Find(new PythonRuntimeOptions { SearchFrom = new[] { deep }, UseEnvironment = false }));
            string refusal = e.Searched.Single(s => s.Contains("refused"));
            StringAssert.Contains(venv, refusal);
            StringAssert.Contains("pyvenv.cfg is writable by group or others (mode 666)", refusal);
            StringAssert.Contains("No virtual environment was found", e.Message);
        }

        [Test]
        public void AVenvOwnedBySomeoneElseIsRefusedSayingWhy()
        {
            string project = Path.Combine(_temp, "shared");
            string venv = PlantedVenv(project);
            Assert.AreEqual(0, chown(venv, 4242, 4242), "chown needs root, as this suite runs");
            var e = Assert.Throws<TfNetTrainStartupException>(() =>
                PythonLocation.Find(new PythonRuntimeOptions { SearchFrom = new[] { project }, UseEnvironment = false }));
            StringAssert.Contains("is owned by uid 4242, not by this user", e.Searched.Single(s => s.Contains("refused")));
        }

        [DllImport("libc.so.6", SetLastError = true)]
        private static extern int symlink(string target, string link);

        [DllImport("libc.so.6", SetLastError = true)]
        private static extern int rename(string from, string to);

        [DllImport("libc.so.6", SetLastError = true)]
        private static extern IntPtr realpath(string path, IntPtr resolved);

        private static string RealPath(string path)
        {
            IntPtr resolved = realpath(path, IntPtr.Zero);
            Assert.AreNotEqual(IntPtr.Zero, resolved, path);
            return Marshal.PtrToStringAnsi(resolved); // the few bytes malloc gave are left to the process
        }

        [Test]
        public void ASymlinkedVenvIsRefusedWhenFoundAndUsedByItsRealPathWhenNamed()
        {
            string real = PlantedVenv(Path.Combine(_temp, "elsewhere"));
            string project = Path.Combine(_temp, "project");
            string link = Path.Combine(project, ".venv");
            Directory.CreateDirectory(Path.Combine(project, "work"));
            Assert.AreEqual(0, symlink(real, link));
            var e = Assert.Throws<TfNetTrainStartupException>(() => PythonLocation.Find(new PythonRuntimeOptions
            {
                SearchFrom = new[] { Path.Combine(project, "work") }, UseEnvironment = false,
            }));
            StringAssert.Contains($"venv {link} -> refused: {link} is a symbolic link", e.Searched.Single(s => s.Contains("refused")));
            StringAssert.Contains("No virtual environment was found", e.Message);
            var named = PythonLocation.Find(new PythonRuntimeOptions { VenvPath = link, UseEnvironment = false });
            Assert.AreEqual(real, named.VenvPath, "a venv named explicitly is the caller's choice, resolved once");
            Assert.AreEqual(Path.Combine(real, "bin", "python"), named.ProgramName);
        }

        [Test]
        public void AVenvUnderAFolderOthersCanWriteIsRefusedUnlessTheFolderIsSticky()
        {
            string shared = Path.Combine(_temp, "shared");
            string venv = PlantedVenv(Path.Combine(shared, "project"));
            var options = new PythonRuntimeOptions { SearchFrom = new[] { Path.Combine(shared, "project") }, UseEnvironment = false };
            Assert.AreEqual(0, chmod(shared, Convert.ToUInt32("777", 8)));
            var e = Assert.Throws<TfNetTrainStartupException>(() => PythonLocation.Find(options));
            StringAssert.Contains($"{shared} is writable by group or others without the sticky bit (mode 777)",
                                  e.Searched.Single(s => s.Contains("refused")));
            Assert.AreEqual(0, chmod(shared, Convert.ToUInt32("1777", 8))); // as /tmp: nobody else may move what is ours
            Assert.AreEqual(venv, PythonLocation.Find(options).VenvPath);
            Assert.AreEqual(0, chmod(shared, Convert.ToUInt32("755", 8)));
            Assert.AreEqual(0, chown(shared, 4242, 4242), "chown needs root, as this suite runs");
            e = Assert.Throws<TfNetTrainStartupException>(() => PythonLocation.Find(options));
            StringAssert.Contains($"{shared} is owned by uid 4242, not by this user", e.Searched.Single(s => s.Contains("refused")));
        }

        [Test]
        public void AVenvReachedThroughALinkedFolderIsUsedByItsRealPathThoughTheLinkChangesAfterTheCheck()
        {
            string realHome = Path.GetDirectoryName(Path.GetDirectoryName(PythonSetup.Runtime.Location.PythonDll));
            string real = Path.Combine(_temp, "real");
            string venv = PlantedVenv(real);
            Directory.CreateDirectory(Path.Combine(real, "work"));
            string other = Path.Combine(_temp, "other");
            Directory.CreateDirectory(Path.Combine(other, ".venv", "bin"));
            Directory.CreateDirectory(Path.Combine(other, "work"));
            File.WriteAllText(Path.Combine(other, ".venv", "pyvenv.cfg"), "home = /nonexistent/bin\nversion = 3.12.1\n");
            string link = Path.Combine(_temp, "link"), swapped = Path.Combine(_temp, "link.new");
            Assert.AreEqual(0, symlink(real, link));
            Assert.AreEqual(0, symlink(other, swapped));
            int swaps = 0;
            try
            {
                // Once the venv passed its check, the folder it was reached through leads elsewhere.
                PythonLocation.Checked = path => { if (swaps++ == 0) Assert.AreEqual(0, rename(swapped, link)); };
                var location = PythonLocation.Find(new PythonRuntimeOptions { SearchFrom = new[] { Path.Combine(link, "work") }, UseEnvironment = false });
                Assert.AreEqual(1, swaps);
                StringAssert.Contains("3.12.1", File.ReadAllText(Path.Combine(link, ".venv", "pyvenv.cfg")), "the link was swapped");
                Assert.AreEqual(venv, location.VenvPath);
                Assert.AreEqual(Path.Combine(venv, "bin", "python"), location.ProgramName);
                Assert.AreEqual("3.11", location.PythonVersion);
                Assert.AreEqual(Path.Combine(realHome, "lib", "libpython3.11.so"), location.PythonDll);
            }
            finally
            {
                PythonLocation.Checked = null;
            }
        }

        [Test]
        public void WhereOwnershipCannotBeCheckedAFoundVenvIsRefusedAndANamedOneStillServes()
        {
            string venv = PlantedVenv(Path.Combine(_temp, "project"));
            PythonLocation.StatFunction saved = PythonLocation.StatPath;
            try
            {
                PythonLocation.StatPath = (string path, bool follow, out uint owner, out uint mode) =>
                    throw new EntryPointNotFoundException("statx"); // as on a libc without statx (musl, macOS)
                var e = Assert.Throws<TfNetTrainStartupException>(() => PythonLocation.Find(new PythonRuntimeOptions
                {
                    SearchFrom = new[] { Path.Combine(_temp, "project") }, UseEnvironment = false,
                }));
                StringAssert.Contains($"{venv} was found by walking up from {Path.Combine(_temp, "project")}", e.Message);
                StringAssert.Contains("cannot be checked here (EntryPointNotFoundException: statx)", e.Message);
                StringAssert.Contains("PythonRuntimeOptions.VenvPath or TFNET_TRAIN_VENV", e.Message);
                Assert.AreEqual(venv, PythonLocation.Find(new PythonRuntimeOptions { VenvPath = venv, UseEnvironment = false }).VenvPath);
            }
            finally
            {
                PythonLocation.StatPath = saved;
            }
        }

        [Test]
        public void TheVenvInterpreterIsAskedWithoutTheCurrentDirectoryOnItsPath()
        {
            string venv = Path.Combine(_temp, "venv");
            Directory.CreateDirectory(Path.Combine(venv, "bin"));
            File.WriteAllText(Path.Combine(venv, "pyvenv.cfg"), "version = 3.11.7\n"); // no home: the interpreter is asked
            Assert.AreEqual(0, symlink(RealPath(PythonSetup.Runtime.Location.ProgramName), Path.Combine(venv, "bin", "python")));
            string folder = Path.Combine(_temp, "cwd");
            Directory.CreateDirectory(folder);
            File.WriteAllText(Path.Combine(folder, "sysconfig.py"), "open('ran-sysconfig', 'w').close()\n");
            string saved = Environment.CurrentDirectory;
            try
            {
                Environment.CurrentDirectory = folder;
                var location = PythonLocation.Find(new PythonRuntimeOptions { VenvPath = venv, UseEnvironment = false });
                Assert.IsFalse(File.Exists(Path.Combine(folder, "ran-sysconfig")), "the folder's sysconfig.py ran");
                Assert.AreEqual(PythonSetup.Runtime.Location.PythonDll, location.PythonDll);
            }
            finally
            {
                Environment.CurrentDirectory = saved;
            }
        }

        [Test]
        public void TheCurrentDirectoryIsSearchedOnlyWhenAsked()
        {
            string project = Path.Combine(_temp, "cwd");
            PlantedVenv(project);
            string saved = Environment.CurrentDirectory;
            try
            {
                Environment.CurrentDirectory = project;
                var plain = PythonLocation.Find(new PythonRuntimeOptions { UseEnvironment = false });
                Assert.IsFalse(plain.Searched.Any(s => s.Contains(project)), string.Join("\n", plain.Searched));
                Assert.AreEqual(PythonSetup.Runtime.Location.VenvPath, plain.VenvPath);
                var fromCwdOnly = PythonLocation.Find(new PythonRuntimeOptions { UseEnvironment = false, SearchFrom = new string[0], SearchCurrentDirectory = true });
                Assert.AreEqual(Path.Combine(project, ".venv"), fromCwdOnly.VenvPath);
            }
            finally
            {
                Environment.CurrentDirectory = saved;
            }
        }

        [Test]
        public void AWrongPythonVersionIsRefused()
        {
            string venv = FakeVenv("/usr/bin", "3.12.1");
            var e = Assert.Throws<TfNetTrainStartupException>(() => PythonLocation.Find(new PythonRuntimeOptions
            {
                VenvPath = venv, PythonDll = PythonSetup.Runtime.Location.PythonDll, UseEnvironment = false,
            }));
            StringAssert.Contains("Python 3.11", e.Message);
            StringAssert.Contains("Python 3.12", e.Message);
        }
    }
}
