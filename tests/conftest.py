"""The test process is an entry point like the `laguna` command: it prepares
the interpreter once (see laguna.process)."""

from laguna import process

process.prepare()
