"""A cuTile kernel with an op tileir cannot compile yet, for the location of the error.

``astype`` from i32 to float8_e4m3fn is built inside cuTile (``cuda/tile/_stub.py``), so
the bytecode locates its ``itof`` with ``callsite(_stub.py at int_to_f8.py:LINE)``;
tileir reports the error at LINE, the user's ``astype`` (test_diagnostics_location.py).

Regenerate ``int_to_f8.tileirbc`` with ``python tests/pytest/cutile_diagnostics/int_to_f8.py``
(needs cuTile, no GPU).  The kernel is compiled under its repository-relative file name,
as tests/corpus/generate.py does, so the debug info does not depend on the checkout.
"""

from __future__ import annotations

import cuda.tile as ct


@ct.kernel
def int_to_f8(x, out):
    t = ct.load(x, (0,), (128,))
    ct.store(out, (0,), t.astype(ct.float8_e4m3fn).astype(ct.float32))


def _export() -> None:
    import os
    import sys
    from pathlib import Path
    from typing import Any

    from cuda.tile.compilation import export_kernel

    here = Path(__file__).resolve()
    root = here.parents[3]
    os.chdir(root)  # cuTile reads the source back relative to the working directory
    rel = here.relative_to(root)
    namespace: dict[str, Any] = {"__name__": "int_to_f8"}
    exec(compile(here.read_text(), str(rel), "exec"), namespace)
    sys.path.insert(0, str(root / "tests" / "corpus"))
    from _common import array_constraint, kernel_signature  # pyright: ignore[reportMissingImports]

    i32 = array_constraint(ct.int32, 1, base_addr_divisible_by=16)
    f32 = array_constraint(ct.float32, 1, base_addr_divisible_by=16)
    export_kernel(
        namespace["int_to_f8"],
        [kernel_signature([i32, f32])],
        str(here.with_suffix(".tileirbc")),
        output_format="tileir_bytecode",
        gpu_code="sm_90",
        bytecode_version="13.4",
    )


if __name__ == "__main__":
    _export()
