import { Link } from "react-router";
import { useSession } from "../../api/session";
import { formatTime } from "../../ui/format";
import { Loading } from "../../ui/states";
import { PasswordForm } from "./PasswordForm";
import "./account.css";

/** Who is logged in, on which plan, and the password. */
export default function AccountPage() {
  const { state } = useSession();
  // The frame shows pages while the session is being checked; this one is made of it.
  if (state.status !== "signed-in") return <Loading what="Checking your session" />;
  const { user, expiresAt } = state.session;
  return (
    <div className="stack account-page">
      <div className="page-head">
        <h1>Your account</h1>
      </div>
      <section className="card" aria-labelledby="profile-title">
        <h2 id="profile-title" className="sr-only">
          Profile
        </h2>
        <dl className="facts account-facts">
          <div>
            <dt>Email</dt>
            <dd>{user.email}</dd>
          </div>
          <div>
            <dt>Plan</dt>
            <dd className="plan">
              <span className="badge plan-badge">{user.plan}</span>
              <Link to="/usage" className="small">
                Usage and limits
              </Link>
            </dd>
          </div>
          <div>
            <dt>This session ends</dt>
            <dd>{formatTime(expiresAt)}</dd>
          </div>
        </dl>
        <p className="muted small">
          An operator changes the email and the plan, with <code>wf admin user update</code>.
        </p>
      </section>
      <section className="card">
        <PasswordForm />
      </section>
    </div>
  );
}
