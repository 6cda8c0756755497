"""Child processes the scripts can stop whole: scripts/mutants.py and scripts/coverage.py."""
import os
import signal
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

# The processes run_together has started and that have not ended, from every thread.
_running = set()
_running_lock = threading.Lock()


def _kill_groups(processes):
    for process in processes:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def kill_running():
    """Kills whole every process run_together started that is still running, whichever thread started it
    (for a script interrupted while another thread waits on them); that thread's run_together then returns."""
    with _running_lock:
        _kill_groups(_running)


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
        with _running_lock:
            _running.discard(process)
        return out, err, time.monotonic() - start

    try:
        for command in commands:
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                       start_new_session=True, **kwargs)
            processes.append(process)
            with _running_lock:
                _running.add(process)
        # One thread per process reads its pipes, so no process waits on a full pipe while another is read.
        ended = [future.result() for future in [pool.submit(finish, process) for process in processes]]
    except BaseException:
        _kill_groups(processes)
        for process in processes:
            process.wait()
            with _running_lock:
                _running.discard(process)
        raise
    finally:
        pool.shutdown(wait=True)
    return [(subprocess.CompletedProcess(command, process.returncode, out, err), seconds)
            for command, process, (out, err, seconds) in zip(commands, processes, ended)]
