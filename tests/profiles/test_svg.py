"""flamegraph.pl SVGs back to stacks: the same tree as the source, within the tolerance."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from perflab.parsers.profiles import Profile, ProfileError, load_profile

from .conftest import FLAMEGRAPH, node_totals, read

XSS = "<img src=x onerror=alert(1)>"


def test_captured_svg_gives_the_tree_of_its_folded_source(experiment: Path) -> None:
    svg = load_profile(read(experiment / "flamegraph.svg.gz"))
    folded = load_profile(read(experiment / "stacks.folded"), unit="nanoseconds")

    assert svg.format == "svg"
    assert svg.lossy is True
    assert svg.total == folded.total
    # Every frame of these captures is wider than 0.1 px, so nothing was left out.
    assert node_totals(svg) == node_totals(folded)
    assert svg.stacks == folded.stacks


def test_frames_below_the_tolerance_may_be_missing_the_rest_is_exact() -> None:
    # FlameGraph's DTrace example has many frames narrower than 0.1 px.
    svg = load_profile(read(FLAMEGRAPH / "example-dtrace.svg.gz"))
    source = load_profile(read(FLAMEGRAPH / "example-dtrace-stacks.txt.gz"))
    assert svg.tolerance is not None
    threshold = svg.tolerance * source.total

    svg_nodes, source_nodes = node_totals(svg), node_totals(source)
    missing = {p: t for p, (_, t) in source_nodes.items() if p not in svg_nodes}

    assert source.format == "dtrace"
    assert svg.total == source.total == 57441
    assert svg.tolerance == pytest.approx(0.1 / 1180)
    assert missing and max(missing.values()) < threshold
    for path, (_, total) in svg_nodes.items():
        if path != "[pruned]":
            assert total == source_nodes[path][1], path
    # What is missing is accounted for: as self time of the parent, or as "[pruned]" at the root.
    assert sum(s for s, _ in svg_nodes.values()) == source.total


def test_svg_of_an_older_stackcollapse_matches_after_its_renaming() -> None:
    # FlameGraph's example-perf.svg predates "[unknown]" -> "[module]", and its flamegraph.pl
    # dropped "<" and ">" from names; redo both, then compare.
    svg = load_profile(read(FLAMEGRAPH / "example-perf.svg.gz"))
    source = load_profile(read(FLAMEGRAPH / "example-perf-stacks.txt.gz"))
    renamed: dict[str, int] = {}
    for stack, count in source.stacks.items():
        old = re.sub(r"(?<=;)\[[^;]*\](?=;|$)", "[unknown]", stack)
        old = old.replace("<", "").replace(">", "")
        renamed[old] = renamed.get(old, 0) + count

    assert svg.total == source.total == 1315
    assert node_totals(svg) == node_totals(Profile(renamed))


def _svg(frames: list[tuple[str, int, float, float, int]], *, height: int = 100) -> bytes:
    """A minimal flamegraph.pl-shaped SVG: (title name, count, x, width, depth) per frame."""
    total = frames[0][1]
    body = []
    for name, count, x, width, depth in frames:
        title = f"{name} ({count:,} samples, {100 * count / total:.2f}%)"
        title = title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        y = height - 16 * (depth + 1)
        body.append(
            f'<g><title>{title}</title><rect x="{x:.1f}" y="{y}" width="{width:.1f}" '
            f'height="15.0" fill="rgb(1,2,3)" rx="2" ry="2" /><text x="0" y="0">..</text></g>'
        )
    return (
        '<?xml version="1.0" standalone="no"?>\n'
        '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
        '"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n'
        f'<svg version="1.1" width="1200" height="{height}" onload="init(evt)" '
        'xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script>'
        '<g id="frames">' + "".join(body) + "</g></svg>"
    ).encode()


def test_split_frames_are_merged_and_names_stay_text() -> None:
    # flamegraph.pl splits "b" when sorted input interleaves "b-x": two rects, one frame here.
    data = _svg(
        [
            ("all", 100, 10.0, 1180.0, 0),
            ("a", 100, 10.0, 1180.0, 1),
            ("b", 30, 10.0, 354.0, 2),
            ("b-x", 20, 364.0, 236.0, 2),
            ("b", 50, 600.0, 590.0, 2),
            (XSS, 10, 10.0, 118.0, 3),
            (XSS, 40, 600.0, 472.0, 3),
        ]
    )

    profile = load_profile(data)

    assert profile.stacks == {"a;b": 30, "a;b-x": 20, f"a;b;{XSS}": 50}
    assert node_totals(profile)["a;b"] == (30, 80)


def test_icicle_graph_is_read_top_down() -> None:
    frames = [("all", 10, 10.0, 1180.0, 0), ("main", 10, 10.0, 1180.0, 1), ("leaf", 4, 10.0, 472.0, 2)]
    data = _svg(frames)
    # Mirror the rows: the root at the top.
    flipped = re.sub(rb'y="(\d+)"', lambda m: b'y="%d"' % (100 - int(m.group(1))), data)

    assert load_profile(flipped).stacks == {"main": 6, "main;leaf": 4}


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE svg [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<svg xmlns="http://www.w3.org/2000/svg"><g><title>&lol9; (1 samples, 100%)</title>
<rect x="10" y="10" width="1180" height="15"/></g></svg>
"""


def test_billion_laughs_is_refused_quickly() -> None:
    start = time.monotonic()
    with pytest.raises(ProfileError, match="SVG refused"):
        load_profile(BILLION_LAUGHS)
    assert time.monotonic() - start < 1.0


@pytest.mark.parametrize("kind", ["SYSTEM", "PARAMETER", "DTD"])
def test_external_references_are_never_followed(tmp_path: Path, kind: str) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text('TOP-SECRET-TOKEN <!ENTITY leak "TOP-SECRET">')
    title = "x (1 samples, 100%)"
    if kind == "SYSTEM":
        doctype = f'<!DOCTYPE svg [<!ENTITY xxe SYSTEM "file://{secret}">]>'
        title = "&xxe; (1 samples, 100%)"
    elif kind == "PARAMETER":
        doctype = f'<!DOCTYPE svg [<!ENTITY % xxe SYSTEM "file://{secret}"> %xxe;]>'
    else:  # an external DTD, as flamegraph.pl's own DOCTYPE has: named, never loaded
        doctype = f'<!DOCTYPE svg SYSTEM "file://{secret}">'
        title = "&leak; (1 samples, 100%)"
    data = (
        f'<?xml version="1.0"?>\n{doctype}\n<svg xmlns="http://www.w3.org/2000/svg">'
        f'<g><title>{title}</title><rect x="10" y="10" width="1180" height="15"/></g></svg>'
    ).encode()
    before = secret.stat().st_atime_ns

    start = time.monotonic()
    try:
        outcome = repr(load_profile(data).stacks)  # the DTD case parses: "&leak;" stays unknown
    except ProfileError as err:
        outcome = str(err)

    assert time.monotonic() - start < 1.0
    assert "TOP-SECRET" not in outcome
    assert secret.stat().st_atime_ns == before
    if kind != "DTD":
        assert "SVG refused: EntitiesForbidden" in outcome


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b'<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"/></svg>', "no flame graph frames"),
        (b"<svg><g><title>x (1 samples, 100%)</title><rect x='1'", "not a well-formed SVG"),
        (b"<html><body>not an svg</body></html>", "not an SVG"),
    ],
)
def test_svg_that_is_no_flame_graph_is_an_error(data: bytes, problem: str) -> None:
    with pytest.raises(ProfileError, match=problem):
        load_profile(data)


def test_frames_narrower_than_the_rounding_go_where_their_count_fits() -> None:
    # --minwidth 0 at 100,000 samples: 1 sample is 0.012 px. "tiny" (1 sample) ends A; after
    # rounding it touches both A and B, and only A has room for it.
    data = _svg(
        [
            ("all", 100_000, 10.0, 1180.0, 0),
            ("A", 50_000, 10.0, 590.0, 1),
            ("B", 50_000, 600.0, 590.0, 1),
            ("a1", 49_999, 10.0, 590.0, 2),
            ("tiny", 1, 600.0, 0.0, 2),
            ("b1", 50_000, 600.0, 590.0, 2),
        ]
    )

    profile = load_profile(data)

    assert profile.stacks == {"A;a1": 49_999, "A;tiny": 1, "B;b1": 50_000}
