"""Command line: `perflab-agent daemon | run | upload | import | compare | trend | noise`, and the options they share."""

import argparse
import logging
import os
import re
import socket
import sys

from perflab_agent import __version__, procs
from perflab_agent.collectors import parse_spec
from perflab_agent.spool import SpoolLocked
from perflab_agent.transport import Client
from perflab_agent.util import (
    RedactingFilter,
    default_state_dir,
    load_agent_id,
    log,
    redactor,
)


def _spec(text):
    try:
        return parse_spec(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


def _role(text):
    if not re.match(r"^[A-Za-z0-9_.-]{1,64}$", text):
        raise argparse.ArgumentTypeError(f"a role is letters, digits, '_', '.' or '-': {text!r}")
    return text


def _positive(kind):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}")
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
        return value
    return parse


def _repeat(text):
    if text == "auto":
        return text
    return _positive(int)(text)


def _fail_on(text):
    from perflab_agent import commands

    parts = tuple(p.strip() for p in text.split(",") if p.strip())
    bad = [p for p in parts if p not in commands.FAIL_ON]
    if bad or not parts:
        raise argparse.ArgumentTypeError("--fail-on takes worse and/or undecided, comma-separated")
    return parts


def build_parser():
    parser = argparse.ArgumentParser(
        prog="perflab-agent",
        description="Runs performance tools during load tests and streams their output to perflab.")
    parser.add_argument("--version", action="version", version="perflab-agent " + __version__)

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--server", default=os.environ.get("PERFLAB_SERVER"),
                        help="perflab URL, e.g. http://dashboard:8000 (env PERFLAB_SERVER)")
    common.add_argument("--token", help="agent token plb_... (prefer env PERFLAB_TOKEN or --token-file: "
                                        "command lines are visible to every user in ps)")
    common.add_argument("--token-file", help="read the token from this file")
    common.add_argument("--ca-file", help="CA bundle to verify an https server")
    common.add_argument("--timeout", type=_positive(float), default=30.0, help="HTTP timeout in seconds (30)")
    common.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    common.add_argument("-q", "--quiet", action="store_true", help="log only errors")

    spool = argparse.ArgumentParser(add_help=False)
    spool.add_argument("--state-dir", default=None,
                       help="agent id and spool (default /var/lib/perflab-agent as root, "
                            "else ~/.local/state/perflab-agent)")
    spool.add_argument("--spool-max-mb", type=_positive(float), default=256.0,
                       help="spool size bound; beyond it the oldest batches are dropped and counted (256)")
    spool.add_argument("--spool-max-age-h", type=_positive(float), default=24.0,
                       help="spool age bound in hours (24)")
    spool.add_argument("--role", type=_role, default=os.environ.get("PERFLAB_ROLE"),
                       help="this host's role in runs: proxy, upstream, loadgen... (default: the short hostname "
                            "for daemon, loadgen for run)")

    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    daemon = sub.add_parser("daemon", parents=[common, spool], help="collect for every run of the project",
                            description="Say hello, wait for runs, run the collectors during each run.")
    daemon.add_argument("--collect", action="append", default=[], type=_spec, metavar="SPEC",
                        help="vmstat | pidstat:PROC | netqtop:IFACE | strace-c:PROC[:SECONDS] | "
                             "perf:PROC[:SECONDS] (repeatable)")
    daemon.add_argument("--config-file", action="append", default=[], metavar="PATH",
                        help="snapshot this file when a run starts (repeatable)")
    daemon.add_argument("--sysctl", action="append", default=[], metavar="KEY",
                        help="snapshot this sysctl when a run starts (repeatable)")
    daemon.add_argument("--test", action="store_true",
                        help="run each collector once, print what would be sent, send nothing")
    daemon.add_argument("--poll-timeout", type=_positive(float), default=25.0,
                        help="long-poll duration in seconds (25)")
    daemon.add_argument("--heartbeat-interval", type=_positive(float), default=10.0,
                        help="seconds between heartbeats (10)")

    run = sub.add_parser("run", parents=[common, spool], help="run a load test as a perflab run",
                         description="Create a run, wait for the daemons, run CMD, stream its output.",
                         usage="perflab-agent run --project P --experiment E [options] -- CMD...")
    run.add_argument("--project", required=True)
    run.add_argument("--experiment", required=True)
    run.add_argument("--label", default="", help="run label (with --repeat: 'LABEL (run i of N)')")
    run.add_argument("--hypothesis", default="", help="what this experiment is expected to show")
    run.add_argument("--repeat", type=_repeat, default=1,
                     help="number of runs (1), or 'auto': run until the verdict against --against is decided")
    run.add_argument("--against", default=None, metavar="BASELINE",
                     help="with --repeat auto: the baseline experiment the verdict is against")
    run.add_argument("--metric", default="wrk.requests_per_sec", metavar="KEY",
                     help="with --repeat auto: the metric to decide (wrk.requests_per_sec)")
    run.add_argument("--max", type=_positive(int), default=10, metavar="N",
                     help="with --repeat auto: stop after N runs even when not decided (10)")
    run.add_argument("--cooldown", type=float, default=0.0, help="seconds between repeated runs (0)")
    run.add_argument("--wait-for", default=None, metavar="ROLE,...",
                     help="roles whose daemons must join first (default: every daemon seen in the last 60 s)")
    run.add_argument("--wait-timeout", type=float, default=60.0,
                     help="seconds to wait for daemons before starting anyway (60)")
    run.add_argument("--flush-timeout", type=float, default=60.0,
                     help="seconds to wait for the output to be delivered after the command (60)")
    run.add_argument("--json", action="store_true", help='print one {"run_id", "status"} per run, nothing else')
    run.add_argument("cmd", nargs=argparse.REMAINDER, metavar="-- CMD...")

    upload = sub.add_parser("upload", parents=[common], help="attach flame graphs or files to a run")
    upload.add_argument("--run", required=True, metavar="RUN_ID")
    upload.add_argument("--role", default="", help="the host role the files belong to")
    upload.add_argument("--flamegraph", action="append", default=[], metavar="FILE",
                        help="a profile: folded stacks, perf script, flamegraph.pl SVG... (repeatable)")
    upload.add_argument("--unit", choices=["samples", "nanoseconds", "events"], default=None,
                        help="what a count of the --flamegraph files is (a folded file does not say; "
                             "perf script: samples counts samples, the others sum periods); "
                             "default: the server decides from the content")
    upload.add_argument("--file", action="append", default=[], metavar="FILE", help="any file (repeatable)")
    upload.add_argument("--kind", choices=["raw", "config"], default="raw", help="artifact kind of --file (raw)")
    upload.add_argument("--json", action="store_true", help="print the server's answer per file as JSON")

    imp = sub.add_parser("import", parents=[common], help="import saved tool output as a new run")
    imp.add_argument("--project", required=True)
    imp.add_argument("--experiment", required=True)
    imp.add_argument("--run-label", default="")
    imp.add_argument("--json", action="store_true", help="print the server's answer as one JSON object")
    imp.add_argument("files", nargs="+", metavar="FILE")

    cmp_ = sub.add_parser("compare", parents=[common], help="compare experiments against a baseline")
    cmp_.add_argument("--project", required=True)
    cmp_.add_argument("--baseline", required=True, metavar="NAME")
    cmp_.add_argument("--format", choices=["table", "markdown", "json"], default="table")
    cmp_.add_argument("--include-invalid", action="store_true",
                      help="count invalid runs (error responses, no requests) in medians and verdicts")
    cmp_.add_argument("--fail-on", type=_fail_on, default=None, metavar="worse[,undecided]",
                      help="CI gate: exit 3 when a chosen metric of an experiment is decided worse than the "
                           "baseline; exit 4 when it could not be judged (no run, one run, no valid run), and "
                           "with 'undecided' also when the runs do not decide")
    cmp_.add_argument("--metric", action="append", default=[], metavar="KEY",
                      help="metric the gate checks (repeatable; default: wrk.requests_per_sec and "
                           "wrk.latency_percentiles_ms.99; 'wrk.' may be left out)")
    cmp_.add_argument("experiments", nargs="*", metavar="EXPERIMENT")

    trend = sub.add_parser("trend", parents=[common], help="one metric across experiments, with change points")
    trend.add_argument("--project", required=True)
    trend.add_argument("--metric", required=True, metavar="KEY", help="e.g. wrk.requests_per_sec, vmstat.sy@proxy")
    trend.add_argument("--format", choices=["table", "json"], default="table")
    trend.add_argument("--alpha", type=float, metavar="RATE",
                       help="change-point false alarms per history, 0.005 to 0.2 (default: the server's, 0.05)")

    noise = sub.add_parser("noise", parents=[common],
                           help="the noise of a setup: what changes an experiment's repeated runs can detect")
    noise.add_argument("--project", required=True)
    noise.add_argument("--experiment", required=True, metavar="NAME")
    noise.add_argument("--format", choices=["table", "json"], default="table")
    return parser


def _setup_logging(args, default_level):
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s perflab-agent %(levelname)s %(message)s"))
    handler.addFilter(RedactingFilter())
    log.addHandler(handler)
    log.propagate = False
    level = default_level
    if getattr(args, "verbose", False):
        level = logging.DEBUG
    elif getattr(args, "quiet", False):
        level = logging.ERROR
    log.setLevel(level)


def _read_token(args):
    if args.token:
        return args.token.strip()
    if args.token_file:
        with open(args.token_file) as f:
            return f.read().strip()
    return (os.environ.get("PERFLAB_TOKEN") or "").strip()


def _client(parser, args, token):
    if not args.server:
        parser.error("--server (or PERFLAB_SERVER) is required")
    if not token:
        parser.error("--token, --token-file or PERFLAB_TOKEN is required")
    try:
        return Client(args.server, token, timeout=args.timeout, ca_file=args.ca_file)
    except ValueError as e:
        parser.error(str(e))


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return 2
    try:
        token = _read_token(args)
    except OSError as e:
        parser.error("--token-file: %s" % (e.strerror or e))
    redactor.add(token)
    _setup_logging(args, logging.INFO if args.command == "daemon" else logging.WARNING)
    procs.install_exit_handlers()
    try:
        return _dispatch(parser, args, token)
    except SpoolLocked as e:
        log.error("%s", e)
        return 2
    except (KeyboardInterrupt, procs.Shutdown):
        return 130


def _dispatch(parser, args, token):
    # Imported here: `--version` and `--help` stay fast and touch nothing.
    from perflab_agent import commands

    if getattr(args, "role", "") is None:
        # The host that runs the load is the load generator; a daemon is named after its host.
        args.role = "loadgen" if args.command == "run" else socket.gethostname().split(".")[0]
    if args.command == "daemon":
        from perflab_agent.daemon import Daemon, run_test
        from perflab_agent.spool import Spool
        state_dir = args.state_dir or default_state_dir()
        if args.test:
            agent_id = load_agent_id(state_dir, create=False) or "(generated on first start)"
            return run_test(agent_id, args.role, args.collect, args.config_file, args.sysctl)
        client = _client(parser, args, token)
        agent_id = load_agent_id(state_dir)
        spool = Spool(os.path.join(state_dir, "spool"), int(args.spool_max_mb * 1024 * 1024),
                      args.spool_max_age_h * 3600)
        daemon = Daemon(client, spool, agent_id, args.role, args.collect, args.config_file, args.sysctl,
                        poll_timeout=args.poll_timeout, heartbeat_interval=args.heartbeat_interval)
        return daemon.run()
    if args.command == "run":
        from perflab_agent.runcmd import RunCommand
        if args.cmd and args.cmd[0] == "--":
            args.cmd = args.cmd[1:]
        if not args.cmd:
            parser.error("run: the load command is missing: run --project P --experiment E -- CMD...")
        if args.repeat == "auto" and not args.against:
            parser.error("run: --repeat auto needs --against BASELINE (the experiment to decide against)")
        if args.repeat == "auto" and args.max < 2:
            parser.error("run: --repeat auto needs --max 2 or more (one run gives no noise estimate)")
        client = _client(parser, args, token)
        state_dir = args.state_dir or default_state_dir()
        return RunCommand(client, load_agent_id(state_dir), state_dir, args).main()
    client = _client(parser, args, token)
    if args.command == "upload":
        if not args.flamegraph and not args.file:
            parser.error("upload: give --flamegraph FILE and/or --file FILE")
        return commands.upload(client, args)
    if args.command == "import":
        return commands.import_files(client, args)
    if args.command == "trend":
        from perflab_agent.trend import trend as trend_command
        return trend_command(client, args)
    if args.command == "noise":
        from perflab_agent.noise import noise as noise_command
        return noise_command(client, args)
    return commands.compare(client, args)
