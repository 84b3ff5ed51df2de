// Exclude a run from every statistic (it stays, struck through with the reason), or include it again.
import { useState } from "react";
import { useExcludeRun } from "@/api/trash";
import { Dialog } from "@/components/Dialog";
import { ErrorBox } from "@/components/ErrorBox";

interface Props {
  runId: string;
  excluded: boolean;
  name: string;
}

export function ExcludeRunButton({ runId, excluded, name }: Props) {
  const exclude = useExcludeRun(runId);
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  if (excluded) {
    return (
      <>
        <button
          type="button"
          className="btn btn-sm"
          disabled={exclude.isPending}
          onClick={() => exclude.mutate({ excluded: false })}
        >
          Include again
        </button>
        {exclude.error ? <ErrorBox error={exclude.error} title="Could not include the run" /> : null}
      </>
    );
  }
  return (
    <>
      <button type="button" className="btn btn-sm" onClick={() => setOpen(true)}>
        Exclude…
      </button>
      <Dialog
        open={open}
        title={`Exclude ${name} from statistics`}
        onClose={() => setOpen(false)}
        footer={
          <>
            <button type="button" className="btn" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button
              type="button"
              className="btn btn-primary"
              disabled={!reason.trim() || exclude.isPending}
              onClick={() =>
                exclude.mutate(
                  { excluded: true, excluded_reason: reason.trim() },
                  {
                    onSuccess: () => {
                      setOpen(false);
                      setReason("");
                    },
                  },
                )
              }
            >
              Exclude
            </button>
          </>
        }
      >
        <p className="muted">
          The run stays in the list, struck through with your reason, and is left out of medians, verdicts,
          trends and findings. You can include it again at any time.
        </p>
        <label className="field-label" htmlFor={`exclude-${runId}`}>
          Why?
        </label>
        <textarea
          id={`exclude-${runId}`}
          className="textarea"
          rows={2}
          maxLength={500}
          value={reason}
          placeholder="e.g. wrk ran on the proxy host"
          onChange={(e) => setReason(e.target.value)}
        />
        {exclude.error ? <ErrorBox error={exclude.error} title="Could not exclude the run" /> : null}
      </Dialog>
    </>
  );
}
