"""SystemTap sample-bt and DTrace stack blocks."""

from __future__ import annotations

import pytest
from perflab.parsers.profiles import ProfileError, load_profile, to_folded

from .conftest import FIXTURES, FLAMEGRAPH, read


def test_sample_bt_folds_like_stackcollapse_stap() -> None:
    profile = load_profile(read(FIXTURES / "sample-bt" / "nginx-default.bt"))

    assert profile.format == "stap"
    assert profile.unit == "samples"
    assert to_folded(profile) == read(FIXTURES / "sample-bt" / "nginx-default.bt.folded")
    heaviest = max(profile.stacks.items(), key=lambda kv: kv[1])
    assert heaviest == (
        (
            "__GI___writev;entry_SYSCALL_64_after_hwframe;do_syscall_64;exit_to_user_mode_loop;"
            "schedule;__schedule;finish_task_switch.isra.0"
        ),
        357,
    )


def test_lua_backtraces_and_a_stack_without_count() -> None:
    data = (
        b" 0x4121aa : ngx_http_lua_run_thread+0x1a/0x90 [/opt/nginx/sbin/nginx]\n"
        b"@/opt/app/lib/handler.lua:12\n"
        b"C:ngx_http_lua_ngx_sleep\n"
        b"\t7\n"
        b"\n"
        b" 0x4121aa : ngx_http_lua_run_thread+0x1a/0x90 [/opt/nginx/sbin/nginx]\n"
        b"\t3\n"
        b" 0x4121bb : ngx_worker_process_cycle+0x11/0x40 [/opt/nginx/sbin/nginx]\n"
    )

    profile = load_profile(data)

    assert profile.stacks == {
        "C:ngx_http_lua_ngx_sleep;@/opt/app/lib/handler.lua:12;ngx_http_lua_run_thread": 7,
        "ngx_http_lua_run_thread": 3,
    }
    assert profile.warnings == ["line 8: the last stack has no count line after it; left out"]


def test_dtrace_aggregation() -> None:
    profile = load_profile(read(FLAMEGRAPH / "example-dtrace-stacks.txt.gz"))

    assert profile.format == "dtrace"
    assert profile.total == 57441
    heaviest = max(profile.stacks.items(), key=lambda kv: kv[1])
    assert heaviest == (
        (
            "unix`sys_syscall;genunix`open;genunix`openat;genunix`copen;genunix`vn_openat;"
            "genunix`lookupnameat;genunix`lookupnameatcred;genunix`lookuppnatcred;"
            "genunix`lookuppnvp;genunix`fop_lookup;unix`strlen"
        ),
        2658,
    )


def test_stacks_without_counts_are_an_error() -> None:
    data = b"CPU     ID                    FUNCTION:NAME\n  0  64091   :tick-60s\n\n  unix`a+0x1\n"

    with pytest.raises(ProfileError, match="no stacks"):
        load_profile(data)
