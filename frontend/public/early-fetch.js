// Runs before the app's code has even downloaded: starts the requests the first screen waits on
// (who am I; on /p/<slug>/compare the comparison itself), so they travel while the bundle loads and
// parses. The app takes each response once (src/lib/early-fetch.ts) and asks again itself if any is
// missing, failed or does not match. A plain script (not inline) because the CSP allows only 'self'.
(() => {
  if (!/(?:^|;\s*)perflab_csrf=/.test(document.cookie)) return;
  const early = {};
  const get = (url) => fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
  early.me = get("/api/auth/me");
  const m = /^\/p\/([^/]+)\/compare\/?$/.exec(location.pathname);
  if (m) {
    // The page's code too (named by the build in index.html), beside the main bundle.
    const named = document.getElementById("perflab-chunks");
    for (const href of (named && JSON.parse(named.textContent || "{}").compare) || []) {
      const link = document.createElement("link");
      link.rel = "modulepreload";
      link.href = href;
      document.head.append(link);
    }
    const p = new URLSearchParams(location.search);
    const experiments = [
      ...new Set(
        p
          .getAll("e")
          .map((v) => v.trim())
          .filter(Boolean),
      ),
    ];
    const baseline = (p.get("base") || "").trim();
    const includeInvalid = p.get("inv") === "1";
    if (experiments.length) {
      const slug = decodeURIComponent(m[1]);
      const q = new URLSearchParams();
      for (const e of experiments) q.append("experiments", e);
      if (baseline) q.set("baseline", baseline);
      if (includeInvalid) q.set("include_invalid", "true");
      early[`compare:${JSON.stringify([slug, experiments, baseline, includeInvalid])}`] = get(
        `/api/projects/${encodeURIComponent(slug)}/compare?${q}`,
      );
    }
  }
  window.__perflabEarly = early;
})();
