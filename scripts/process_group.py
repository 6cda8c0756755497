"""Child processes the scripts can stop whole: scripts/mutants.py and scripts/coverage.py."""
import os
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor


def run(command, **kwargs):
    """subprocess.run with output captured, in a process group of its own that is killed
    whole (make, the compilers, the linker, the audit) when the calling script is interrupted."""
    return run_together([command], **kwargs)[0][0]


def run_together(commands, **kwargs):
    """run() for several commands at once, side by side: [(CompletedProcess, seconds until it ended)], in the
    order given. When the calling script is interrupted, every one of them is killed whole."""
    processes = []
    pool = ThreadPoolExecutor(max_workers=max(1, len(commands)))
    start = time.monotonic()

    def finish(process):
        out, err = process.communicate()
        return out, err, time.monotonic() - start

    try:
        for command in commands:
            processes.append(subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                              start_new_session=True, **kwargs))
        # One thread per process reads its pipes, so no process waits on a full pipe while another is read.
        ended = [future.result() for future in [pool.submit(finish, process) for process in processes]]
    except BaseException:
        for process in processes:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for process in processes:
            process.wait()
        raise
    finally:
        pool.shutdown(wait=True)
    return [(subprocess.CompletedProcess(command, process.returncode, out, err), seconds)
            for command, process, (out, err, seconds) in zip(commands, processes, ended)]
