// The run's notes and its experiment's decisions. A note written while a time range is selected on the
// charts covers that range, and time-range notes are drawn on every chart of the run.
import { useQuery } from "@tanstack/react-query";
import { experimentDecisionsQueryOptions, type NoteRead, useAddNote } from "@/api/notes";
import type { TimeAnnotation } from "@/components/charts";
import { ErrorBox } from "@/components/ErrorBox";
import { NotesAndDecisions } from "@/components/NotesAndDecisions";
import { SkeletonBlock } from "@/components/Skeleton";
import { markdownFirstLine } from "@/lib/markdown-plain";
import { useProjectRole } from "@/lib/project-role";
import { formatClock } from "@/lib/time-axis";
import type { TimeRange } from "@/lib/time-range";

/** Time-range notes as chart bands (a point in time gets a one-second band so it stays visible). */
export function noteAnnotations(notes: readonly NoteRead[]): TimeAnnotation[] {
  return notes.flatMap((n) => {
    if (n.t_start_s === null || n.t_start_s === undefined) return [];
    const end =
      n.t_end_s !== null && n.t_end_s !== undefined && n.t_end_s > n.t_start_s ? n.t_end_s : n.t_start_s + 1;
    // A band has room for a short plain line: the note's Markdown marks are dropped, not shown raw.
    return [{ start: n.t_start_s, end, label: markdownFirstLine(n.body_md, 40) }];
  });
}

interface Props {
  slug: string;
  runId: string;
  experimentId: number;
  notes: { data?: NoteRead[]; error: unknown };
  range: TimeRange | null;
}

export function RunNotes({ slug, runId, experimentId, notes, range }: Props) {
  const decisions = useQuery(experimentDecisionsQueryOptions(slug, experimentId));
  const add = useAddNote(slug);
  const { canWrite } = useProjectRole(slug);
  const error = notes.error ?? decisions.error;
  if (error) return <ErrorBox error={error} title="Could not load the notes and decisions" />;
  if (!notes.data || !decisions.data) return <SkeletonBlock lines={3} />;
  // Notes are offsets from the run's start and cannot be negative (collectors may start a moment early).
  const covered = range ? { start: Math.max(0, range.start), end: Math.max(0, range.end) } : null;
  return (
    <NotesAndDecisions
      notes={notes.data}
      decisions={decisions.data}
      onAddNote={
        canWrite
          ? (body) =>
              add.mutateAsync({
                body_md: body,
                run_id: runId,
                t_start_s: covered?.start ?? null,
                t_end_s: covered?.end ?? null,
              })
          : undefined
      }
      draftKey={`note:run:${runId}`}
      addHint={
        covered
          ? `The note covers ${formatClock(covered.start)}–${formatClock(covered.end)}, the range selected on the charts.`
          : "Select a time range on the charts first to attach the note to it."
      }
      adding={add.isPending}
      addError={add.error}
      decideHint="Decisions are recorded from a comparison of this run's experiment against its baseline."
    />
  );
}
