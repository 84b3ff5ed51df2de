// Frame of the pages inside one project: its name and the project's tabs.
import { useQuery } from "@tanstack/react-query";
import { Link, NavLink, Outlet, useParams } from "react-router";
import { ErrorBox } from "@/components/ErrorBox";
import { Skeleton } from "@/components/Skeleton";
import { projectQueryOptions } from "@/features/projects";

const TABS = [
  { to: "", label: "Experiments", end: true },
  { to: "hosts", label: "Hosts", end: false },
  { to: "tokens", label: "Tokens", end: false },
] as const;

export function ProjectLayout() {
  const { slug = "" } = useParams();
  const project = useQuery(projectQueryOptions(slug));

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
      <title>{`${project.data?.name ?? slug} · perflab`}</title>
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
          {TABS.map((t) => (
            <NavLink
              key={t.label}
              to={t.to ? `/p/${slug}/${t.to}` : `/p/${slug}`}
              end={t.end}
              className={({ isActive }) => (isActive ? "active" : undefined)}
            >
              {t.label}
            </NavLink>
          ))}
        </nav>
      </div>
      <Outlet />
    </>
  );
}
