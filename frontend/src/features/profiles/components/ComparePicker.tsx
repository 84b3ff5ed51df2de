// "Compare with…": picks another profile of the project and opens the differential view against it.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useNavigate } from "react-router";
import { type ProfileMeta, projectProfilesQueryOptions } from "../api";

export function profileLabel(p: ProfileMeta): string {
  const run = p.run_label || `run ${p.run_id.slice(0, 8)}`;
  return [p.experiment_name, run, p.name].filter(Boolean).join(" · ");
}

export function compareUrl(slug: string, base: string, other: string): string {
  return `/p/${slug}/profiles/diff?${new URLSearchParams({ base, other })}`;
}

export function ComparePicker({ slug, base }: { slug: string; base: ProfileMeta }) {
  const list = useQuery(projectProfilesQueryOptions(slug));
  const navigate = useNavigate();
  const [other, setOther] = useState("");
  const options = (list.data ?? []).filter((p) => p.profile_id !== base.profile_id);
  if (list.isError || options.length === 0) return null;
  return (
    <form
      className="compare-picker"
      onSubmit={(e) => {
        e.preventDefault();
        if (other) navigate(compareUrl(slug, base.profile_id, other));
      }}
    >
      <label className="sr-only" htmlFor="compare-with">
        Compare with
      </label>
      <select id="compare-with" className="select" value={other} onChange={(e) => setOther(e.target.value)}>
        <option value="">Compare with…</option>
        {options.map((p) => (
          // Counts in another unit cannot be compared (the server refuses such a diff): say why, up front.
          <option key={p.profile_id} value={p.profile_id} disabled={p.unit !== base.unit}>
            {profileLabel(p)}
            {p.unit !== base.unit ? ` (counts ${p.unit}, not ${base.unit})` : ""}
          </option>
        ))}
      </select>
      <button type="submit" className="btn btn-sm" disabled={!other}>
        Diff
      </button>
    </form>
  );
}
