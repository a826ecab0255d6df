"""The tally make check and make series-check keep: a PASS or FAIL line a
check, and "N passed, N failed" at the end."""


class Results:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, name, why=""):
        """Count @ok; print the check's name, and @why it failed."""
        if ok:
            self.passed += 1
            print(f"  PASS {name}", flush=True)
        else:
            self.failed += 1
            print(f"  FAIL {name}{': ' + why if why else ''}", flush=True)
        return ok

    def summary(self):
        return f"{self.passed} passed, {self.failed} failed"
