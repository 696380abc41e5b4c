import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from "react";
import { createBrowserRouter, Navigate } from "react-router";
import { Loading } from "../ui/states";
import { Layout } from "./Layout";
import { LoginPage } from "../pages/login/LoginPage";
import { NotFoundPage } from "./NotFoundPage";

/** Each page is its own chunk, loaded when first visited: the first page stays small. */
function page(load: () => Promise<{ default: ComponentType }>) {
  const Page: LazyExoticComponent<ComponentType> = lazy(load);
  return (
    <Suspense fallback={<Loading what="Loading the page" />}>
      <Page />
    </Suspense>
  );
}

/** Every page of the console at its own URL under /console/ (docs/console.md lists them). */
export const router = createBrowserRouter(
  [
    { path: "/login", element: <LoginPage /> },
    {
      path: "/",
      element: <Layout />,
      children: [
        { index: true, element: <Navigate to="/workflows" replace /> },
        { path: "workflows", element: page(() => import("../pages/workflows/WorkflowsPage")) },
        { path: "workflows/new", element: page(() => import("../pages/workflows/WorkflowEditorPage")) },
        { path: "workflows/:id", element: page(() => import("../pages/workflows/WorkflowEditorPage")) },
        { path: "workflows/:id/versions", element: page(() => import("../pages/workflows/VersionsPage")) },
        { path: "executions", element: page(() => import("../pages/executions/ExecutionsPage")) },
        { path: "executions/compare", element: page(() => import("../pages/executions/ComparePage")) },
        { path: "executions/:id", element: page(() => import("../pages/executions/ExecutionPage")) },
        { path: "executions/:id/debug", element: page(() => import("../pages/executions/DebuggerPage")) },
        { path: "approvals", element: page(() => import("../pages/approvals/ApprovalsPage")) },
        { path: "approvals/:id", element: page(() => import("../pages/approvals/ApprovalPage")) },
        { path: "keys", element: page(() => import("../pages/keys/KeysPage")) },
        { path: "webhooks", element: page(() => import("../pages/webhooks/WebhooksPage")) },
        { path: "webhooks/:id", element: page(() => import("../pages/webhooks/WebhookPage")) },
        { path: "secrets", element: page(() => import("../pages/secrets/SecretsPage")) },
        { path: "usage", element: page(() => import("../pages/usage/UsagePage")) },
        { path: "account", element: page(() => import("../pages/account/AccountPage")) },
        { path: "*", element: <NotFoundPage /> },
      ],
    },
  ],
  { basename: "/console" },
);
