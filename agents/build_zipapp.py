"""Build perflab-agent as a single-file zipapp: `python3 agents/build_zipapp.py OUT.pyz`.

The builder itself lives in perflab_agent/zipapp.py, shared with the server that serves the zipapp.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from perflab_agent.zipapp import build

__all__ = ["build"]

if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: python3 build_zipapp.py OUT.pyz\n")
        sys.exit(2)
    print(build(sys.argv[1]))
