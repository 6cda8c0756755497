"""What the scripts that run distgrid-audit and check its output share."""
import subprocess


class Checks:
    """Collects failed checks; finish() prints them (or the success line) and gives the exit status."""

    def __init__(self):
        self.failures = []

    def __call__(self, condition, what):
        if not condition:
            self.failures.append(what)
        return condition

    def finish(self, success):
        for failure in self.failures:
            print(f"FAIL: {failure}")
        if not self.failures:
            print(success)
        return 1 if self.failures else 0


def run(tool, *args):
    return subprocess.run([tool, *args], capture_output=True, text=True)


def regressed_rows(stdout):
    """The rows 'distgrid-audit compare' printed as regressed."""
    return [line for line in stdout.splitlines() if line.startswith("regressed ")]
