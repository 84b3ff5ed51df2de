"""Terminal transcripts: prompt lines, and which parser a typed command's output needs.

    prompt(line)      # -> (prompt, command) when the line is a shell prompt with what was typed, else None
    command_kind(cmd) # -> (kind or None, parse options, facts) for a command line

A prompt is what common shells print before a command: ``$ ``, ``# ``, ``% ``, ``user@host:~$ ``,
``root@host:/etc# ``, ``[root@h ~]# ``, ``[user@host dir]$ ``, ``sh-4.2# ``, ``bash-5.1$ ``, SUSE's
``host:~ # ``, zsh's ``user@host ~ % ``, each optionally after a ``(venv) `` tag. ``# `` alone is
also a comment (pidstat -h prints ``# Time ...``), so it is a prompt only before a command perflab
knows or a path (``# ./netqtop.py``, ``# cat /sys/...``). Every test is a scan of the line's head:
no regular expression backtracks.
"""

from __future__ import annotations

from ._common import JSON, to_float

__all__ = ["command_kind", "prompt"]

_SIGILS = "$#%"
_SHELLS = ("sh", "bash", "zsh", "ash", "dash", "ksh")
#: at most this many characters of a line are looked at for a prompt
_HEAD = 160

# Commands whose output a parser reads: the first word (its basename) -> kind. ss, strace, perf,
# cat, getconf, nproc and netstat need their arguments too (see command_kind).
_KINDS = {
    "vmstat": "vmstat", "pidstat": "pidstat", "sysctl": "sysctl", "wrk": "wrk", "wrk2": "wrk",
    "k6": "k6", "vegeta": "vegeta", "hey": "hey", "ab": "ab", "top": "top", "tsar": "tsar",
    "nstat": "nstat", "dmesg": "dmesg", "netqtop": "netqtop", "netqtop.py": "netqtop", "lscpu": "host-facts",
    "nproc": "host-facts",
}
# Commands known not to have a parser (their output becomes an unrecognised part, with its command):
# they make a '# ' line a prompt too.
_OTHER_COMMANDS = frozenset({
    "ip", "ethtool", "uname", "free", "df", "ps", "lsof", "grep", "cat", "tail", "head", "less", "curl",
    "nginx", "systemctl", "journalctl", "docker", "kubectl", "echo", "ls", "taskset", "numactl", "iostat",
    "mpstat", "sar", "perf", "strace", "ss", "netstat", "getconf", "ulimit", "sudo", "time", "watch", "env",
    "tc", "iptables", "conntrack", "lsblk", "mount", "chrt", "renice", "kill", "python3", "python", "awk",
    "sed", "wc", "sort", "uniq", "cd", "export", "service", "ping", "dig", "nc", "openssl", "sysbench",
})
# Files whose `cat` is a host fact (see host_facts)
HOST_FACT_FILES = ("cpu.max", "cpu.cfs_quota_us", "cpu.cfs_period_us", "cpuset.cpus", "cpuset.cpus.effective",
                   "cpuset.effective_cpus", "memory.max", "memory.limit_in_bytes", "cpuinfo", "meminfo")
# Words that run the next word as the command
_WRAPPERS = frozenset({"sudo", "time", "nohup", "exec", "command", "builtin", "stdbuf", "timeout", "nice",
                       "taskset", "chrt", "ionice", "env", "watch"})


def _is_name(text: str, extra: str = "") -> bool:
    return bool(text) and all(c.isalnum() or c in "-_." + extra for c in text)


def _prompt_prefix(prefix: str) -> bool:
    """Whether ``prefix`` (the text before ``$``/``#``/``%``, sigil excluded) looks like a shell prompt."""
    p = prefix
    if p.startswith("(") and ") " in p[:60]:
        p = p[p.index(") ") + 2 :]  # a virtualenv or conda tag
    if p == "" or p.isspace():
        return True
    p = p.rstrip(" ")
    if p.startswith("[") and p.endswith("]"):
        # [root@h ~]  [user@host dir]  [root@h /etc/nginx]
        inner = p[1:-1]
        return "@" in inner and " " in inner and _is_name(inner.split("@", 1)[0])
    if " " not in p and "@" in p:
        # user@host:~   root@web-1:/etc/nginx
        user, _, rest = p.partition("@")
        host = rest.split(":", 1)[0]
        return _is_name(user) and _is_name(host)
    if " " not in p and "-" in p:
        name, _, version = p.partition("-")
        return name in _SHELLS and bool(version) and all(c.isdigit() or c == "." for c in version)
    if p.count(" ") == 1 and "@" in p:
        # zsh: user@host ~
        who, _, where = p.partition(" ")
        return _is_name(who, "@") and " " not in where
    if " " not in p and ":" in p:
        # SUSE: host:~   (printed 'host:~ # ')
        host, _, where = p.partition(":")
        return _is_name(host) and bool(where) and " " not in where and where[0] in "~/"
    return False


def prompt(line: str) -> tuple[str, str] | None:
    """(prompt, command) when ``line`` is a prompt followed by a typed command, else None.

    Only the first sigil followed by a space (or ending the line) is tried: one test per line."""
    head = line[:_HEAD]
    bare = head.rstrip()
    # a bare prompt, nothing typed (often a session's last line): 'root@vm:~#', '[root@h ~]#', '$'
    if bare[-1:] in ("$", "#") and len(bare) == len(line.rstrip()) and (
            bare == "$" or (bare[:-1].strip() and _prompt_prefix(bare[:-1]))):
        return bare, ""
    found = [k for k in (head.find("$ "), head.find("# "), head.find("% ")) if k >= 0]
    if not found:
        return None
    i = min(found)
    ch = line[i]
    prefix = line[:i]
    if not _prompt_prefix(prefix):
        return None
    command = line[i + 1 :].strip()
    if not prefix.strip():
        if ch in "#%":
            # '# ' alone is also a comment, '% ' strace -c's header ('% time seconds'): a prompt
            # only before a command perflab knows or a path
            first = _first_word(command)
            if not (first in _KINDS or first in _OTHER_COMMANDS or command.startswith(("./", "/"))):
                return None
        elif command[:1] in ("{", "("):
            return None
    return line[: i + 1], command


def _first_word(command: str) -> str:
    words = _words(command)
    return words[0].rsplit("/", 1)[-1] if words else ""


def _words(command: str) -> list[str]:
    """The words of the first command of a pipeline, wrappers (sudo, time ...) and VAR=value dropped."""
    first = command.split("|", 1)[0].split("&&", 1)[0].split(";", 1)[0]
    words = first.split()
    i = 0
    while i < len(words):
        w = words[i]
        base = w.rsplit("/", 1)[-1]
        if "=" in w and not w.startswith("-") and w.split("=", 1)[0].isidentifier():
            i += 1
        elif base in _WRAPPERS:
            i += 1
            # the wrappers' own options and arguments (timeout 10, taskset -c 0-3, watch -n 1)
            while i < len(words) and (words[i].startswith("-") or words[i][:1].isdigit()):
                opt = words[i]
                i += 1
                if opt in ("-c", "-n", "-u", "-p", "-s", "-o") and i < len(words):
                    i += 1
        else:
            break
    return [w.strip("'\"") for w in words[i:]]


def _interval(args: list[str]) -> float | None:
    """The first bare number of a sampling tool's arguments (vmstat 5, pidstat -u 1 10)."""
    skip_next = False
    for a in args:
        if skip_next:
            skip_next = False
            continue
        if a in ("-S", "-p", "-C", "-G", "-U", "-e", "-T", "--unit"):
            skip_next = True
            continue
        v = to_float(a)
        if v is not None and v > 0:
            return v
    return None


def command_kind(command: str) -> tuple[str | None, JSON, JSON]:
    """(kind, parse options, what the command says) for a typed command line: the parser its
    output needs (None when none), keyword options for ``parse`` (vmstat's ``memory_unit``), and
    facts of the command (``interval_s``, ``argv``)."""
    words = _words(command)
    if not words:
        return None, {}, {}
    name = words[0].rsplit("/", 1)[-1]
    args = words[1:]
    info: JSON = {"argv": words[:32]}
    options: JSON = {}
    kind = _KINDS.get(name)
    if name == "vmstat":
        for i, a in enumerate(args):
            if a == "-S" and i + 1 < len(args):
                options["memory_unit"] = args[i + 1]
            elif a.startswith("-S") and len(a) == 3:
                options["memory_unit"] = a[2]
        if "-d" in args or "-D" in args or "-s" in args or "-m" in args or "-p" in args:
            kind = None  # disk, summary and slab tables are other outputs
    if kind in ("vmstat", "pidstat"):
        interval = _interval(args)
        if interval is not None:
            info["interval_s"] = interval
    elif name in ("top", "tsar", "netqtop", "netqtop.py"):
        for i, a in enumerate(args):
            if a in ("-d", "-i") and i + 1 < len(args) and to_float(args[i + 1]):
                info["interval_s"] = to_float(args[i + 1])
    if name == "ss":
        flags = "".join(a[1:] for a in args if a.startswith("-") and not a.startswith("--"))
        if "s" in flags:
            kind = "ss-s"
        elif "l" in flags and "a" not in flags:
            kind = "ss-ltn"
        else:
            kind = "ss-tan"
    elif name == "netstat" and any(a.startswith("-") and "s" in a and not a.startswith("--") for a in args):
        kind = "netstat-s"
    elif name == "strace":
        kind = "strace-c" if any(a.startswith("-") and not a.startswith("--") and ("c" in a or "C" in a)
                                 for a in args) or "--summary-only" in args else "strace"
    elif name == "perf" and args[:1] == ["stat"]:
        kind = "perf-stat"
    elif name == "getconf" and args[:1] and args[0].lstrip("_").startswith("NPROCESSORS"):
        kind = "host-facts"
    elif name in ("cat", "head", "tail", "less", "more") and args:
        files = [a for a in args if not a.startswith("-")]
        if files and all(f.startswith("/proc/sys/") or f.rsplit("/", 1)[-1] in HOST_FACT_FILES for f in files):
            kind = "host-facts"
        elif files and all("access" in f.rsplit("/", 1)[-1] and ".log" in f for f in files):
            kind = "nginx-access"
    elif name == "vegeta" and args[:1] != ["report"]:
        kind = None  # `vegeta attack` prints binary results; `vegeta report` the summary
    elif name == "sysctl" and any(a.startswith("-w") for a in args):
        kind = "sysctl"
    return kind, options, info
