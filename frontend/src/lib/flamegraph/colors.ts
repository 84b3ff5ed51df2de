// Colours as data: a frame's colour depends only on its name (the same function has the same colour in
// every profile and after every reload) or, in a diff, on the signed size of its change.

/** FNV-1a, 32 bits: stable across sessions and browsers. */
export function hashName(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export type Rgb = readonly [number, number, number];

/**
 * The classic warm flame palette (red-orange-yellow) picked by the name's hash; frames the profiler could
 * not name ("[unknown]", raw addresses) are grey so they do not compete with real functions.
 */
export function nameColor(name: string): Rgb {
  if (name === "[unknown]" || /^0x[0-9a-f]+$/i.test(name) || name === "") return [190, 190, 186];
  const h = hashName(name);
  const a = (h & 0xff) / 255;
  const b = ((h >>> 8) & 0xff) / 255;
  const c = ((h >>> 16) & 0xff) / 255;
  // flamegraph.pl "hot": r 205..255, g 0..230, b 0..55; toned down a little for text contrast.
  return [Math.round(215 + 35 * c), Math.round(95 + 125 * a), Math.round(40 + 40 * b)];
}

/** Search matches: one saturated violet, unlike every name colour. */
export const MATCH_COLOR: Rgb = [190, 60, 230];
/** A frame that kept its share in a diff. */
export const DIFF_NEUTRAL: Rgb = [236, 236, 232];

/**
 * Diff colour for a signed intensity in -1..1: red grew, blue shrank, white unchanged. Small changes stay
 * visible: the intensity is lifted with a square root before mixing.
 */
export function diffColor(intensity: number): Rgb {
  const t = Math.min(1, Math.sqrt(Math.abs(intensity)));
  const [r0, g0, b0] = DIFF_NEUTRAL;
  const [r1, g1, b1]: Rgb = intensity >= 0 ? [222, 45, 38] : [33, 102, 200];
  if (intensity === 0) return DIFF_NEUTRAL;
  return [Math.round(r0 + (r1 - r0) * t), Math.round(g0 + (g1 - g0) * t), Math.round(b0 + (b1 - b0) * t)];
}

export function rgbCss([r, g, b]: Rgb): string {
  return `rgb(${r} ${g} ${b})`;
}

/** Black or white, whichever reads better on the colour (relative luminance). */
export function textOn([r, g, b]: Rgb): string {
  const l = (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  return l > 0.55 ? "#1b1f24" : "#ffffff";
}

/** Dims a colour towards grey (frames that do not match an active search). */
export function dim([r, g, b]: Rgb, amount = 0.7): Rgb {
  const grey = 225;
  return [
    Math.round(r + (grey - r) * amount),
    Math.round(g + (grey - g) * amount),
    Math.round(b + (grey - b) * amount),
  ];
}
