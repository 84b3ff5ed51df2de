// Where the zoom is: every ancestor of the zoomed frame, each one a button that zooms out to it.
import { type FrameTree, lineage, nameOf } from "@/lib/flamegraph";

interface Props {
  tree: FrameTree;
  zoom: number;
  onZoom: (node: number) => void;
}

export function FlameBreadcrumb({ tree, zoom, onZoom }: Props) {
  const chain = lineage(tree, zoom);
  return (
    <nav className="flame-crumbs" aria-label="Zoom path">
      <ol>
        {chain.map((node, i) => {
          const last = i === chain.length - 1;
          const label = node === 0 ? "all" : nameOf(tree, node);
          return (
            <li key={node}>
              {last ? (
                <span aria-current="location" className="flame-crumb-current mono">
                  {label}
                </span>
              ) : (
                <button type="button" className="flame-crumb mono" onClick={() => onZoom(node)}>
                  {label}
                </button>
              )}
            </li>
          );
        })}
      </ol>
      {zoom !== 0 ? (
        <button type="button" className="btn btn-sm" onClick={() => onZoom(0)} title="Esc">
          Reset zoom
        </button>
      ) : null}
    </nav>
  );
}
