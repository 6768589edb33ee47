namespace TfNetTrain.TensorFlowNet
{
    public sealed partial class KerasInterface
    {
        /// <summary>keras.callbacks: TensorBoard, EarlyStopping, ModelCheckpoint, BackupAndRestore.</summary>
        public CallbacksApi callbacks { get; } = new CallbacksApi();
    }

    /// <summary>
    /// <c>keras.callbacks</c> with Keras's argument names, as a TensorFlow.NET program writes them. Each returns the
    /// <see cref="KerasCallback"/> spec of <c>TfNetTrain</c> (<see cref="TfNetTrain.TensorBoard"/>, ...), which
    /// <c>model.fit</c> takes in its callbacks list and builds into the Python callback. TensorFlow.NET's
    /// <c>CallbackParams</c> first argument is not taken: fit gives each callback its model.
    /// </summary>
    public sealed class CallbacksApi
    {
        internal CallbacksApi()
        {
        }

        /// <summary>
        /// Keras's <c>TensorBoard(log_dir, histogram_freq, write_graph, write_images, write_steps_per_second,
        /// update_freq, profile_batch, embeddings_freq)</c>. <paramref name="update_freq"/> is "epoch" (null),
        /// "batch" or a number of batches; <paramref name="profile_batch"/> is 0 or null (no profiling), a batch
        /// number, or an int[] { first, last }.
        /// </summary>
        public TfNetTrain.TensorBoard TensorBoard(string log_dir = "logs", int histogram_freq = 0, bool write_graph = true,
                                                  bool write_images = false, bool write_steps_per_second = false,
                                                  object update_freq = null, object profile_batch = null,
                                                  int embeddings_freq = 0)
        {
            int first = 0, last = 0;
            if (profile_batch is int)
            {
                first = (int)profile_batch;
            }
            else if (profile_batch is int[] && ((int[])profile_batch).Length == 2)
            {
                first = ((int[])profile_batch)[0];
                last = ((int[])profile_batch)[1];
            }
            else if (profile_batch != null)
            {
                throw new TfNetTrainArgumentException(nameof(profile_batch), $"must be a batch number or an int[] {{ first, last }}; got {Describe(profile_batch)}");
            }
            if (update_freq is int)
                return new TfNetTrain.TensorBoard(log_dir, (int)update_freq, histogram_freq, write_graph, write_images,
                                                  write_steps_per_second, first, last, embeddings_freq);
            if (update_freq == null || update_freq is string)
                return new TfNetTrain.TensorBoard(log_dir, (string)update_freq ?? "epoch", histogram_freq, write_graph,
                                                  write_images, write_steps_per_second, first, last, embeddings_freq);
            throw new TfNetTrainArgumentException(nameof(update_freq), $"must be \"epoch\", \"batch\" or an int; got {Describe(update_freq)}");
        }

        /// <summary>Keras's <c>EarlyStopping(monitor, min_delta, patience, verbose, mode, baseline,
        /// restore_best_weights, start_from_epoch)</c>.</summary>
        public TfNetTrain.EarlyStopping EarlyStopping(string monitor = "val_loss", float min_delta = 0f, int patience = 0,
                                                      int verbose = 0, string mode = "auto", float? baseline = null,
                                                      bool restore_best_weights = false, int start_from_epoch = 0)
        {
            return new TfNetTrain.EarlyStopping(monitor, min_delta, patience, verbose, mode, baseline,
                                                restore_best_weights, start_from_epoch);
        }

        /// <summary>Keras's <c>ModelCheckpoint(filepath, monitor, verbose, save_best_only, save_weights_only, mode,
        /// save_freq, initial_value_threshold)</c>; <paramref name="save_freq"/> is "epoch" (null) or a number of
        /// steps.</summary>
        public TfNetTrain.ModelCheckpoint ModelCheckpoint(string filepath, string monitor = "val_loss", int verbose = 0,
                                                          bool save_best_only = false, bool save_weights_only = false,
                                                          string mode = "auto", object save_freq = null,
                                                          float? initial_value_threshold = null)
        {
            if (save_freq is int)
                return new TfNetTrain.ModelCheckpoint(filepath, (int)save_freq, monitor, verbose, save_best_only,
                                                      save_weights_only, mode, initial_value_threshold);
            CheckEpoch(save_freq, nameof(save_freq));
            return new TfNetTrain.ModelCheckpoint(filepath, monitor, verbose, save_best_only, save_weights_only, mode,
                                                  initial_value_threshold);
        }

        /// <summary>Keras's <c>BackupAndRestore(backup_dir, save_freq, delete_checkpoint)</c> (crash-safe, resumes
        /// mid-epoch); <paramref name="save_freq"/> is "epoch" (null) or a number of steps.</summary>
        public TfNetTrain.BackupAndRestore BackupAndRestore(string backup_dir, object save_freq = null,
                                                            bool delete_checkpoint = true)
        {
            if (save_freq is int) return new TfNetTrain.BackupAndRestore(backup_dir, (int)save_freq, delete_checkpoint);
            CheckEpoch(save_freq, nameof(save_freq));
            return new TfNetTrain.BackupAndRestore(backup_dir, delete_checkpoint);
        }

        private static void CheckEpoch(object saveFreq, string name)
        {
            if (saveFreq != null && !"epoch".Equals(saveFreq))
                throw new TfNetTrainArgumentException(name, $"must be \"epoch\" or an int; got {Describe(saveFreq)}");
        }

        private static string Describe(object value)
        {
            if (value is string) return "\"" + value + "\"";
            return value.GetType().Name + " " + value;
        }
    }
}
