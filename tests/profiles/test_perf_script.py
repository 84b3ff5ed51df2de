"""perf script folding: byte-identical to stackcollapse-perf.pl, in both counting modes."""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from perflab.parsers.profiles import ProfileError, load_profile, perf, to_folded

from .conftest import CPU_CLOCK_PERIOD, FLAMEGRAPH, gunzip, read


def test_real_captures_fold_exactly_like_stackcollapse_perf(experiment: Path) -> None:
    # The shared captures' stacks.folded came from stackcollapse-perf.pl: cpu-clock periods (ns).
    profile = load_profile(read(experiment / "perf-script.txt.gz"), name=experiment.name)

    assert profile.format == "perf-script"
    assert profile.unit == "nanoseconds"
    assert profile.event == "cpu-clock:pppH"
    assert profile.lossy is False
    assert profile.warnings == []
    assert to_folded(profile) == read(experiment / "stacks.folded")


def test_samples_mode_counts_each_sample_once(experiment: Path) -> None:
    text = gunzip(experiment / "perf-script.txt.gz")
    samples = sum(1 for line in text.split(b"\n") if line.startswith(b"nginx "))

    by_period = load_profile(text)
    by_sample = load_profile(text, unit="samples")

    assert by_sample.unit == "samples"
    assert by_sample.total == samples
    # Every sample of these captures has the same period, so the two modes agree up to it.
    assert by_period.stacks == {s: n * CPU_CLOCK_PERIOD for s, n in by_sample.stacks.items()}


def test_old_perf_without_periods_counts_samples() -> None:
    # perf 3.13 prints "cycles:" without a period: each sample counts 1, as in the script.
    profile = load_profile(read(FLAMEGRAPH / "example-perf-stacks.txt.gz"))

    assert profile.format == "perf-script"
    assert profile.unit == "samples"
    assert profile.event == "cycles"
    assert profile.total == 1315  # the "all" frame of FlameGraph's example-perf.svg
    heaviest = max(profile.stacks.items(), key=lambda kv: kv[1])
    assert heaviest[0].startswith("java;start_thread;java_start;JavaThread::run;")
    assert heaviest[1] == 31


EDGE_CASES = b"""# ========
# cmdline : /usr/bin/perf record -g -- ./server
java 4242/4243 [001] 100.000001:     250000 cycles: \n\
\t7f0000000001 Lcom/example/Handler;.handle(Ljava/lang/String;)V (/tmp/perf-4242.map)
\t7f0000000002 Interpreter (/usr/lib/jvm/libjvm.so)
\t7f0000000003 [unknown] (/usr/lib/jvm/libjvm.so)
\t7f0000000004 [unknown] ([unknown])

V8 WorkerThread 4242/4250 [002] 100.000002:     250000 cycles: \n\
\tffffffff81000001 memcpy_erms+0x10 ([kernel.kallsyms])
\t55d000000001 inlined_leaf->caller_of_inline+0x20 (/usr/bin/server)
\t55d000000002 net/http.(*Client).Do+0x1f (/usr/bin/server)
\t55d000000003 foo(int, char const*) (/usr/bin/server)
\t55d000000004 (anonymous namespace)::bar (/usr/bin/server)
\t55d000000005 main (/usr/bin/server)

server 4242/4244 [000] 100.000003:     100 instructions: \n\
\t55d000000005 main (/usr/bin/server)

server 4242/4244 [000] 100.000004:     250000 cycles: \n\
\t55d000000006 "quoted'name;with;semicolons" (/usr/bin/server)
\tthis line is not a frame
\t55d000000005 main (/usr/bin/server)

server 4242/4244 [000] 100.000005:     250000 cycles: \n\
\t55d000000005 main (/usr/bin/server)
"""

# What stackcollapse-perf.pl prints for EDGE_CASES (checked against the script).
EDGE_FOLDED = (
    b"V8_WorkerThread;main;foo;net/http.(*Client).Do;inlined_leaf;caller_of_inline_[i];memcpy_erms 250000\n"
    b"java;[unknown];[libjvm.so];Interpreter;com/example/Handler:.handle 250000\n"
    b"server;main;quotedname:with:semicolons 250000\n"
)


def test_stackcollapse_rules_on_edge_cases() -> None:
    # Process names with spaces, java tidying, [unknown] -> [module], Go methods kept, C++
    # arguments dropped, inlined frames, a frame that starts with "(" skipped, quotes removed,
    # ";" in names, event filtering, an unrecognized line, a last sample without a blank line.
    profile = load_profile(EDGE_CASES, unit="cycles")

    assert to_folded(profile) == EDGE_FOLDED
    assert profile.event == "cycles"
    assert profile.warnings == [
        (
            "line 25: the last sample is not followed by a blank line; ignored, as "
            "stackcollapse-perf.pl does"
        ),
        (
            "1 samples of other events (instructions) left out: only the first event type, "
            "cycles, is kept"
        ),
        "1 unrecognized lines ignored (line 22: 'this line is not a frame')",
    ]


def test_cycles_default_to_samples_not_periods() -> None:
    # A cycles period is a count of cycles, not time: the default counts samples.
    profile = load_profile(EDGE_CASES)

    assert profile.unit == "samples"
    assert set(profile.stacks.values()) == {1}
    assert profile.total == 3


def test_crlf_and_gzip_give_the_same_profile(experiment: Path) -> None:
    text = gunzip(experiment / "perf-script.txt.gz")
    crlf = text.replace(b"\n", b"\r\n")

    assert to_folded(load_profile(crlf)) == read(experiment / "stacks.folded")
    assert to_folded(load_profile(gzip.compress(crlf))) == read(experiment / "stacks.folded")


def test_folding_never_runs_a_program(monkeypatch: pytest.MonkeyPatch, experiment: Path) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("perf script folding tried to run a program")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    monkeypatch.setattr(os, "system", refuse)
    monkeypatch.setattr(os, "posix_spawn", refuse)
    monkeypatch.setattr(os, "fork", refuse)

    assert to_folded(load_profile(read(experiment / "perf-script.txt.gz"))) == read(
        experiment / "stacks.folded"
    )


def test_a_header_without_stacks_is_an_error() -> None:
    with pytest.raises(ProfileError, match="no complete sample"):
        load_profile(b"nginx   821  1625.581243:    2004008 cpu-clock:pppH: \n\tffff foo (bar)\n")


def test_absurd_period_is_refused_with_its_line() -> None:
    data = b"nginx 821 1.0: " + b"9" * 40 + b" cpu-clock: \n\tffff foo (bar)\n\n"

    with pytest.raises(ProfileError) as err:
        load_profile(data, unit="nanoseconds")

    assert err.value.line == 1
    assert "too large" in str(err.value)


# The script's regexes, verbatim: the oracle for the linear-time rewrites (on short lines,
# where their backtracking cannot explode).
PERL_HEADER = re.compile(rb"(\S.+?)\s+(\d+)/*(\d+)*\s+")
PERL_EVENT = re.compile(rb":\s*(\d+)*\s+(\S+):\s*$")
PERL_FRAME = re.compile(rb"\s*(\w+)\s*(.+) \((.*)\)")
LINE = st.lists(
    st.sampled_from([b" ", b"\t", b"\x0b", b"1", b"42", b"/", b":", b"a", b"_", b"(", b")", b" (", b"-", b"x:"]),
    max_size=16,
).map(b"".join)


@settings(max_examples=1500, deadline=None)
@given(LINE)
def test_linear_regexes_capture_what_the_scripts_regexes_capture(line: bytes) -> None:
    header, event, frame = PERL_HEADER.match(line), PERL_EVENT.search(line), PERL_FRAME.match(line)
    ours_header, ours_event = perf._HEADER.match(line), perf._EVENT.search(line)

    assert (header and header.group(1)) == (ours_header and ours_header.group(1))
    assert (event and event.groups()) == (ours_event and ours_event.groups())
    assert (frame and frame.group(2, 3)) == perf._frame_match(line)


@pytest.mark.parametrize(
    "line",
    [
        b"nginx 1" + b"2" * 100_000 + b"x",  # the verbatim header regex: exponential
        b"a" + b" " * 100_000 + b"x",  # the verbatim header regex: quadratic
        b"\tffff " + b" (" * 100_000,  # the verbatim frame regex: quadratic
        b"x 1 2.0:" + b": 1" * 50_000,
    ],
)
def test_pathological_lines_take_no_time(line: bytes) -> None:
    data = b"nginx 1 1.0: 1 cpu-clock: \n\tffff main (/bin/x)\n\n" + line + b"\n\tffff f (m)\n\n"

    start = time.process_time()
    profile = load_profile(data)

    assert time.process_time() - start < 0.5
    assert profile.stacks["nginx;main"] == 1


STACKCOLLAPSE_CORPUS = sorted((FLAMEGRAPH.parent / "stackcollapse-perf").glob("*.txt.gz"))


@pytest.mark.parametrize("source", STACKCOLLAPSE_CORPUS, ids=lambda p: p.name.removesuffix(".txt.gz"))
def test_flamegraph_regression_inputs_fold_exactly_like_stackcollapse_perf(source: Path) -> None:
    # Differential check: FlameGraph's own test inputs against the script's output at the same
    # commit. The script sums periods for every event; unit="events" asks for that.
    expected = read(source.with_name(source.name.removesuffix(".txt.gz") + ".folded"))

    profile = load_profile(read(source), unit="events")

    assert profile.format == "perf-script"
    assert to_folded(profile) == expected


def test_unindented_frame_lines_fold_like_the_script() -> None:
    # perf-java-stacks-02: frame lines flush left, headers with no time ("java 19983 cycles:").
    corpus = FLAMEGRAPH.parent / "stackcollapse-perf"
    data = read(corpus / "perf-java-stacks-02.txt.gz")
    assert b"\nffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\n" in gzip.decompress(data)

    profile = load_profile(data)

    assert profile.format == "perf-script"
    assert profile.unit == "samples"
    assert to_folded(profile) == read(corpus / "perf-java-stacks-02.folded")
    assert profile.total == 2  # two samples, each counted once (no period printed)
    assert any(s.startswith("java;start_thread;JavaMain;") for s in profile.stacks)
