// Series colours: distinguishable for common colour-vision deficiencies (Okabe–Ito), in a fixed order
// so the same experiment keeps its colour across every chart of a comparison.
const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];

export function seriesColor(index: number): string {
  return PALETTE[index % PALETTE.length] ?? "#0072B2";
}
