// One function between its callers (above, growing upwards to the outermost frame) and its callees
// (below), merged over every place it is called from.
import { useMemo, useState } from "react";
import { type FrameTree, nameIndex, sandwich } from "@/lib/flamegraph";
import { namePalette } from "../flame-draw";
import { formatPct, formatValue } from "../format";
import { FlameGraph } from "./FlameGraph";
import { FrameTooltip } from "./FrameTooltip";

interface Props {
  tree: FrameTree;
  fn: string;
  onClose: () => void;
}

export function SandwichView({ tree, fn, onClose }: Props) {
  const id = nameIndex(tree, fn);
  const s = useMemo(() => (id >= 0 ? sandwich(tree, id) : null), [tree, id]);
  const [callerZoom, setCallerZoom] = useState(0);
  const [calleeZoom, setCalleeZoom] = useState(0);
  const callerPalette = useMemo(() => (s ? namePalette(s.callers, null) : null), [s]);
  const calleePalette = useMemo(() => (s ? namePalette(s.callees, null) : null), [s]);
  const all = tree.total[0] as number;

  if (!s || !callerPalette || !calleePalette) {
    return (
      <section className="card card-body" aria-label="Sandwich">
        <p className="muted">
          No function named <code>{fn}</code> in this profile.
        </p>
      </section>
    );
  }
  return (
    <section className="card" aria-labelledby="sandwich-title">
      <div className="card-header">
        <h2 id="sandwich-title">
          Sandwich: <span className="mono">{s.name}</span>
        </h2>
        <div className="actions">
          <span className="muted tabular">
            total {formatValue(s.total, tree.unit)} ({formatPct(all ? s.total / all : 0)}) · self{" "}
            {formatValue(s.self, tree.unit)} ({formatPct(all ? s.self / all : 0)})
          </span>
          <button type="button" className="btn btn-sm" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
      <div className="card-body sandwich">
        <h3 className="sandwich-label">Callers</h3>
        <FlameGraph
          tree={s.callers}
          zoom={callerZoom}
          orientation="flame"
          palette={callerPalette}
          onZoom={setCallerZoom}
          maxHeight={300}
          label={`Callers of ${s.name}`}
          tooltip={(node) => <FrameTooltip tree={s.callers} node={node} rootTotal={all} />}
        />
        <h3 className="sandwich-label">Callees</h3>
        <FlameGraph
          tree={s.callees}
          zoom={calleeZoom}
          orientation="icicle"
          palette={calleePalette}
          onZoom={setCalleeZoom}
          maxHeight={300}
          label={`Callees of ${s.name}`}
          tooltip={(node) => <FrameTooltip tree={s.callees} node={node} rootTotal={all} />}
        />
      </div>
    </section>
  );
}
