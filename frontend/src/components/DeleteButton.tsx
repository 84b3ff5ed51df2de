// Delete without a confirmation: the object goes to the project's trash and a notice offers Undo.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef } from "react";
import { deleteToTrash, restore, type TrashKind } from "@/api/trash";
import { ErrorBox } from "@/components/ErrorBox";
import { showUndo } from "@/components/UndoToast";

interface Props {
  kind: TrashKind;
  id: string;
  /** What the notice calls it: "run 2", "experiment default". */
  name: string;
  onDeleted?: () => void;
  className?: string;
}

export function DeleteButton({ kind, id, name, onDeleted, className = "btn btn-sm btn-danger" }: Props) {
  const qc = useQueryClient();
  const after = useRef(onDeleted);
  after.current = onDeleted;
  // Callbacks on the hook, not on mutate(): the refetch that follows removes this button (its row, or the
  // page's header), and callbacks passed to mutate() do not run once their component is gone.
  const del = useMutation({
    mutationFn: () => deleteToTrash(kind, id),
    onSuccess: async () => {
      const leaving = after.current !== undefined;
      after.current?.();
      showUndo(`Deleted ${name}. It stays in the project's Trash for 30 days.`, async () => {
        await restore(kind, id);
        await qc.invalidateQueries();
      });
      // Leaving the deleted thing's page: mark everything stale and let the next page fetch what it shows;
      // refetching now would ask the page being left for what is gone (404s in the console).
      await qc.invalidateQueries(leaving ? { refetchType: "none" } : undefined);
    },
  });
  return (
    <>
      <button type="button" className={className} disabled={del.isPending} onClick={() => del.mutate()}>
        Delete {kind}
      </button>
      {del.error ? <ErrorBox error={del.error} title={`Could not delete the ${kind}`} /> : null}
    </>
  );
}
