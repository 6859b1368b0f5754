#!/usr/bin/env python3
"""Wall and CPU time of several commands, run interleaved, each against a reference command.

    benches/interleaved.py RUNS REFERENCE SPEC.json

SPEC.json is an object mapping a tool's name to its command (a list: program and arguments, or
an object `{"argv": [...], "stdin": PATH}` for a command that reads a file on its standard
input), in the order the table prints them; REFERENCE names the tool every ratio is taken
against (`kustomize`, `envsubst`). Each of RUNS rounds runs every command twice in a row: the
first run follows another command (`cold`), the second follows itself (`warm`). Each round runs
the commands in a new order (a shuffle, seeded by the round's number so that a rerun repeats
it), so that no command always follows the same one: the run right after kustomize's exit is a
slow one. stdout and stderr are discarded; exit codes are ignored (capkg assemble refuses some
corpus releases for their real defects after doing all the work but the final write), so a
caller checks its commands once first.

A run is timed from just before `posix_spawn` to just after `wait4` returns, in this process:
no shell, no `date` and no `/usr/bin/time` inside the interval. CPU time is the child's user +
system time from `wait4`, in microseconds, where `/usr/bin/time` gave hundredths of a second.
Prints, per tool, the medians of the cold and warm wall times in milliseconds, the median CPU
milliseconds of a run, and the ratios of the reference's median to the tool's, cold to cold and
warm to warm.
"""
import json
import os
import random
import statistics
import sys
import time


def run_once(command, devnull):
    """Wall milliseconds and CPU milliseconds of one run of `command` (a list, or an object
    with `argv` and `stdin`)."""
    if isinstance(command, list):
        argv, stdin = command, None
    else:
        argv, stdin = command["argv"], command["stdin"]
    actions = [
        (os.POSIX_SPAWN_DUP2, devnull, 1),
        (os.POSIX_SPAWN_DUP2, devnull, 2),
    ]
    # Opened before the clock starts, a new descriptor each run (at the file's start).
    source = os.open(stdin, os.O_RDONLY) if stdin else None
    if source is not None:
        actions.append((os.POSIX_SPAWN_DUP2, source, 0))
    try:
        start = time.perf_counter_ns()
        pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
        _, _, usage = os.wait4(pid, 0)
        wall = (time.perf_counter_ns() - start) / 1e6
    finally:
        if source is not None:
            os.close(source)
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    runs, reference = int(argv[1]), argv[2]
    with open(argv[3], encoding="utf-8") as spec:
        tools = json.load(spec)
    if reference not in tools:
        print(f"no tool named {reference!r} in {argv[3]}", file=sys.stderr)
        return 2
    names = list(tools)
    walls = {name: {"cold": [], "warm": []} for name in names}
    cpus = {name: [] for name in names}
    devnull = os.open(os.devnull, os.O_WRONLY)
    for round_index in range(runs):
        order = list(names)
        random.Random(round_index).shuffle(order)
        for name in order:
            for kind in ("cold", "warm"):
                wall, cpu = run_once(tools[name], devnull)
                walls[name][kind].append(wall)
                cpus[name].append(cpu)
    median = {
        name: {kind: statistics.median(values) for kind, values in kinds.items()}
        for name, kinds in walls.items()
    }
    print(f"  {'tool':<16} {'cold_wall_ms':>12} {'warm_wall_ms':>12} {'cpu_ms':>8} {'cold_ratio':>10} {'warm_ratio':>10}")
    for name in names:
        cold, warm = median[name]["cold"], median[name]["warm"]
        print(
            f"  {name:<16} {cold:12.1f} {warm:12.1f} {statistics.median(cpus[name]):8.1f}"
            f" {median[reference]['cold'] / cold:9.1f}x {median[reference]['warm'] / warm:9.1f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
