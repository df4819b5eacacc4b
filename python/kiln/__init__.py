"""kiln: compile trained models (ONNX, TorchScript, PyTorch modules) into
small, fast .kiln files, calibrate int8 from Python data, and run and
compare the results.

    import kiln
    kiln.convert("resnet18.onnx", "r.kiln", quantize="int8", calib=batches)
    out = kiln.Session("r.kiln").run({"input": x})

Every function runs kiln's own code in this process (the same as the
`kiln` command line, which docs/cli.md describes flag by flag) and raises
kiln.KilnError (or a subclass) with kiln's message on failure. See
docs/python.md.
"""

import os as _os
import sys as _sys

# The TorchScript importer is a plugin (a copy ships in this package) that
# binds to kiln's symbols in the module that opens it, so the extension
# module is loaded RTLD_GLOBAL.
_plugin = _os.path.join(_os.path.dirname(__file__), "kiln-torchscript.so")
if _os.path.exists(_plugin):
    _os.environ.setdefault("KILN_TORCHSCRIPT_PLUGIN", _plugin)
_flags = _sys.getdlopenflags()
_sys.setdlopenflags(_flags | _os.RTLD_GLOBAL)
try:
    from . import _kiln
finally:
    _sys.setdlopenflags(_flags)

from ._kiln import (  # noqa: E402
    GateError,
    InternalError,
    InvalidInputError,
    KilnError,
    Session,
    UnsupportedModelError,
    UsageError,
)
from ._api import calibrate, convert, diff, inspect, merge, verify  # noqa: E402

__version__ = _kiln.__version__

__all__ = [
    "convert", "calibrate", "merge", "diff", "inspect", "verify", "Session",
    "KilnError", "InvalidInputError", "UnsupportedModelError", "UsageError",
    "GateError", "InternalError",
]
