"""perflab-agent: runs performance tools, timestamps and spools their output, streams it to perflab.

Standard library only, and runnable by Python 3.6 (the oldest python3 on the distributions we support).
"""

__version__ = "0.1.0"
