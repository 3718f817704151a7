"""Settings every test shares.

Hypothesis' per-example deadline (200 ms) is a wall-clock threshold: on a busy 2-core CI
machine an example of `tests/review/test_properties.py` took 307-476 ms and failed the run
(issue 25, item 10: no test outcome may depend on the machine's speed). Examples are still
bounded by their count; how fast they run is the benches' business (bench/).
"""

from hypothesis import settings

settings.register_profile("rune", deadline=None)
settings.load_profile("rune")
