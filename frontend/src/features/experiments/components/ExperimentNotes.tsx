// The experiment's notes (its own and its runs') and the decisions taken on it.
import { useQuery } from "@tanstack/react-query";
import { experimentDecisionsQueryOptions, scopedNotesQueryOptions, useAddNote } from "@/api/notes";
import { ErrorBox } from "@/components/ErrorBox";
import { NotesAndDecisions } from "@/components/NotesAndDecisions";
import { SkeletonBlock } from "@/components/Skeleton";
import { useProjectRole } from "@/lib/project-role";

export function ExperimentNotes({ slug, experimentId }: { slug: string; experimentId: number }) {
  const notes = useQuery(scopedNotesQueryOptions(slug, { experimentId }));
  const decisions = useQuery(experimentDecisionsQueryOptions(slug, experimentId));
  const add = useAddNote(slug);
  const { canWrite } = useProjectRole(slug);
  const error = notes.error ?? decisions.error;
  if (error) return <ErrorBox error={error} title="Could not load the notes and decisions" />;
  if (!notes.data || !decisions.data) return <SkeletonBlock lines={3} />;
  return (
    <NotesAndDecisions
      notes={notes.data}
      decisions={decisions.data}
      scopeOf={(n) => (n.run_id ? `run ${n.run_id.slice(0, 8)}` : null)}
      onAddNote={
        canWrite ? (body) => add.mutateAsync({ body_md: body, experiment_id: experimentId }) : undefined
      }
      draftKey={`note:experiment:${experimentId}`}
      adding={add.isPending}
      addError={add.error}
    />
  );
}
