"""The performance harness of issue #10: `python bench/run.py` (see docs/performance.md).

Not part of the test suite and not shipped: it measures the running server side by side with
its references and asserts nothing.
"""
