// The tab strip above a flame graph page (viewer: graph/functions; comparison: differential/side by side).
interface Props<K extends string> {
  label: string;
  tabs: readonly (readonly [K, string])[];
  active: K;
  onSelect: (key: K) => void;
}

export function ViewTabs<K extends string>({ label, tabs, active, onSelect }: Props<K>) {
  return (
    <div className="tabs flame-tabs" role="tablist" aria-label={label}>
      {tabs.map(([key, text]) => (
        <button
          key={key}
          type="button"
          role="tab"
          aria-selected={active === key}
          className={active === key ? "active" : undefined}
          onClick={() => onSelect(key)}
        >
          {text}
        </button>
      ))}
    </div>
  );
}
