import type { Pruned } from "@/lib/flamegraph";
import { formatInt } from "@/lib/format";

/** Says that the server sent a bounded tree: which frames are missing and where they went. */
export function PrunedNote({ pruned }: { pruned: Pruned | undefined }) {
  if (!pruned) return null;
  return (
    <p className="flame-pruned muted" role="note">
      Showing the {formatInt(pruned.maxNodes)} largest frames: {formatInt(pruned.nodes)} smaller ones are
      summed into {formatInt(pruned.groups)} <strong>[pruned]</strong> {pruned.groups === 1 ? "box" : "boxes"}
      , so every total still adds up.
    </p>
  );
}
