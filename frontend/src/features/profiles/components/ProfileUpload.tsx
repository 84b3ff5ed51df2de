// Drop a profile on a run (or pick a file): the bytes go to the server as they are, in any format it
// detects (folded, perf script, flamegraph.pl SVG, sample-bt; gzip or not). Shows progress, then the
// server's verdict: what it read, or its own error message.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useRef, useState } from "react";
import { Link } from "react-router";
import { ErrorBox } from "@/components/ErrorBox";
import { formatBytes, formatInt } from "@/lib/format";
import { profileKeys, setProfileUnit, type UploadResult, uploadProfile } from "../api";
import { formatValue } from "../format";
import { PROFILE_UNITS } from "./ProfileUnit";

interface Props {
  slug: string;
  runId: string;
}

interface Progress {
  loaded: number;
  total: number;
}

/** A profile name from a file name: without compression and capture suffixes. */
export function nameFromFile(fileName: string): string {
  const base = fileName.replace(/\.gz$/i, "").replace(/\.(txt|folded|svg|stacks|out|data)$/i, "");
  return base.slice(0, 200) || "profile";
}

export function ProfileUpload({ slug, runId }: Props) {
  const qc = useQueryClient();
  const inputId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [role, setRole] = useState("");
  const [unit, setUnit] = useState("");
  const [over, setOver] = useState(false);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [done, setDone] = useState<(UploadResult & { name: string })[]>([]);
  const upload = useMutation({
    mutationFn: async (file: File) => {
      setProgress({ loaded: 0, total: file.size });
      const name = nameFromFile(file.name);
      const res = await uploadProfile({
        runId,
        file,
        name,
        role: role.trim() || undefined,
        unit: unit || undefined,
        onProgress: (loaded, total) => setProgress({ loaded, total }),
      });
      return { ...res, name };
    },
    onSuccess: (res) => {
      setDone((d) => [res, ...d]);
      qc.invalidateQueries({ queryKey: profileKeys.all });
    },
    onSettled: () => setProgress(null),
  });
  // A likely-wrong unit is said right after the upload, with the fix one click away.
  const fixUnit = useMutation({
    mutationFn: ({ id, unit }: { id: string; unit: string }) => setProfileUnit(id, unit),
    onSuccess: (p) => {
      setDone((d) =>
        d.map((r) => (r.profile_id === p.profile_id ? { ...r, unit: p.unit, warnings: p.warnings } : r)),
      );
      return qc.invalidateQueries({ queryKey: profileKeys.all });
    },
  });

  const send = (files: FileList | null) => {
    const file = files?.[0];
    if (file && !upload.isPending) upload.mutate(file);
  };

  return (
    <div className="form">
      <section
        className={`dropzone${over ? " dropzone-over" : ""}`}
        aria-label="Upload a profile"
        data-testid="profile-dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          e.dataTransfer.dropEffect = "copy";
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          send(e.dataTransfer.files);
        }}
      >
        <div className="dropzone-title">Drop a profile here</div>
        <div className="muted">
          folded stacks, <code>perf script</code> output, a flamegraph.pl SVG or SystemTap{" "}
          <code>sample-bt</code> output; gzip is fine
        </div>
        <div className="form-row" style={{ justifyContent: "center" }}>
          <label className="btn btn-sm" htmlFor={inputId}>
            Choose a file…
          </label>
          <input
            ref={inputRef}
            id={inputId}
            type="file"
            className="sr-only"
            aria-label="Profile file"
            onChange={(e) => {
              send(e.target.files);
              e.target.value = "";
            }}
          />
          <label className="field" style={{ flexDirection: "row", alignItems: "center", gap: 6 }}>
            <span className="field-label">Host role</span>
            <input
              className="input"
              style={{ width: 120 }}
              value={role}
              onChange={(e) => setRole(e.target.value)}
              placeholder="e.g. proxy"
            />
          </label>
          <label className="field" style={{ flexDirection: "row", alignItems: "center", gap: 6 }}>
            <span className="field-label">Counts are</span>
            <select className="select" value={unit} onChange={(e) => setUnit(e.target.value)}>
              <option value="">as the file says (samples for folded)</option>
              {PROFILE_UNITS.map((u) => (
                <option key={u.unit} value={u.unit}>
                  {u.label}
                </option>
              ))}
            </select>
          </label>
        </div>
        {progress ? (
          <div className="upload-progress" role="status">
            <progress max={progress.total || 1} value={progress.loaded} aria-label="Upload progress" />
            <span className="muted tabular">
              {progress.loaded >= progress.total
                ? "Reading the profile on the server…"
                : `${formatBytes(progress.loaded)} of ${formatBytes(progress.total)}`}
            </span>
          </div>
        ) : null}
      </section>
      {upload.error ? <ErrorBox error={upload.error} title="The server did not accept this profile" /> : null}
      {done.map((r) => (
        <div className="alert flame-note" role="status" key={r.profile_id}>
          <span>
            <strong>{r.name}</strong> uploaded: {r.format}, {formatInt(r.frames)} frames,{" "}
            {formatValue(r.total, r.unit)}
            {r.lossy ? " (approximate: rebuilt from an SVG)" : ""}.{" "}
            <Link to={`/p/${slug}/profiles/${r.profile_id}`}>Open flame graph</Link>
          </span>
          {r.warnings.map((w) => (
            <span key={w} className="alert-warn-text" data-testid="upload-warning">
              {w}
            </span>
          ))}
          {r.warnings.some((w) => w.includes("sampling periods")) ? (
            <span>
              <button
                type="button"
                className="btn btn-sm"
                disabled={fixUnit.isPending}
                onClick={() => fixUnit.mutate({ id: r.profile_id, unit: "nanoseconds" })}
              >
                Count as nanoseconds
              </button>
            </span>
          ) : null}
        </div>
      ))}
    </div>
  );
}
