"""Developer tools of the project (run from the project's root: `python -m tools.<name>`)."""
