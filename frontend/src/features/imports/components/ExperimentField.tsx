// Pick an existing experiment or type a new name: suggestions come from the server as you type, and
// the hint says which of the two will happen on save.
import { useQuery } from "@tanstack/react-query";
import { useEffect, useId } from "react";
import { countOf, formatInt } from "@/lib/format";
import { useDebouncedValue } from "@/lib/use-debounced-value";
import { experimentSearchQueryOptions } from "../api";

interface Props {
  slug: string;
  value: string;
  onChange: (v: string) => void;
  onNewChange: (isNew: boolean) => void;
}

export function ExperimentField({ slug, value, onChange, onNewChange }: Props) {
  const id = useId();
  const listId = useId();
  const hintId = useId();
  const q = useDebouncedValue(value.trim(), 250);
  const search = useQuery(experimentSearchQueryOptions(slug, q));
  const items = search.data?.items ?? [];
  const exact = items.find((e) => e.name === value.trim());
  const settled = !search.isFetching && q === value.trim();
  const isNew = !!value.trim() && settled && !exact;

  useEffect(() => onNewChange(isNew), [isNew, onNewChange]);

  let hint: string;
  if (!value.trim())
    hint = search.data?.total ? `${countOf(search.data.total, "experiment")} in this project.` : "";
  else if (exact)
    hint = `Adds a run to the existing experiment (${formatInt(exact.run_count)} run${exact.run_count === 1 ? "" : "s"} so far).`;
  else if (isNew) hint = "A new experiment with this name will be created.";
  else hint = "Checking…";

  return (
    <div className="field experiment-field">
      <label htmlFor={id}>Experiment</label>
      <input
        id={id}
        className="input"
        list={listId}
        value={value}
        required
        maxLength={200}
        autoComplete="off"
        placeholder="proxy_buffers 4 128k"
        aria-describedby={hintId}
        onChange={(e) => onChange(e.target.value)}
      />
      <datalist id={listId}>
        {items.map((e) => (
          <option key={e.id} value={e.name}>
            {countOf(e.run_count, "run")}
          </option>
        ))}
      </datalist>
      <span id={hintId} className={`field-hint ${isNew ? "hint-new" : ""}`} role="status">
        {search.error ? "Could not load the experiments; you can still type a name." : hint}
      </span>
    </div>
  );
}
