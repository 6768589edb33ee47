using System.Collections.Generic;

namespace TfNetTrain
{
    /// <summary>
    /// A Keras callback of <c>tfnet_train.callbacks</c> described from C#: <see cref="Model.Fit(NDArray, NDArray, int?, int, int, IList{ICallback}, float, bool, NDArray, int, int?, NDArray, NDArray, int, IDictionary{int, float})"/>
    /// builds the Python callback from the spec (a new one per Fit) and Keras runs it, so it behaves exactly as in
    /// Python. The <see cref="ICallback"/> hooks of a spec are never called and do nothing; a spec holds only data
    /// and may be given to several fits.
    /// </summary>
    public abstract class KerasCallback : KerasObjectSpec, ICallback
    {
        /// <summary>A spec of <c>tfnet_train.callbacks.&lt;className&gt;(**arguments)</c>.</summary>
        protected KerasCallback(string className, IEnumerable<KeyValuePair<string, object>> arguments)
            : base(className, arguments, isName: false)
        {
        }

        /// <summary>The argument <paramref name="name"/> as sent to Python, or <paramref name="fallback"/>.</summary>
        protected T Argument<T>(string name, T fallback)
        {
            object value;
            return Arguments.TryGetValue(name, out value) ? (T)value : fallback;
        }

        Dictionary<string, List<float>> ICallback.history => new Dictionary<string, List<float>>();
        void ICallback.OnTrainBegin(IDictionary<string, float> logs) { }
        void ICallback.OnTrainEnd(IDictionary<string, float> logs) { }
        void ICallback.OnEpochBegin(int epoch, IDictionary<string, float> logs) { }
        void ICallback.OnEpochEnd(int epoch, IDictionary<string, float> logs) { }
        void ICallback.OnTrainBatchBegin(long batch, IDictionary<string, float> logs) { }
        void ICallback.OnTrainBatchEnd(long batch, IDictionary<string, float> logs) { }
    }

    /// <summary>
    /// Keras's <c>EarlyStopping</c>: stops training when <see cref="Monitor"/> has not improved by more than
    /// <see cref="MinDelta"/> for <see cref="Patience"/> epochs; with <see cref="RestoreBestWeights"/> the model ends
    /// with the weights of its best epoch.
    /// </summary>
    public sealed class EarlyStopping : KerasCallback
    {
        /// <summary>Keras's arguments, C#-cased: <c>monitor</c>, <c>min_delta</c>, <c>patience</c>, <c>verbose</c>,
        /// <c>mode</c> ("auto", "min", "max"), <c>baseline</c>, <c>restore_best_weights</c>, <c>start_from_epoch</c>.</summary>
        public EarlyStopping(string monitor = "val_loss", float minDelta = 0f, int patience = 0, int verbose = 0,
                             string mode = "auto", float? baseline = null, bool restoreBestWeights = false,
                             int startFromEpoch = 0)
            : base("EarlyStopping", new Dictionary<string, object>
            {
                { "monitor", CallbackArguments.NotNull(monitor, nameof(monitor)) }, { "min_delta", minDelta },
                { "patience", CallbackArguments.AtLeast(patience, 0, nameof(patience)) }, { "verbose", verbose },
                { "mode", CallbackArguments.Mode(mode, nameof(mode)) }, { "baseline", baseline },
                { "restore_best_weights", restoreBestWeights },
                { "start_from_epoch", CallbackArguments.AtLeast(startFromEpoch, 0, nameof(startFromEpoch)) },
            })
        {
        }

        /// <summary>
        /// TensorFlow.NET's constructor: its first argument (the model and epochs) is not needed — fit gives the callback
        /// its model — and a <paramref name="baseline"/> of 0 means none, as in TensorFlow.NET.
        /// </summary>
        public EarlyStopping(TensorFlowNet.CallbackParams parameters, string monitor = "val_loss", float min_delta = 0f, int patience = 0,
                             int verbose = 1, string mode = "auto", float baseline = 0f, bool restore_best_weights = false,
                             int start_from_epoch = 0)
            : this(monitor, min_delta, patience, verbose, mode, baseline == 0f ? (float?)null : baseline, restore_best_weights, start_from_epoch)
        {
        }

        /// <summary>The quantity watched ("val_loss", "loss", "val_accuracy", ...).</summary>
        public string Monitor => Argument("monitor", "val_loss");

        /// <summary>The smallest change counted as an improvement.</summary>
        public float MinDelta => Argument("min_delta", 0f);

        /// <summary>Epochs without improvement before training stops.</summary>
        public int Patience => Argument("patience", 0);

        /// <summary>"auto", "min" or "max".</summary>
        public string Mode => Argument("mode", "auto");

        /// <summary>Whether the model ends with the weights of its best epoch.</summary>
        public bool RestoreBestWeights => Argument("restore_best_weights", false);
    }

    /// <summary>
    /// Keras's <c>ModelCheckpoint</c>: saves the model (a <c>.keras</c> file) or its weights (<c>.weights.h5</c>,
    /// with <see cref="SaveWeightsOnly"/>) every epoch or every <c>saveFreq</c> steps, optionally only when
    /// <see cref="Monitor"/> improves. <see cref="FilePath"/> may hold Keras placeholders such as "{epoch:02d}".
    /// Files are written whole or not at all.
    /// </summary>
    public sealed class ModelCheckpoint : KerasCallback
    {
        /// <summary>Saves at the end of every epoch (Keras's <c>save_freq="epoch"</c>).</summary>
        public ModelCheckpoint(string filePath, string monitor = "val_loss", int verbose = 0, bool saveBestOnly = false,
                               bool saveWeightsOnly = false, string mode = "auto", float? initialValueThreshold = null)
            : this(filePath, monitor, verbose, saveBestOnly, saveWeightsOnly, mode, "epoch", initialValueThreshold)
        {
        }

        /// <summary>Saves every <paramref name="saveFreq"/> training steps.</summary>
        public ModelCheckpoint(string filePath, int saveFreq, string monitor = "val_loss", int verbose = 0,
                               bool saveBestOnly = false, bool saveWeightsOnly = false, string mode = "auto",
                               float? initialValueThreshold = null)
            : this(filePath, monitor, verbose, saveBestOnly, saveWeightsOnly, mode,
                   CallbackArguments.AtLeast(saveFreq, 1, nameof(saveFreq)), initialValueThreshold)
        {
        }

        private ModelCheckpoint(string filePath, string monitor, int verbose, bool saveBestOnly, bool saveWeightsOnly,
                                string mode, object saveFreq, float? initialValueThreshold)
            : base("ModelCheckpoint", new Dictionary<string, object>
            {
                { "filepath", CallbackArguments.NotNull(filePath, nameof(filePath)) },
                { "monitor", CallbackArguments.NotNull(monitor, nameof(monitor)) }, { "verbose", verbose },
                { "save_best_only", saveBestOnly }, { "save_weights_only", saveWeightsOnly },
                { "mode", CallbackArguments.Mode(mode, nameof(mode)) }, { "save_freq", saveFreq },
                { "initial_value_threshold", initialValueThreshold },
            })
        {
        }

        /// <summary>Where the files go (Keras placeholders allowed).</summary>
        public string FilePath => Argument<string>("filepath", null);

        /// <summary>The quantity compared when <see cref="SaveBestOnly"/>.</summary>
        public string Monitor => Argument("monitor", "val_loss");

        /// <summary>Whether only improvements of <see cref="Monitor"/> are saved.</summary>
        public bool SaveBestOnly => Argument("save_best_only", false);

        /// <summary>Whether only the weights are saved (<c>.weights.h5</c>) instead of the whole model.</summary>
        public bool SaveWeightsOnly => Argument("save_weights_only", false);

        /// <summary>"auto", "min" or "max".</summary>
        public string Mode => Argument("mode", "auto");

        /// <summary>"epoch", or a number of training steps.</summary>
        public object SaveFreq => Argument<object>("save_freq", "epoch");
    }

    /// <summary>
    /// tfnet_train's <c>BackupAndRestore</c> (Keras's, crash-safe): backs the training state up to
    /// <see cref="BackupDir"/> every epoch or every <c>saveFreq</c> steps; a Fit that was interrupted (an exception,
    /// or the process killed) and is run again with the same callback resumes where the last backup left it, and
    /// ends exactly where an uninterrupted Fit ends.
    /// <para>When Fit completes, Keras deletes <see cref="BackupDir"/> itself with everything in it (not just the
    /// backup's files), unless <see cref="DeleteCheckpoint"/> is false: give the callback a folder of its own, never
    /// one that holds other data. The backup's metadata is checked before it is used: it may only name a weights
    /// file this callback writes inside the folder (a folder from someone else cannot point the load elsewhere).</para>
    /// </summary>
    public sealed class BackupAndRestore : KerasCallback
    {
        /// <summary>Backs up at the end of every epoch.</summary>
        public BackupAndRestore(string backupDir, bool deleteCheckpoint = true)
            : this(backupDir, "epoch", deleteCheckpoint)
        {
        }

        /// <summary>Backs up every <paramref name="saveFreq"/> training steps (and resumes mid-epoch).</summary>
        public BackupAndRestore(string backupDir, int saveFreq, bool deleteCheckpoint = true)
            : this(backupDir, (object)CallbackArguments.AtLeast(saveFreq, 1, nameof(saveFreq)), deleteCheckpoint)
        {
        }

        private BackupAndRestore(string backupDir, object saveFreq, bool deleteCheckpoint)
            : base("BackupAndRestore", new Dictionary<string, object>
            {
                { "backup_dir", CallbackArguments.NotNull(backupDir, nameof(backupDir)) }, { "save_freq", saveFreq },
                { "delete_checkpoint", deleteCheckpoint },
            })
        {
        }

        /// <summary>The folder holding the backup.</summary>
        public string BackupDir => Argument<string>("backup_dir", null);

        /// <summary>"epoch", or a number of training steps.</summary>
        public object SaveFreq => Argument<object>("save_freq", "epoch");

        /// <summary>Whether the backup is removed when Fit completes.</summary>
        public bool DeleteCheckpoint => Argument("delete_checkpoint", true);
    }

    /// <summary>
    /// Keras's <c>TensorBoard</c>: writes event files under <see cref="LogDir"/> ("train" and "validation" folders)
    /// that the <c>tensorboard</c> command shows as curves: the loss and metrics of every epoch (and of every
    /// <c>updateFreq</c> batches), the learning rate, weight histograms every <see cref="HistogramFreq"/> epochs,
    /// the model and its training graph, and a profile of the batches <c>profileBatch</c> to
    /// <c>profileBatchEnd</c>. Logging per epoch only keeps Fit's fast whole-epoch path.
    /// </summary>
    public sealed class TensorBoard : KerasCallback
    {
        /// <summary>Logs every epoch (<paramref name="updateFreq"/> "epoch") or every batch ("batch").</summary>
        public TensorBoard(string logDir = "logs", string updateFreq = "epoch", int histogramFreq = 0,
                           bool writeGraph = true, bool writeImages = false, bool writeStepsPerSecond = false,
                           int profileBatch = 0, int profileBatchEnd = 0, int embeddingsFreq = 0)
            : this(logDir, (object)CallbackArguments.UpdateFreq(updateFreq, nameof(updateFreq)), histogramFreq, writeGraph,
                   writeImages, writeStepsPerSecond, profileBatch, profileBatchEnd, embeddingsFreq)
        {
        }

        /// <summary>Logs batch-level values every <paramref name="updateFreq"/> batches (epoch values too when
        /// the batch count is a multiple of it, as in Keras).</summary>
        public TensorBoard(string logDir, int updateFreq, int histogramFreq = 0, bool writeGraph = true,
                           bool writeImages = false, bool writeStepsPerSecond = false, int profileBatch = 0,
                           int profileBatchEnd = 0, int embeddingsFreq = 0)
            : this(logDir, (object)CallbackArguments.AtLeast(updateFreq, 1, nameof(updateFreq)), histogramFreq,
                   writeGraph, writeImages, writeStepsPerSecond, profileBatch, profileBatchEnd, embeddingsFreq)
        {
        }

        private TensorBoard(string logDir, object updateFreq, int histogramFreq, bool writeGraph, bool writeImages,
                            bool writeStepsPerSecond, int profileBatch, int profileBatchEnd, int embeddingsFreq)
            : base("TensorBoard", new Dictionary<string, object>
            {
                { "log_dir", CallbackArguments.NotNull(logDir, nameof(logDir)) },
                { "histogram_freq", CallbackArguments.AtLeast(histogramFreq, 0, nameof(histogramFreq)) },
                { "write_graph", writeGraph }, { "write_images", writeImages },
                { "write_steps_per_second", writeStepsPerSecond }, { "update_freq", updateFreq },
                { "profile_batch", CallbackArguments.ProfileBatch(profileBatch, profileBatchEnd) },
                { "embeddings_freq", CallbackArguments.AtLeast(embeddingsFreq, 0, nameof(embeddingsFreq)) },
            })
        {
        }

        /// <summary>The folder of the event files.</summary>
        public string LogDir => Argument<string>("log_dir", null);

        /// <summary>"epoch", "batch", or a number of batches.</summary>
        public object UpdateFreq => Argument<object>("update_freq", "epoch");

        /// <summary>Epochs between weight histograms (0: none).</summary>
        public int HistogramFreq => Argument("histogram_freq", 0);

        /// <summary>Whether the model and its training graph are written.</summary>
        public bool WriteGraph => Argument("write_graph", true);

        /// <summary>The profiled batches: 0 (none), one batch, or (first, last) as an int[].</summary>
        public object ProfileBatch => Argument<object>("profile_batch", 0);
    }

    internal static class CallbackArguments
    {
        public static string NotNull(string value, string name)
        {
            if (value == null) throw new System.ArgumentNullException(name);
            return value;
        }

        public static int AtLeast(int value, int minimum, string name)
        {
            if (value < minimum) throw new TfNetTrainArgumentException(name, $"must be >= {minimum}; got {value}");
            return value;
        }

        public static string UpdateFreq(string updateFreq, string name)
        {
            if (updateFreq != "epoch" && updateFreq != "batch")
                throw new TfNetTrainArgumentException(name, $"must be \"epoch\", \"batch\" or a number of batches; got {(updateFreq == null ? "null" : "\"" + updateFreq + "\"")}");
            return updateFreq;
        }

        public static object ProfileBatch(int first, int last)
        {
            AtLeast(first, 0, "profileBatch");
            if (last == 0) return first;
            if (first < 1 || last < first)
                throw new TfNetTrainArgumentException("profileBatchEnd", $"must be >= profileBatch ({first}) with profileBatch >= 1, or 0 for one batch; got {last}");
            return new[] { first, last };
        }

        public static string Mode(string mode, string name)
        {
            if (mode != "auto" && mode != "min" && mode != "max")
                throw new TfNetTrainArgumentException(name, $"must be \"auto\", \"min\" or \"max\"; got {(mode == null ? "null" : "\"" + mode + "\"")}");
            return mode;
        }
    }
}
