"""Which scoring kernel ranks: ``python`` (standard library) or ``numpy``.

Both give the same bytes (``regrag.scoring.vector_kernel`` says why), so the
choice is a matter of speed only and is recorded nowhere. The default is
``numpy`` when numpy can be imported and ``python`` otherwise; the
``REGRAG_KERNEL`` environment variable (``python``, ``numpy`` or ``auto``) or
``SearchOptions(kernel=...)`` forces one. Asking for ``numpy`` where it is not
installed is an ``InputError``, not a traceback. numpy is imported on the
first search that uses it, never when regrag is imported.
"""

from __future__ import annotations

import os
from types import ModuleType

from regrag.errors import InputError

KERNELS = ("python", "numpy")
ENVIRONMENT_VARIABLE = "REGRAG_KERNEL"
_AUTO = "auto"
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


def resolve_kernel(requested: str | None = None) -> str:
    """The kernel to rank with: ``requested``, else ``REGRAG_KERNEL``, else
    numpy when importable; ``auto`` means the default."""
    source = "kernel"
    if requested is None:
        requested = os.environ.get(ENVIRONMENT_VARIABLE, "").strip() or _AUTO
        source = ENVIRONMENT_VARIABLE
    check_kernel_name(requested, source)
    if requested == _AUTO:
        return "numpy" if vector_kernel() is not None else "python"
    if requested == "numpy" and vector_kernel() is None:
        raise InputError(f"{source}: the numpy kernel needs numpy, which cannot be imported here; "
                         "install it with pip install 'regrag[fast]' or use the python kernel")
    return requested
