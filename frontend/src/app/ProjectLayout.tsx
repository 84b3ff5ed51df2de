// Frame of the pages inside one project: its name and the project's tabs.
import { useQuery } from "@tanstack/react-query";
import { Link, Outlet, useLocation, useParams } from "react-router";
import { ErrorBox } from "@/components/ErrorBox";
import { Skeleton } from "@/components/Skeleton";
import { projectQueryOptions } from "@/features/projects";
import { useProjectRole } from "@/lib/project-role";

// Experiment, run, import and compare pages belong to the Experiments tab: it stays highlighted there.
const TABS = [
  { to: "", label: "Experiments" },
  { to: "trends", label: "Trends" },
  { to: "hosts", label: "Hosts" },
  { to: "members", label: "Members" },
  { to: "alerts", label: "Alerts" },
  { to: "tokens", label: "Tokens" },
  { to: "trash", label: "Trash" },
] as const;

function activeTab(pathname: string, slug: string): string {
  const rest = pathname.slice(`/p/${slug}`.length).split("/")[1] ?? "";
  return TABS.some((t) => t.to && t.to === rest) ? rest : "";
}

export function ProjectLayout() {
  const { slug = "" } = useParams();
  const project = useQuery(projectQueryOptions(slug));
  const { pathname } = useLocation();
  const current = activeTab(pathname, slug);
  // Tokens are managed by owners only: the tab is not offered to anyone else.
  const { canManage } = useProjectRole(slug);
  const tabs = TABS.filter((t) => t.to !== "tokens" || canManage);

  if (project.error) {
    return (
      <main className="page">
        <ErrorBox error={project.error} title="Could not open the project" />
        <Link to="/projects">← All projects</Link>
      </main>
    );
  }

  return (
    <>
      {/* No <title> here: each page names itself (useTitle), which a title rendered by this frame
          overwrote on every re-render, so a direct load showed the project's name instead. */}
      <div className="project-bar">
        <div className="project-bar-title">
          <Link to="/projects" className="muted">
            Projects
          </Link>
          <span className="crumb-sep">/</span>
          <h1 style={{ fontSize: 16 }}>{project.data?.name ?? <Skeleton width={160} height={16} />}</h1>
          <span className="faint mono" style={{ fontSize: 12 }}>
            {slug}
          </span>
        </div>
        <nav className="tabs" aria-label="Project">
          {tabs.map((t) => (
            <Link
              key={t.label}
              to={t.to ? `/p/${slug}/${t.to}` : `/p/${slug}`}
              className={current === t.to ? "active" : undefined}
              aria-current={current === t.to ? "page" : undefined}
            >
              {t.label}
            </Link>
          ))}
        </nav>
      </div>
      <Outlet />
    </>
  );
}
