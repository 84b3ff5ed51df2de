"""Build perflab-agent as a single-file zipapp (`python3 perflab-agent.pyz ...`), which the server serves
at /agent/perflab-agent.pyz so a VM needs nothing but python3 >= 3.6.

One builder for both: `python3 agents/build_zipapp.py OUT.pyz` and the server (build_bytes()).
Standard library only, and itself runnable on Python 3.6 (no `filter=`/`compressed=` of 3.7's zipapp).
"""

import os
import shutil
import tempfile
import zipapp

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
# A fixed timestamp keeps the archive from changing when only file dates did (stable ETag).
FIXED_MTIME = 315532800  # 1980-01-01, the earliest date a zip file can hold

MAIN = '''"""perflab-agent zipapp entry point."""
import sys

from perflab_agent.cli import main

sys.exit(main())
'''


def build(out_path):
    """Write the zipapp to out_path (replacing it atomically) and return out_path."""
    out_path = os.path.abspath(out_path)
    staging = tempfile.mkdtemp(prefix="perflab-agent-zipapp-")
    try:
        source = os.path.join(staging, "app")
        package = os.path.join(source, "perflab_agent")
        os.makedirs(package)
        for name in sorted(os.listdir(PACKAGE_DIR)):
            if name.endswith(".py"):
                shutil.copyfile(os.path.join(PACKAGE_DIR, name), os.path.join(package, name))
        with open(os.path.join(source, "__main__.py"), "w") as f:
            f.write(MAIN)
        for directory, _, files in os.walk(source):
            for name in files + [""]:
                os.utime(os.path.join(directory, name), (FIXED_MTIME, FIXED_MTIME))
        tmp_out = os.path.join(staging, "agent.pyz")
        zipapp.create_archive(source, tmp_out, interpreter="/usr/bin/env python3")
        out_dir = os.path.dirname(out_path)
        if out_dir:
            os.makedirs(out_dir, exist_ok=True)
        shutil.copyfile(tmp_out, out_path + ".tmp")
        os.chmod(out_path + ".tmp", 0o755)
        os.replace(out_path + ".tmp", out_path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out_path




def build_bytes():
    """The zipapp's bytes (what the server serves at /agent/perflab-agent.pyz)."""
    staging = tempfile.mkdtemp(prefix="perflab-agent-pyz-")
    try:
        with open(build(os.path.join(staging, "perflab-agent.pyz")), "rb") as f:
            return f.read()
    finally:
        shutil.rmtree(staging, ignore_errors=True)
