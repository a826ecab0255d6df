"""The tally make check and make series-check keep: a PASS, FAIL or SKIP
line a check, and "N passed, N failed, N skipped" at the end."""
import re

# The closing line, as summary() writes it.
SUMMARY = re.compile(r"(\d+) passed, (\d+) failed, (\d+) skipped")


class Results:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0

    def check(self, ok, name, why=""):
        """Count @ok; print the check's name, and @why it failed."""
        if ok:
            self.passed += 1
            print(f"  PASS {name}", flush=True)
        else:
            self.failed += 1
            print(f"  FAIL {name}{': ' + why if why else ''}", flush=True)
        return ok

    def skip(self, name, why):
        """Count a check this run leaves out on purpose, and say @why: it
        is neither a pass nor a failure."""
        self.skipped += 1
        print(f"  SKIP {name}: {why}", flush=True)

    def add(self, other):
        """Count in the tally of @other, a child's summary line matched
        by SUMMARY."""
        self.passed += int(other[1])
        self.failed += int(other[2])
        self.skipped += int(other[3])

    def summary(self):
        return (f"{self.passed} passed, {self.failed} failed, "
                f"{self.skipped} skipped")
