// Quoting for commands shown to be pasted into a POSIX shell.

/** Leaves plain words alone; anything else goes in single quotes (a quote inside: closed, escaped, reopened). */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
