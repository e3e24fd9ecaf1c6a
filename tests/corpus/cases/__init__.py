"""Test inputs, numpy references and tolerances of the corpus kernels, one module each.

``cases/<name>.py`` holds everything about kernel ``<name>`` that does not need
cuTile: its shape and tile constants, ``TOLERANCE``, ``make_inputs(rng)``,
``reference(inputs)`` and ``flatten_args``.  The kernel module
``tests/corpus/<name>.py`` (which imports ``cuda.tile``) re-exports them, so both
modules offer the interface described in ``tests/corpus/README.md``; tests that
only need inputs and references (such as the PTX simulator's) import these and
run without ``cuda-tile`` installed.

Like the kernel modules, these import ``_common`` as a top-level module, so
``tests/corpus`` must be on ``sys.path`` (``_common.load_case_module`` does that).
"""
