// What a profile's counts are, correctable after upload by whoever may write (a folded file of perf's
// nanosecond periods uploaded as samples): the values stay as uploaded, only their unit changes, and
// the "look like sampling periods" warning goes once the unit is right.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId } from "react";
import { ErrorBox } from "@/components/ErrorBox";
import { useProjectRole } from "@/lib/project-role";
import { type ProfileMeta, profileKeys, setProfileUnit } from "../api";

export const PROFILE_UNITS: { unit: string; label: string }[] = [
  { unit: "samples", label: "samples" },
  { unit: "nanoseconds", label: "nanoseconds (perf periods)" },
  { unit: "events", label: "events (perf periods of cycles, faults…)" },
];

export function ProfileUnit({ slug, meta }: { slug: string; meta: ProfileMeta }) {
  const { canWrite } = useProjectRole(slug);
  const qc = useQueryClient();
  const id = useId();
  const save = useMutation({
    mutationFn: (unit: string) => setProfileUnit(meta.profile_id, unit),
    onSuccess: () => qc.invalidateQueries({ queryKey: profileKeys.all }),
  });
  if (!canWrite) return null;
  const known = PROFILE_UNITS.some((u) => u.unit === meta.unit);
  return (
    <span className="profile-unit">
      <label htmlFor={id} className="muted">
        Counts are
      </label>{" "}
      <select
        id={id}
        className="select"
        value={meta.unit}
        disabled={save.isPending}
        onChange={(e) => save.mutate(e.target.value)}
      >
        {known ? null : <option value={meta.unit}>{meta.unit}</option>}
        {PROFILE_UNITS.map((u) => (
          <option key={u.unit} value={u.unit}>
            {u.label}
          </option>
        ))}
      </select>
      {save.error ? <ErrorBox error={save.error} title="The unit was not changed" /> : null}
    </span>
  );
}
