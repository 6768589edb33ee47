# The textbook one_training_step, written in R, against a tfnet_train model; then the engine on the same batches.
#
# Run:  Rscript interop_examples/r/one_training_step.R [--steps 3] [--seed 0]
#
# Part 1 is the step the Keras-for-R books teach: under tf$GradientTape() the model predicts, the per-image sparse
# categorical cross-entropy is averaged over the batch, tape$gradient() gives the gradients and each weight takes
# w$assign_sub(g * learning_rate). It runs for a few batches of the embedded digits (loaded through Python).
# Part 2 gives the engine the same starting weights and the same batches twice: through train_on_batch, and
# through train_step_traced (every stage of the step). The weights must agree with the R step within the project's
# float32 tolerance (tfnet_train.tolerances). Part 3 sends a batch of the wrong shape from R: the Python ValueError
# arrives as an R error, the model is unchanged and the session goes on.

args <- commandArgs(trailingOnly = FALSE)
here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", args, value = TRUE)[1])))
source(file.path(here, "project_python.R"))
root <- normalizePath(file.path(here, "..", ".."))
start_project_python(root)

args <- commandArgs(trailingOnly = TRUE)
steps <- int_option(args, "steps", 3L)
seed <- int_option(args, "seed", 0L, min = 0L)
batch_size <- 32L
learning_rate <- 0.1

tf <- import("tensorflow", convert = FALSE)
keras <- import("keras", convert = FALSE)
tfnet_train <- import("tfnet_train")  # converting: models are R functions, logs R lists
tolerances <- import("tfnet_train.tolerances", convert = FALSE)
digits <- import("tfnet_train.demo", convert = FALSE)$digits_split()
np <- import("numpy", convert = FALSE)
x_train <- py_get_item(digits, 0L)
y_train <- py_get_item(digits, 1L)

layers <- function() {
  list(keras$Input(shape = list(64L)),
       keras$layers$Dense(64L, activation = "relu"),
       keras$layers$Dense(10L, activation = "softmax"))
}

batch <- function(i) {
  rows <- seq.int((i - 1L) * batch_size, length.out = batch_size)
  list(images = x_train$take(rows, axis = 0L), labels = y_train$take(rows, axis = 0L))
}

# The textbook step.
one_training_step <- function(model, images_batch, labels_batch) {
  with(tf$GradientTape() %as% tape, {
    predictions <- model(images_batch, training = TRUE)
    per_sample_losses <- keras$ops$sparse_categorical_crossentropy(labels_batch, predictions)
    average_loss <- keras$ops$mean(per_sample_losses)
  })
  gradients <- tape$gradient(average_loss, model$trainable_weights)
  update_weights(iterate(gradients), model$trainable_weights)
  average_loss
}

update_weights <- function(gradients, weights) {
  stopifnot(length(gradients) == length(weights))
  for (i in seq_along(weights)) {
    # gradients[[i]] * learning_rate; reticulate 1.28 has no R arithmetic on Python objects, so TensorFlow multiplies
    weights[[i]]$assign_sub(tf$multiply(gradients[[i]], learning_rate))
  }
}

engine_model <- function(initial_weights) {
  model <- tfnet_train$Sequential(layers())
  model$set_weights(initial_weights)
  model$compile(optimizer = tfnet_train$optimizers$SGD(learning_rate = learning_rate),
                loss = "sparse_categorical_crossentropy", metrics = list("accuracy"), semantics = "keras")
  model
}

checksum <- function(weights) sum(vapply(weights, function(w) py_num(np$sum(np$abs(w), dtype = "float64")), 0))

max_gap <- function(a, b) {
  gaps <- mapply(function(u, v) py_num(np$max(np$abs(np$subtract(u, v, dtype = "float64")))), a, b)
  max(gaps)
}

all_close <- function(a, b) {
  all(mapply(function(u, v) py_to_r(tolerances$allclose(u, v)), a, b))
}

fmt <- function(x) sprintf("%.9g", x)

# Part 1: the textbook step from R.
invisible(keras$utils$set_random_seed(seed))
model <- tfnet_train$Sequential(layers())
initial_weights <- model$get_weights()
cat(sprintf("python %s, tfnet_train from %s\n", py_to_r(import("sys", convert = FALSE)$executable),
            dirname(tfnet_train$`__file__`)))
cat(sprintf("digits: %d training images of %d pixels; %d steps of %d, learning rate %g, seed %d\n",
            py_to_r(x_train$shape[0]), py_to_r(x_train$shape[1]), steps, batch_size, learning_rate, seed))
cat(sprintf("initial weights checksum (sum of |w|): %s\n", fmt(checksum(initial_weights))))

textbook_losses <- numeric(steps)
for (i in seq_len(steps)) {
  b <- batch(i)
  textbook_losses[i] <- py_num(one_training_step(model, b$images, b$labels))
}
textbook_weights <- model$get_weights()

# Part 2: the same batches through the engine, from the same starting weights.
on_batch <- engine_model(initial_weights)
traced <- engine_model(initial_weights)
for (i in seq_len(steps)) {
  b <- batch(i)
  logs <- on_batch$train_on_batch(b$images, b$labels, return_dict = TRUE)
  trace <- traced$train_step_traced(b$images, b$labels)
  cat(sprintf("step %d: loss textbook %s  train_on_batch %s  train_step_traced %s\n", i,
              fmt(textbook_losses[i]), fmt(logs$loss), fmt(trace$loss)))
}

engines <- list(train_on_batch = on_batch$get_weights(), train_step_traced = traced$get_weights())
same <- TRUE
for (name in names(engines)) {
  close <- all_close(engines[[name]], textbook_weights)
  same <- same && close
  cat(sprintf("weights after %d steps: max |textbook - %s| = %.3e  %s\n", steps, name,
              max_gap(engines[[name]], textbook_weights), if (close) "same" else "DIFFERENT"))
}
cat(sprintf("final weights checksum: textbook %s  train_on_batch %s  train_step_traced %s\n",
            fmt(checksum(textbook_weights)), fmt(checksum(engines$train_on_batch)),
            fmt(checksum(engines$train_step_traced))))

# Part 3: a batch of 63-pixel images from R. The engine refuses it before touching the model.
b <- batch(1L)
wrong <- b$images$take(seq.int(0L, 62L), axis = 1L)
before <- on_batch$get_weights()
message_seen <- tryCatch({
  on_batch$train_on_batch(wrong, b$labels)
  NA_character_
}, error = function(e) conditionMessage(e))
if (is.na(message_seen)) {
  cat("wrong shape from R: no error raised\n")
  same <- FALSE
} else {
  cat(sprintf("wrong shape from R: R error: %s\n", strsplit(message_seen, "\n", fixed = TRUE)[[1]][1]))
}
unchanged <- all_close(on_batch$get_weights(), before) && max_gap(on_batch$get_weights(), before) == 0
cat(sprintf("weights unchanged after the error: %s\n", if (unchanged) "yes" else "NO"))
logs <- on_batch$train_on_batch(b$images, b$labels, return_dict = TRUE)
cat(sprintf("session continues: train_on_batch loss %s accuracy %s\n", fmt(logs$loss), fmt(logs$accuracy)))

same <- same && unchanged
rtol_atol <- py_to_r(tolerances$tolerance_for("float32"))
cat(sprintf("result: %s (rtol=%g, atol=%g)\n", if (same) "same numbers" else "numbers differ",
            rtol_atol[[1]], rtol_atol[[2]]))
finish_python()
quit(status = if (same) 0L else 1L)
