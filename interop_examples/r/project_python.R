# Shared start-up for the R examples: reticulate on the project's Python, the project's own sources first.
#
# Run:  sourced by one_training_step.R and fit_and_trace.R (not run on its own)
#
# Python is $RETICULATE_PYTHON when set, else <repository>/.venv/bin/python (created by `make test`).
# <repository>/src goes first on sys.path, so the checkout the script lives in is what runs.
#
# Debian 12's reticulate (1.28) predates NumPy 2 and cannot convert NumPy arrays to R arrays. The examples
# therefore import Python modules with convert = FALSE: arrays stay NumPy or TensorFlow objects on the Python
# side, R holds references to them and brings back only numbers (py_num) and names. The same code runs on any
# newer reticulate.

library(reticulate)

start_project_python <- function(root) {
  Sys.setenv(TF_CPP_MIN_LOG_LEVEL = "3")
  if (!nzchar(Sys.getenv("RETICULATE_PYTHON"))) {
    python <- file.path(root, ".venv", "bin", "python")
    if (!file.exists(python)) {
      stop("no Python environment at ", python, ": run `make test` (it creates .venv) or set RETICULATE_PYTHON",
           call. = FALSE)
    }
    Sys.setenv(RETICULATE_PYTHON = python)
  }
  sys <- import("sys", convert = FALSE)
  src <- file.path(root, "src")
  if (dir.exists(src)) invisible(sys$path$insert(0L, normalizePath(src)))
  invisible(sys)
}

# A Python number (float, int, 0-d array or tensor) as an R number.
py_num <- function(x) py_to_r(import_builtins(convert = FALSE)$float(x))

# Python exits with TensorFlow loaded run many full garbage-collection passes (seconds); skip them.
finish_python <- function() {
  gc <- import("gc", convert = FALSE)
  gc$disable()
  gc$freeze()
  invisible(NULL)
}

# The value of "--name value" among the script's arguments, as an integer, or the default.
int_option <- function(args, name, default, min = 1L) {
  at <- match(paste0("--", name), args)
  if (is.na(at)) return(default)
  value <- suppressWarnings(as.integer(args[at + 1]))
  if (is.na(value) || value < min) {
    stop("--", name, " must be an integer >= ", min, ", got ", args[at + 1], call. = FALSE)
  }
  value
}
