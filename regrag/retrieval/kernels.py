"""Which scoring kernel ranks: ``python`` (standard library) or ``numpy``.

Both give the same bytes (``regrag.scoring.vector_kernel`` says why), so the
choice is a matter of speed only and is recorded nowhere. The default is
``numpy`` when numpy can be imported and ``python`` otherwise; the
``REGRAG_KERNEL`` environment variable (``python``, ``numpy`` or ``auto``) or
``SearchOptions(kernel=...)`` forces one. Under ``auto``, a small ranking in a
process that has not imported numpy yet uses ``python`` (``resolve_kernel``). Asking for ``numpy`` where it is not
installed is an ``InputError``, not a traceback. numpy is imported on the
first search that uses it, never when regrag is imported.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType
from typing import Callable

from regrag.errors import InputError

KERNELS = ("python", "numpy")
ENVIRONMENT_VARIABLE = "REGRAG_KERNEL"
_AUTO = "auto"
# Importing numpy costs about 0.1 s of CPU once per process (measured here, 0.09-0.17 s),
# the time the Python kernel takes for roughly 500,000-1,000,000 postings (0.1-0.2 us each):
# below this count a process that has not imported it yet ranks without it.
NUMPY_IMPORT_POSTINGS = 200_000
_loaded: dict[str, ModuleType | None] = {}


def check_kernel_name(name: str, source: str = "kernel") -> str:
    """``name`` when it is a kernel or ``auto``; ``InputError`` naming ``source`` otherwise."""
    if name not in KERNELS and name != _AUTO:
        raise InputError(f"{source}: unknown kernel {name!r}; choose one of {', '.join(KERNELS)} or {_AUTO}")
    return name


def vector_kernel() -> ModuleType | None:
    """``regrag.scoring.vector_kernel``, or None when numpy cannot be imported (tried once)."""
    if "numpy" not in _loaded:
        try:
            from regrag.scoring import vector_kernel as module
        except ImportError:
            module = None
        _loaded["numpy"] = module
    return _loaded["numpy"]


def resolve_kernel(requested: str | None = None, postings: Callable[[], int] | None = None) -> str:
    """The kernel to rank with: ``requested``, else ``REGRAG_KERNEL``, else
    numpy when importable; ``auto`` means the default. ``postings`` (the
    ranking's posting count, asked only when it matters): while numpy is not
    imported yet, a ranking of fewer than ``NUMPY_IMPORT_POSTINGS`` postings
    is scored by the Python kernel, which is done before the import would be
    (a one-shot ``regrag search`` ranks once); the first larger one imports it."""
    source = "kernel"
    if requested is None:
        requested = os.environ.get(ENVIRONMENT_VARIABLE, "").strip() or _AUTO
        source = ENVIRONMENT_VARIABLE
    check_kernel_name(requested, source)
    if requested == _AUTO:
        if (postings is not None and "numpy" not in _loaded and "numpy" not in sys.modules
                and postings() < NUMPY_IMPORT_POSTINGS):
            return "python"
        return "numpy" if vector_kernel() is not None else "python"
    if requested == "numpy" and vector_kernel() is None:
        raise InputError(f"{source}: the numpy kernel needs numpy, which cannot be imported here; "
                         "install it with pip install 'regrag[fast]' or use the python kernel")
    return requested
