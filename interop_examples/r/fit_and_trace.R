# fit from R under both semantics profiles, then the conformance table of where they part on one step.
#
# Run:  Rscript interop_examples/r/fit_and_trace.R [--epochs 5] [--seed 0]
#
# A 64-64-10 digits classifier is compiled from R with SGD(learning_rate = 0.1, momentum = 0.9, clipnorm = 0.5),
# once under semantics = "keras" (what Python Keras computes) and once under semantics = "tfnet" (what
# TensorFlow.NET computes; its optimizer never clips), from the same starting weights, and trained with fit and its
# progress bar. Then the first batch is recorded as a conformance case and run under both profiles: the stage table
# (tfnet_train.demo.stage_table) shows the first stage where they part, and the diff names the documented reason.

args <- commandArgs(trailingOnly = FALSE)
here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", args, value = TRUE)[1])))
source(file.path(here, "project_python.R"))
root <- normalizePath(file.path(here, "..", ".."))
start_project_python(root)

args <- commandArgs(trailingOnly = TRUE)
epochs <- int_option(args, "epochs", 5L)
seed <- int_option(args, "seed", 0L, min = 0L)
batch_size <- 32L
profiles <- c("keras", "tfnet")

keras <- import("keras", convert = FALSE)
tfnet_train <- import("tfnet_train")
conformance <- import("tfnet_train.conformance", convert = FALSE)
explain <- import("tfnet_train.conformance.explain", convert = FALSE)
demo <- import("tfnet_train.demo", convert = FALSE)
python_stdout <- import("sys", convert = FALSE)$stdout
digits <- demo$digits_split()
x_train <- py_get_item(digits, 0L)
y_train <- py_get_item(digits, 1L)
test_data <- tuple(py_get_item(digits, 2L), py_get_item(digits, 3L))

layers <- function() {
  list(keras$Input(shape = list(64L)),
       keras$layers$Dense(64L, activation = "relu"),
       keras$layers$Dense(10L, activation = "softmax"))
}

digits_model <- function(initial_weights, semantics) {
  model <- tfnet_train$Sequential(layers())
  model$set_weights(initial_weights)
  model$compile(optimizer = tfnet_train$optimizers$SGD(learning_rate = 0.1, momentum = 0.9, clipnorm = 0.5),
                loss = keras$losses$SparseCategoricalCrossentropy(), metrics = list("accuracy"),
                semantics = semantics)
  model
}

# Python writes the progress bar to its own stdout buffer, R to its own: flush both at every hand-over.
flush_python <- function() invisible(python_stdout$flush())

invisible(keras$utils$set_random_seed(seed))
initial_weights <- tfnet_train$Sequential(layers())$get_weights()
cat(sprintf("digits: %d training and %d test images; %d epochs of batches of %d, seed %d\n",
            py_to_r(x_train$shape[0]), py_to_r(py_get_item(digits, 2L)$shape[0]), epochs, batch_size, seed))

histories <- list()
for (profile in profiles) {
  cat(sprintf("fit under semantics = \"%s\"\n", profile))
  flush(stdout())
  model <- digits_model(initial_weights, profile)
  history <- model$fit(x_train, y_train, batch_size = batch_size, epochs = epochs, verbose = 1L, shuffle = FALSE,
                       validation_data = test_data)
  flush_python()
  histories[[profile]] <- history$history
}

cat(sprintf("%5s  %12s  %12s  %14s  %14s\n", "epoch", "loss keras", "loss tfnet", "val_acc keras", "val_acc tfnet"))
for (epoch in seq_len(epochs)) {
  cat(sprintf("%5d  %12.7f  %12.7f  %14.4f  %14.4f\n", epoch,
              histories$keras$loss[[epoch]], histories$tfnet$loss[[epoch]],
              histories$keras$val_accuracy[[epoch]], histories$tfnet$val_accuracy[[epoch]]))
}

# One step, both profiles, stage by stage.
folder <- tempfile("digits-case-")
dir.create(folder)
case <- conformance$record(digits_model(initial_weights, "keras"), x_train, y_train, steps = 1L,
                           path = file.path(folder, "digits_first_step.json"), batch_size = batch_size)
diff <- explain$diff_profiles(case, "keras", "tfnet", implementation = "engine")
cat(sprintf("conformance: the first batch of %d digits under semantics \"keras\" vs \"tfnet\" (engine)\n",
            batch_size))
cat(py_to_r(demo$stage_table(diff$comparison)), "\n", sep = "")
cat(py_to_r(diff$explain()), "\n", sep = "")
unlink(folder, recursive = TRUE)

parted <- !py_to_r(diff$comparison$passed)
cat(sprintf("result: the profiles %s on one step\n", if (parted) "part" else "agree"))
finish_python()
quit(status = if (parted) 0L else 1L)
