"""Entry point for `python -m perflab_agent`, the zipapp and the `perflab-agent` console script."""

import sys

from perflab_agent.cli import main

if __name__ == "__main__":
    sys.exit(main())
