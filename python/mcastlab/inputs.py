"""Checked inputs of the API: files to read, message sizes, unsigned integers and parameter overrides, refused
at the edge with the parameter's name (TypeError for a wrong type, SpecError or SimError for a
value out of range) before they reach the core, where PyO3 would raise an error naming nothing.
``mcastlab.api`` re-exports them."""

from __future__ import annotations

import json
import math
import numbers
import operator
import os
import stat
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Union

from ._core import FabricError, SimError, SpecError, parse_bytes

PathLike = Union[str, "os.PathLike[str]"]

# The core's unsigned integer types: counts are u32, seeds, sizes and budgets u64.
U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1
# InfiniBand's service levels are 0..15 (a 4-bit field), as the core's deadlock check takes them.
SL_MAX = 15


def size_bytes(size: Union[int, str]) -> int:
    """Bytes in ``4096``, ``"4KiB"``, ``"1MiB"``, ``"128B"``, from 0 to 2^64-1. Zero is kept: it
    is a null message (one packet of headers), whose latency bhoedjang98 measures; a negative size
    raises SimError naming ``size``, a non-integral one TypeError."""
    if isinstance(size, str):
        n = parse_bytes(size)
    else:
        n = _as_int(size, "size", "a byte count (int) or a text such as '4KiB'")
    if n < 0:
        raise SimError(f"parameter `size`: `{size}` is negative")
    if n > U64_MAX:
        raise SimError(f"parameter `size`: `{size}` is out of range: a message has 0 to {U64_MAX} bytes")
    return n


def _as_int(value: Any, name: str, expected: str) -> int:
    """An int from anything integral (numpy's too), never from a bool, a float or a text."""
    if isinstance(value, bool):
        raise TypeError(f"{name}: expected {expected}, not bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name}: expected {expected}, not {type(value).__name__}") from None


def whole_number(name: str, value: Any, low: int = 0, high: int = U64_MAX) -> int:
    """``value`` if it is an int in ``low..=high``; otherwise TypeError (not an int) or SpecError
    (out of range) naming the parameter. The core takes seeds, counts and budgets unsigned; without
    this a negative or huge one surfaces as PyO3's OverflowError, which names nothing."""
    value = _as_int(value, name, "an int")
    if not low <= value <= high:
        raise SpecError(f"parameter `{name}`: {value} is out of range: give {low} to {high}")
    return value


def percentage(name: str, value: Any) -> float:
    """A percentage from 0 to 100 as a float, from a number (numpy's too) or a text ``"40%"`` /
    ``"40"``, the way the command line reads ``--group 40%``; SpecError naming ``name`` for a text
    that is no number or a value outside 0..100, TypeError for another type. Whether 0 makes
    sense (it does not for a group) is the core's to say."""
    if isinstance(value, str):
        try:
            x = float(value.strip().rstrip("%"))
        except ValueError:
            raise SpecError(f"{name} `{value}`: expected a percentage, e.g. 40%") from None
    elif isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a percentage (a number such as 40, or a text such as '40%'), "
                        f"not {type(value).__name__}")
    else:
        x = float(value)
    if not (math.isfinite(x) and 0 <= x <= 100):
        raise SpecError(f"{name} `{value}`: a percentage is from 0 to 100")
    return x


def flag(name: str, value: Any) -> bool:
    """``value`` if it is a bool (numpy's too); TypeError naming ``name`` otherwise. A switch that
    lifts a safety check must not be set by any truthy value: ``allow_unchecked="false"`` ran a
    plan that can deadlock."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    raise TypeError(f"{name}: expected True or False, not {type(value).__name__}")


def as_list(name: str, value: Any, expected: str) -> List[Any]:
    """``value`` as a list, if it is a list, tuple or other collection; TypeError naming ``name``
    otherwise. A text is refused rather than taken letter by letter (destinations ``"1-3"`` read
    as the endpoints ``1``, ``-`` and ``3``), and so is a lone value (a lone load failed deep
    inside, on subscripting it). ``expected`` says what to give, e.g. "a list of loads"."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise TypeError(f"{name}: expected {expected}, not {type(value).__name__}")
    return list(value)


def endpoint_list(name: str, value: Any) -> List[Any]:
    """``value`` as a list of endpoint references (see :func:`as_list`)."""
    return as_list(name, value, "a list of endpoints (indices, names or GUIDs), e.g. [1, 2, 3]")


def number_list(name: str, value: Any) -> List[float]:
    """``value`` as a list of floats (see :func:`as_list`); TypeError for an entry that is not a
    real number (a text, a bool)."""
    out = []
    for x in as_list(name, value, "a list of numbers, e.g. [0.1, 0.2]"):
        if isinstance(x, bool) or not isinstance(x, numbers.Real):
            raise TypeError(f"{name}: {x!r} is not a number")
        out.append(float(x))
    return out


def repeated(values: Iterable[Any], key: Callable[[Any], Any] = lambda x: x) -> Optional[str]:
    """What is given twice in ``values`` (by ``key``), as the errors say it (```0.1` is given
    twice``, ```4KiB` and `4096` are the same (4096)``), or None when each is given once. The
    API's :func:`once_each` and the command line's lists share it."""
    seen: Dict[Any, Any] = {}
    for v in values:
        k = key(v)
        if k in seen:
            return f"`{v}` is given twice" if seen[k] == v else f"`{seen[k]}` and `{v}` are the same ({k})"
        seen[k] = v
    return None


def once_each(name: str, values: List[Any], key: Callable[[Any], Any] = lambda x: x) -> None:
    """Raises SimError naming ``name`` when two of ``values`` are the same (by ``key``): a load or
    a size given twice would be run twice, for identical rows."""
    same = repeated(values, key)
    if same:
        raise SimError(f"parameter `{name}`: {same}; give each once")


def json_text(name: str, value: Any) -> str:
    """``value`` as JSON text, with numpy's integers and floats taken as Python's (``json`` refuses
    them: a ``packets=np.int64(2)`` failed at serialization, naming nothing); anything else JSON
    cannot carry is a TypeError naming ``name``."""

    def plain(x: Any) -> Any:
        if isinstance(x, numbers.Integral):
            return int(x)
        if isinstance(x, numbers.Real):
            return float(x)
        if type(x).__name__ == "bool_":
            return bool(x)
        raise TypeError(f"{name}: {x!r} ({type(x).__name__}) is not a JSON value")

    return json.dumps(value, default=plain)


def param_overrides(params: Optional[Mapping[str, Any]]) -> List[str]:
    """``params`` (parameter key -> value) as the core's ``key=value`` override list. A str or a
    list is refused here: iterating it would otherwise fail deep inside with an AttributeError."""
    if params is None:
        return []
    if not isinstance(params, Mapping):
        raise TypeError(
            f"params: expected a dict of parameter -> value, e.g. {{'link.bandwidth': '1Gb/s'}}, not {type(params).__name__}"
        )
    for k in params:
        if not isinstance(k, str):
            raise TypeError(f"params: key {k!r} is not a str (a parameter name such as 'link.bandwidth')")
    return [f"{k}={v}" for k, v in params.items()]


# What a path names when it is not a regular file, for the error that says so: reading a FIFO
# blocks until a writer comes, /dev/zero never ends, and a directory is not "no such file".
_FILE_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def check_input_file(path: PathLike, error: type = FabricError) -> str:
    """``path`` as text, if it names a regular file (symlinks followed); otherwise raises
    ``error`` (a McastlabError subclass) saying what it is instead: missing, a directory, a FIFO,
    a device. Every file mcastlab reads goes through here before it is opened."""
    name = os.fspath(path)
    try:
        mode = os.stat(name).st_mode
    except FileNotFoundError:
        raise error(f"{name}: no such file") from None
    except OSError as e:
        raise error(f"{name}: {e.strerror}") from None
    for test, what in _FILE_KINDS:
        if test(mode):
            raise error(f"{name}: is {what}, not a regular file")
    return name


def read_input_file(path: PathLike, error: type = FabricError) -> str:
    """The text of a regular file (see :func:`check_input_file`); an unreadable or non-UTF-8 file
    raises ``error`` naming it."""
    name = check_input_file(path, error)
    try:
        return Path(name).read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise error(f"{name}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise error(f"{name}: {e.strerror}") from None


def nested_beyond(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists, tuples and dicts more than ``limit`` deep (``[]`` is 1 deep).
    Iterative, so a value 100,000 levels deep (or one that contains itself) is measured without
    exhausting Python's stack; it stops as soon as the limit is passed."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, (list, tuple, dict)):
            if depth > limit:
                return True
            stack.extend((x, depth + 1) for x in (v.values() if isinstance(v, dict) else v))
    return False
