"""Entry point of `python -m banjia.npu_sim SCRIPT [ARGS...]` (see banjia.npu_sim.runner)."""
import sys

from banjia.npu_sim.runner import run

if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
