"""`perflab parse KIND [FILE|-]`: JSON on stdout and exit 0, or one line on stderr and exit 2."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from perflab.parsers import parse
from perflab.parsers.cli import main

from .corpus import FIXTURES, ROOT

WRK = FIXTURES / "wrk" / "nginx-proxy-buffers_default_run1.txt"
VMSTAT = FIXTURES / "vmstat" / "nginx-proxy-buffers_default_run1.txt"
STRACE = FIXTURES / "strace" / "local_6.1_f_o_readv_writev_nginx_tail40.txt"


def _run(
    capsys: pytest.CaptureFixture[str], *argv: str, stdin: bytes | None = None
) -> tuple[int, str, str]:
    code = main(list(argv), stdin=io.BytesIO(stdin) if stdin is not None else None)
    out, err = capsys.readouterr()
    return code, out, err


def test_prints_the_parse_result_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "wrk", str(WRK))
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc == parse("wrk", WRK.read_text())
    assert doc["requests_per_sec"] == 5627.0


def test_auto_adds_the_detected_kind(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "auto", str(VMSTAT))
    assert code == 0
    assert json.loads(out)["kind"] == "vmstat"


def test_wrong_kind_is_one_line_naming_the_line_and_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = _run(capsys, "vmstat", str(WRK))
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert "line 1:" in err and "vmstat header" in err and "Running 10s test" in err


def test_reads_stdin_and_gzip(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "vmstat", "-", stdin=gzip.compress(VMSTAT.read_bytes()))
    assert code == 0
    assert len(json.loads(out)["samples"]) == 12
    code, out, _ = _run(capsys, "vmstat", stdin=VMSTAT.read_bytes())
    assert code == 0 and len(json.loads(out)["samples"]) == 12


def test_gzip_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gz = tmp_path / "wrk.txt.gz"
    gz.write_bytes(gzip.compress(WRK.read_bytes()))
    code, out, _ = _run(capsys, "auto", str(gz))
    assert code == 0 and json.loads(out)["kind"] == "wrk"


def test_binary_junk_is_refused_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 40)
    for kind in ("auto", "vmstat", "strace"):
        code, out, err = _run(capsys, kind, str(junk))
        assert code == 2 and out == ""
        assert "binary data" in err and err.count("\n") == 1


def test_corrupt_gzip_and_empty_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.gz"
    bad.write_bytes(gzip.compress(WRK.read_bytes())[:40])
    code, _, err = _run(capsys, "wrk", str(bad))
    assert code == 2 and "gzip" in err
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    code, _, err = _run(capsys, "pidstat", str(empty))
    assert code == 2 and "empty" in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "nosuchkind", str(WRK))[0] == 2
    assert _run(capsys)[0] == 2
    code, _, err = _run(capsys, "wrk", "/nonexistent/file.txt")
    assert code == 2 and "cannot read" in err


def _subprocess(
    *args: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "backend"))
    return subprocess.run(
        [sys.executable, "-m", "perflab.parsers.cli", *args],
        input=stdin,
        capture_output=True,
        env=env,
        check=False,
    )


def test_as_a_program() -> None:
    ok = _subprocess("strace", str(STRACE))
    assert ok.returncode == 0
    assert json.loads(ok.stdout)["syscalls"]["writev"]["errors"] == {"EPIPE": 3}
    bad = _subprocess("wrk", str(VMSTAT))
    assert bad.returncode == 2 and bad.stdout == b""
    assert (
        bad.stderr.decode().startswith("perflab parse wrk: ")
        and b"line 1:" in bad.stderr
    )
    piped = _subprocess("auto", "-", stdin=gzip.compress(STRACE.read_bytes()))
    assert piped.returncode == 0 and json.loads(piped.stdout)["kind"] == "strace"


def test_large_strace_log_on_all_cpus_equals_parse(tmp_path: Path) -> None:
    """The CLI's fast path (mapped file, forked workers) gives what strace.parse gives."""
    sample = (
        FIXTURES / "strace" / "local_6.1_f_tt_T_threads_unfinished.txt"
    ).read_text()
    sample += STRACE.read_text() + "some program output = 12\n"
    reps = 17 * 1024 * 1024 // len(sample) + 1
    log = tmp_path / "big.log"
    log.write_text(sample * reps)
    result = _subprocess("strace", str(log))
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc == parse("strace", log.read_text())
    assert doc["syscalls"]["readv"]["calls"] == 32 * reps
    assert doc["unparsed_lines"] == reps
