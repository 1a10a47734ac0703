"""laguna.process: what an entry point sets up, and the memory figure the
bounded subprocesses of the sandbox tests report."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

from laguna import process

SRC = str(pathlib.Path(__file__).parents[2] / "src")
PARENT_MIB = 200


def test_peak_memory_is_the_subprocess_own_not_its_parents():
    # Linux carries a forking parent's peak into the child's ru_maxrss; the
    # sandbox tests run in a test worker that may have grown large
    ballast = bytearray(PARENT_MIB * 2**20)
    ballast[::4096] = b"\x01" * len(ballast[::4096])
    env = dict(os.environ, PYTHONPATH=SRC)
    done = subprocess.run(
        [sys.executable, "-c", "from laguna import process; print(process.peak_memory_kib())"],
        capture_output=True, text=True, timeout=60, env=env, check=True)
    assert 1_000 < int(done.stdout) < 100 * 1024
    del ballast


def test_peak_memory_counts_the_process_own_growth():
    script = ("from laguna import process\n"
              "before = process.peak_memory_kib()\n"
              "ballast = bytearray(64 * 2**20); ballast[::4096] = b'x' * len(ballast[::4096])\n"
              "print(process.peak_memory_kib() - before)\n")
    env = dict(os.environ, PYTHONPATH=SRC)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, env=env, check=True)
    assert 60 * 1024 <= int(done.stdout) < 80 * 1024
