#!/usr/bin/env python3
"""Wall time of two or more capkg builds on the same command, run alternately, back to back.

    benches/compare_builds.py RUNS BIN [BIN...] -- ARGS...

Each round runs every BIN once with ARGS (stdout and stderr discarded), in turn, so that load
from other processes and the machine's slow first run after an idle moment fall on all builds
alike. Prints each build's median, first quartile and minimum wall time in milliseconds, and the
exit codes seen (a build that fails is not measuring the same work). Used for the before/after
figures in benches/README.md, e.g.

    benches/compare_builds.py 40 /tmp/capkg-before target/release/capkg -- \\
        render infrastructure-components.yaml --provider aws -n capa-system
"""
import os
import statistics
import subprocess
import sys
import time


def main(argv):
    if "--" not in argv or len(argv) < 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    split = argv.index("--")
    runs, builds, args = int(argv[1]), argv[2:split], argv[split + 1:]
    times = {build: [] for build in builds}
    codes = {build: set() for build in builds}
    for _ in range(runs):
        for build in builds:
            start = time.perf_counter_ns()
            done = subprocess.run([build, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[build].append((time.perf_counter_ns() - start) / 1e6)
            codes[build].add(done.returncode)
    width = max(len(os.path.basename(b)) for b in builds)
    for build in builds:
        t = sorted(times[build])
        print(
            f"{os.path.basename(build):{width}}  median {statistics.median(t):7.1f} ms"
            f"  p25 {t[len(t) // 4]:7.1f}  min {t[0]:7.1f}  exit {sorted(codes[build])}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
