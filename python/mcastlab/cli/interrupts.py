"""Ctrl-C while a command runs: the first one stops the work (``KeyboardInterrupt``, which the
long commands turn into "keep what finished, write it, exit 130"); the ones after it are noted
and ignored while the command stops its runs and writes what it kept. Otherwise a second Ctrl-C
cut the writing short, or ended the interpreter while pool threads were still inside the core:
CPython then ends such a thread with ``pthread_exit`` when it takes the GIL back, and the forced
unwind through Rust frames aborted the process with "FATAL: exception not rethrown".

The handler is installed for one command run and the previous one restored after it; nothing
stays behind at module level.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Any, Iterator, List


@contextmanager
def first_stops() -> Iterator[None]:
    """While the block runs, the first SIGINT raises KeyboardInterrupt and later ones are
    ignored. Only on the main thread, and only when Python's own handler is in place (Ctrl-C
    ignored, or handled by a program that embeds the command line, is left alone)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if previous is not signal.default_int_handler:
        yield
        return
    seen: List[int] = []

    def handler(signum: int, frame: Any) -> None:
        seen.append(signum)
        if len(seen) == 1:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
