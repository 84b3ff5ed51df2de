// The same slug rule as the server (projects/service.py slugify), so the preview matches what is stored.

export function slugify(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug.slice(0, 100);
}

export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]*$/;
