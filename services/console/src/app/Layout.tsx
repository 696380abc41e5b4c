import { useEffect, useRef, useState } from "react";
import { Navigate, NavLink, Outlet, useLocation, useNavigationType } from "react-router";
import { useSession } from "../api/session";
import { useTheme } from "./theme";

const NAV = [
  { to: "/workflows", label: "Workflows" },
  { to: "/executions", label: "Executions" },
  { to: "/approvals", label: "Approvals" },
  { to: "/keys", label: "API keys" },
  { to: "/webhooks", label: "Webhooks" },
  { to: "/secrets", label: "Secrets" },
  { to: "/usage", label: "Usage" },
];

/**
 * The frame of every signed-in page: navigation, theme switch, the account; anonymous visitors go
 * to login. The page is rendered while the session is still being checked, so that its code and
 * its data load at the same time as the check; an anonymous visitor's page gets a 401, which
 * ends the session here as the check does.
 */
export function Layout() {
  const { state, logout } = useSession();
  const [theme, toggleTheme] = useTheme();
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();
  const main = useRef<HTMLElement>(null);
  const navigation = useNavigationType();
  // A page reached by a link (or Back) takes the focus, as a new document would: the next Tab is
  // in the page's content, not back at the top of the frame. The document's first page keeps the
  // document's start (however often an effect runs for it: StrictMode runs it twice); a page that
  // replaces itself (a first save moving /workflows/new to its id) keeps the focus.
  const shown = useRef(location.pathname);
  useEffect(() => {
    if (shown.current === location.pathname) return;
    shown.current = location.pathname;
    if (navigation !== "REPLACE") main.current?.focus({ preventScroll: true });
  }, [location.pathname]);
  if (state.status === "anonymous")
    return <Navigate to="/login" replace state={{ from: location.pathname + location.search }} />;
  return (
    <div className="shell">
      <a
        className="skip-link"
        href="#main"
        onClick={(event) => {
          event.preventDefault();
          main.current?.focus();
        }}
      >
        Skip to the content
      </a>
      <header className="topbar">
        <button
          type="button"
          className="ghost menu-toggle"
          aria-label="Menu"
          aria-expanded={menuOpen}
          onClick={() => setMenuOpen((o) => !o)}
        >
          ☰
        </button>
        <NavLink to="/workflows" className="brand">
          <img src="/console/favicon.svg" alt="" width={22} height={22} /> wf
        </NavLink>
        <nav className={menuOpen ? "nav open" : "nav"} aria-label="Main" onClick={() => setMenuOpen(false)}>
          {NAV.map((item) => (
            <NavLink key={item.to} to={item.to}>
              {item.label}
            </NavLink>
          ))}
        </nav>
        <div className="spacer" />
        <button
          type="button"
          className="ghost"
          onClick={toggleTheme}
          aria-label={`Switch to ${theme === "dark" ? "light" : "dark"} theme`}
          title="Theme"
        >
          {theme === "dark" ? "☀" : "☾"}
        </button>
        {state.status === "signed-in" ? (
          <NavLink to="/account" className="account" title={`${state.session.user.email} (${state.session.user.plan})`}>
            {state.session.user.email}
          </NavLink>
        ) : (
          <span className="account muted" aria-busy="true">
            Checking your session…
          </span>
        )}
        <button type="button" className="ghost" onClick={() => void logout()}>
          Log out
        </button>
      </header>
      <main className="content" id="main" tabIndex={-1} ref={main}>
        <Outlet />
      </main>
    </div>
  );
}
