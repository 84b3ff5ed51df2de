"""Telling the server that the CI gate failed, so the project's gate_failed webhooks fire (see the
README's "Regression alerts"). One attempt, best effort: the gate's exit code never depends on it."""

from urllib.parse import quote

from perflab_agent.transport import NetworkError
from perflab_agent.util import log

REPORT_TIMEOUT_S = 10.0


def report_gate_failure(client, project, baseline, experiments, failures, exit_code):
    body = {"baseline": baseline, "experiments": list(experiments)[:50], "exit_code": exit_code,
            "failures": [f[:500] for f in failures[:50]]}
    try:
        resp = client.request("POST", "/api/projects/{}/gate-failures".format(quote(project, safe="")),
                              json_body=body, timeout=REPORT_TIMEOUT_S)
    except NetworkError as e:
        log.warning("could not report the failed gate to the server (its webhooks stay silent): %s", e)
        return False
    if not resp.ok:
        log.warning("the server did not take the failed gate's report: %s", resp.detail())
        return False
    return True
