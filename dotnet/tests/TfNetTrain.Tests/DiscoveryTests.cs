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
            Assert.AreEqual(Path.Combine(repo, ".venv"), location.VenvPath);
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
