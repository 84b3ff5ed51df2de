// Live updates of a running run: the server pushes a snapshot (status, streams with line counts)
// whenever something changes, at most once a second. Each snapshot is written into the cached run at
// once (counters move without waiting for a request) and triggers a refetch of the run and of the
// series shown. When EventSource is missing or keeps failing, the page falls back to polling every 2 s.
import { type QueryClient, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { type RunDetail, runKeys } from "./api";

export type LiveTransport = "off" | "connecting" | "sse" | "polling";

interface Snapshot {
  status?: string;
  status_reasons?: string[];
  ended?: boolean;
  streams?: { id: number; lines: number; samples: number; state: string }[];
}

/** The cached run with a snapshot's status and stream counters applied (streams it does not know are left for the refetch). */
export function applySnapshot(run: RunDetail, snap: Snapshot): RunDetail {
  const byId = new Map((snap.streams ?? []).map((s) => [s.id, s]));
  return {
    ...run,
    status: snap.status ?? run.status,
    status_reasons: snap.status_reasons ?? run.status_reasons,
    streams: run.streams.map((s) => {
      const u = byId.get(s.id);
      return u ? { ...s, lines: u.lines, samples: u.samples, state: u.state } : s;
    }),
  };
}

function refresh(qc: QueryClient, runId: string) {
  // cancelRefetch: false lets a slow request finish instead of restarting it on every event.
  void qc.invalidateQueries({ queryKey: runKeys.detail(runId) }, { cancelRefetch: false });
  void qc.invalidateQueries({ queryKey: runKeys.series(runId) }, { cancelRefetch: false });
}

// Errors in a row before we give up on the event stream and poll instead.
const MAX_ERRORS = 3;

export function useRunEvents(runId: string, live: boolean): LiveTransport {
  const qc = useQueryClient();
  const [transport, setTransport] = useState<LiveTransport>("off");

  useEffect(() => {
    if (!live) {
      setTransport("off");
      return;
    }
    if (typeof EventSource === "undefined") {
      setTransport("polling");
      return;
    }
    setTransport("connecting");
    const es = new EventSource(`/api/runs/${encodeURIComponent(runId)}/events`);
    let errors = 0;
    es.addEventListener("open", () => {
      errors = 0;
      setTransport("sse");
    });
    es.addEventListener("run", (e) => {
      errors = 0;
      setTransport("sse");
      let snap: Snapshot;
      try {
        snap = JSON.parse((e as MessageEvent<string>).data) as Snapshot;
      } catch {
        return;
      }
      qc.setQueryData<RunDetail>(runKeys.detail(runId), (old) => (old ? applySnapshot(old, snap) : old));
      refresh(qc, runId);
    });
    es.addEventListener("end", () => {
      es.close();
      refresh(qc, runId);
    });
    es.addEventListener("error", () => {
      errors += 1;
      if (es.readyState === EventSource.CLOSED || errors >= MAX_ERRORS) {
        es.close();
        setTransport("polling");
      }
    });
    return () => es.close();
  }, [runId, live, qc]);

  return transport;
}
