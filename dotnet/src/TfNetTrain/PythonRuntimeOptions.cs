using System.Collections.Generic;
using System.IO;

namespace TfNetTrain
{
    /// <summary>
    /// Where to find Python. Every setting is optional: unset ones fall back to environment variables
    /// (TFNET_TRAIN_VENV, TFNET_TRAIN_PYTHON_DLL, PYTHONNET_PYDLL), then to the project's .venv found by walking up
    /// from the TfNetTrain assembly (and from the current directory when <see cref="SearchCurrentDirectory"/> asks).
    /// </summary>
    public sealed class PythonRuntimeOptions
    {
        /// <summary>Virtual environment directory (the one holding pyvenv.cfg).</summary>
        public string VenvPath { get; set; }

        /// <summary>Path of the Python shared library, e.g. /usr/lib/libpython3.11.so.</summary>
        public string PythonDll { get; set; }

        /// <summary>
        /// Directories to walk up from when looking for .venv/pyvenv.cfg; default: the TfNetTrain assembly's
        /// directory (then the current directory, when <see cref="SearchCurrentDirectory"/> is set).
        /// </summary>
        public IList<string> SearchFrom { get; set; }

        /// <summary>
        /// Also walk up from the current directory (after the assembly's, or <see cref="SearchFrom"/>'s); off
        /// by default, since any folder a program is started in could hold a .venv someone else put there.
        /// TFNET_TRAIN_VENV_SEARCH_CWD=1 does the same. Found venvs are checked for owner and permissions either way.
        /// </summary>
        public bool SearchCurrentDirectory { get; set; }

        /// <summary>When false, environment variables are ignored (only options and the walk up count).</summary>
        public bool UseEnvironment { get; set; } = true;

        /// <summary>Extra directories put at the front of sys.path.</summary>
        public IList<string> ExtraPythonPaths { get; set; }

        /// <summary>
        /// Where Python's <c>sys.stdout</c> goes (print, Keras's progress bar, model summaries printed by Python);
        /// null (the default) is <see cref="System.Console.Out"/> as it is at each write. <see cref="TextWriter.Null"/>
        /// discards it. A writer that throws is dropped silently (never a failed call). The writer is called from the
        /// thread that prints in Python (usually the runtime's worker, with the GIL released): keep it quick, and do
        /// not call TfNetTrain from it. Output that native code writes to the process's file descriptors (TensorFlow's
        /// C++ log) does not pass through it. When Python hosts .NET, the streams change only if this is set.
        /// </summary>
        public TextWriter Output { get; set; }

        /// <summary>Where Python's <c>sys.stderr</c> goes (warnings, logging); null is <see cref="System.Console.Error"/>. As <see cref="Output"/>.</summary>
        public TextWriter ErrorOutput { get; set; }
    }
}
