// The frame of every logged-in page: brand, top navigation, who is logged in, log out.
import { useQuery } from "@tanstack/react-query";
import { Link, NavLink, Outlet, ScrollRestoration, useNavigate } from "react-router";
import { UndoToast } from "@/components/UndoToast";
import { BrandMark, meQueryOptions, SessionExpiredDialog, useLogout } from "@/features/auth";

export function AppLayout() {
  const me = useQuery(meQueryOptions());
  const logout = useLogout();
  const navigate = useNavigate();

  return (
    <div className="shell">
      <a href="#main" className="sr-only">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/projects" className="brand" aria-label="perflab home">
          <BrandMark />
          perflab
        </Link>
        <nav className="topnav" aria-label="Main">
          <NavLink to="/projects" end>
            Projects
          </NavLink>
        </nav>
        <div className="user-menu">
          {me.data ? (
            <span title={`${me.data.email}, role: ${me.data.role}`} className="user-who">
              <span className="user-email">{me.data.email}</span>
              {me.data.role === "admin" ? (
                <span className="badge plain" style={{ marginLeft: 6 }}>
                  admin
                </span>
              ) : null}
            </span>
          ) : null}
          <button
            type="button"
            className="btn btn-sm"
            disabled={logout.isPending}
            onClick={() =>
              logout.mutate(undefined, { onSettled: () => navigate("/login", { replace: true }) })
            }
          >
            Log out
          </button>
        </div>
      </header>
      <div id="main">
        <Outlet />
      </div>
      <UndoToast />
      <SessionExpiredDialog />
      <ScrollRestoration />
    </div>
  );
}
