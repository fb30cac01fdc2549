"""Exit statuses of the ``mcastlab`` command. Scripts and CI branch on them, so each is named once
here rather than written as a bare number in every command."""

EXIT_OK = 0
# A check found a problem: a routing that can deadlock, a plan that is not exactly-once or does not
# conform, a run that did not deliver everything.
EXIT_CHECK_FAILED = 1
# A user mistake (bad spec, unknown endpoint, unreadable file): one line `mcastlab: error: ...`.
EXIT_USAGE = 2
# Ctrl-C: the command stops and keeps (prints, writes) what it measured so far.
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A mistake the argument parser found (unknown option, missing or malformed value). The parser
    raises it instead of printing its usage and exiting, so ``main`` reports it like every other
    user mistake: one ``mcastlab: error:`` line and ``EXIT_USAGE``, also when called in-process."""
