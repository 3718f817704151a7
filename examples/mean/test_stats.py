"""The check that verifies the fix: `python3 -m unittest discover -s examples/mean`."""

import unittest

from stats import mean


class MeanTest(unittest.TestCase):
    def test_mean_of_three_numbers(self) -> None:
        self.assertEqual(mean([2, 4, 6]), 4)

    def test_mean_of_one_number(self) -> None:
        self.assertEqual(mean([5]), 5)


if __name__ == "__main__":
    unittest.main()
