"""`perflab-agent compare` prints the server's findings under the table (and in Markdown)."""

from __future__ import annotations

from perflab_agent import commands

DOC = {
    "baseline": "direct", "experiments": ["direct", "default"],
    "metrics": [{"key": "wrk.requests_per_sec", "direction": "higher_is_better",
                 "values": {"direct": 12500.4, "default": 6500.0}, "runs": {"direct": 3, "default": 3},
                 "delta_pct": {"default": -48.0}, "verdict": {"default": "worse"}}],
    "findings": [
        {"experiment": "direct", "findings": [], "appeared": [], "disappeared": []},
        {"experiment": "default", "appeared": ["copy-bound-proxy"], "disappeared": [], "findings": [
            {"rule": "copy-bound-proxy", "severity": "warning",
             "title": "sy is 85% and readv/writev take 92% of syscall time",
             "suggestion": {"component": "nginx", "knob": "proxy_buffers", "from": "8 4k (default)", "to": "4 128k"}},
        ]},
    ],
}


def test_table_lists_findings_with_the_knob() -> None:
    table = commands.render_table(DOC).splitlines()
    assert table[-2] == "findings:"
    assert table[-1] == ("  default: [warning] sy is 85% and readv/writev take 92% of syscall time"
                         " -> proxy_buffers: 8 4k (default) -> 4 128k")


def test_markdown_lists_findings_and_no_section_without_them() -> None:
    md = commands.render_markdown(DOC)
    assert "\nFindings:\n- default: [warning] sy is 85%" in md
    assert "Findings" not in commands.render_markdown({**DOC, "findings": []})
