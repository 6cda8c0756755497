"""Child processes the scripts can stop whole: scripts/mutants.py and scripts/coverage.py."""
import os
import signal
import subprocess


def run(command, **kwargs):
    """subprocess.run with output captured, in a process group of its own that is killed
    whole (make, the compilers, the linker, the audit) when the calling script is interrupted."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, **kwargs)
    try:
        out, err = process.communicate()
    except BaseException:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        process.wait()
        raise
    return subprocess.CompletedProcess(command, process.returncode, out, err)
