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
