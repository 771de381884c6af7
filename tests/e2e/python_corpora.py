"""The Python source corpora of the front-end tests: every .py file under a directory, in path order.
In a standard library, the directories of CPython's own test suites (test, tests, idle_test: they hold
deliberately malformed inputs and identifier edge cases) and of third-party packages installed into it
(site-packages, dist-packages) are left out. tests/python_corpora.h applies the same rule in the C++
tests."""
import os
import pathlib

STDLIB_SKIPPED_DIRS = {"test", "tests", "idle_test", "site-packages", "dist-packages"}


def python_files(root, skipped_dirs=frozenset()):
    out = []
    for d, subdirs, files in os.walk(root):
        subdirs[:] = sorted(s for s in subdirs if s not in skipped_dirs)
        out += [pathlib.Path(d) / f for f in sorted(files) if f.endswith(".py")]
    return out


def stdlib_files(root):
    return python_files(root, STDLIB_SKIPPED_DIRS)
